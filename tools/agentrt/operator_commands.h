// tools/agentrt/operator_commands.h
//
// The operator's decisions on a run (a first version; the full operator command is a later
// issue):
//   agentrt approve [--db PATH] RUN [--approval ID] [--by NAME] [--note TEXT] [--yes]
//   agentrt reject  [--db PATH] RUN [--approval ID] [--by NAME] [--note TEXT] [--yes]
//   agentrt cancel  [--db PATH] RUN [--by NAME] [--note TEXT] [--yes]
// Approve and reject show the exact request first and bind the decision to the hash shown; on
// a terminal they ask, in a script they need --yes.
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

int RunApproveCommand(std::span<const std::string> args);
int RunRejectCommand(std::span<const std::string> args);
int RunCancelCommand(std::span<const std::string> args);

}  // namespace agentrt::cli
