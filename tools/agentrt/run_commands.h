// tools/agentrt/run_commands.h
//
// The first operator commands over a run's database, and the scripted demonstration:
//   agentrt demo scripted --db PATH   a scripted agent against three in-memory tools
//   agentrt recheck --db PATH RUN     re-ask the default policy every recorded evaluation
// (The full operator command — runs, show, approve, … — is a later issue; events, verify and
// export are in event_commands.h.)
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

int RunDemoCommand(std::span<const std::string> args);
int RunRecheckCommand(std::span<const std::string> args);

}  // namespace agentrt::cli
