// tools/agentrt/run_commands.h
//
// Operator commands over a run's database (the demonstrations are demos/; runs, show, approve
// and their siblings are view_commands.h and operator_commands.h; events, verify and export are
// event_commands.h):
//   agentrt recheck --db PATH RUN     re-ask the default policy every recorded evaluation
//   agentrt migrate --db PATH         bring an older database up to this build's schema
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunRecheckCommand(std::span<const std::string> args, Io& io);
int RunMigrateCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
