// runtime/scripted_agent.h
//
// An agent that plays a fixed list of decisions in order, for demonstrations and tests of
// controls ("the destructive call is denied", "the run stops at the step limit"). When the
// script runs out it fails the run with an agent error saying so.
#pragma once

#include <cstddef>
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

}  // namespace agentrt
