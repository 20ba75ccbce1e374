// runtime/scripted_agent.h
//
// An agent that plays a fixed list of decisions in order, for demonstrations and tests of
// controls ("the destructive call is denied", "the run stops at the step limit"). When the
// script runs out it fails the run with an agent error saying so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/agent.h"

namespace agentrt {

class ScriptedAgent final : public Agent {
 public:
  explicit ScriptedAgent(std::vector<Decision> script) : script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override;

 private:
  std::vector<Decision> script_;
  std::size_t next_ = 0;
};

// The decisions a script is written in (docs/testkit.md).
namespace scripted {
// A tool call: `args` is the agent's JSON text, kept as written.
Decision Call(std::string tool, std::string args, std::string reason = "");
// Completes the run; `result` is JSON ("" for none).
Decision Complete(std::string result = "");
// Fails the run (goal_failed) with `message`.
Decision Fail(std::string message);
}  // namespace scripted

}  // namespace agentrt
