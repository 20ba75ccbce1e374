// tools/agentrt/json_command.h
//
// `agentrt json canon|hash [FILE|-]`: the canonical form of a JSON document, or its SHA-256,
// under the same strict intake the runtime applies to everything it receives.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

// RunJsonCommand runs `agentrt json ARGS...` and returns the process exit code.
int RunJsonCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
