// tools/agentrt/run_commands.h
//
// The first operator command over a run's database (the demonstrations are demos/):
//   agentrt recheck --db PATH RUN     re-ask the default policy every recorded evaluation
// (The full operator command — runs, show, approve, … — is a later issue; events, verify and
// export are in event_commands.h.)
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunRecheckCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
