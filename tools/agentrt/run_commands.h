// tools/agentrt/run_commands.h
//
// The first operator commands over a run's database, and the scripted demonstration:
//   agentrt demo scripted --db PATH   a scripted agent against three in-memory tools
//   agentrt events --db PATH RUN      a run's persisted events, in order
//   agentrt verify --db PATH          walk the event hash chain, name the first break
//   agentrt recheck --db PATH RUN     re-ask the default policy every recorded evaluation
// (The full operator command — runs, show, approve, … — is a later issue.)
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

int RunDemoCommand(std::span<const std::string> args);
int RunEventsCommand(std::span<const std::string> args);
int RunVerifyCommand(std::span<const std::string> args);
int RunRecheckCommand(std::span<const std::string> args);

}  // namespace agentrt::cli
