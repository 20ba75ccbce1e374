// tools/agentrt/shared_flags.h
//
// The flags several commands accept: --json (machine output), --limit and --offset (paging).
// Defined once (shared_flags.cc); each command names the ones it accepts (command_line.h) and
// sets its own default for --limit when the flag is not given.
#pragma once

#include <cstdint>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(std::int64_t, limit);
ABSL_DECLARE_FLAG(std::int64_t, offset);
