// tools/agentrt/operator_commands.h
//
// The operator's decisions on a run (docs/operators.md):
//   agentrt approve RUN [--db PATH] [--approval ID] [--by NAME] [--note TEXT] [--yes] [--json]
//   agentrt reject  RUN [--db PATH] [--approval ID] [--by NAME] [--note TEXT] [--yes] [--json]
//   agentrt cancel  RUN [--db PATH] [--by NAME] [--note TEXT] [--yes] [--json]
// Approve and reject print the APPROVAL WAITING block first and bind the decision to the hash
// of what was printed: an approval that changed in between is refused. They go ahead only when
// --approval named it, or --yes was given, or the operator answered y at the prompt on a
// terminal; a script without either is refused (usage error) before the database is opened.
// --by defaults to $USER. Events the decision wrote go to standard error, one line each.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunApproveCommand(std::span<const std::string> args, Io& io);
int RunRejectCommand(std::span<const std::string> args, Io& io);
int RunCancelCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
