// runtime/agent.h
//
// The agent proposes; it decides nothing. Decide gets a copy of the run, the steps so far
// (shared, read-only: step_list.h) and the registered tools, and returns the next decision: a
// tool call, complete or fail.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cancellation.h"
#include "runtime/model.h"
#include "runtime/step_list.h"
#include "runtime/types.h"

namespace agentrt {

struct StepInput {
  Run run;                      // step_count already counts this step
  StepList steps;               // the steps before this one (shared, read-only)
  std::vector<ToolSpec> tools;  // sorted by name
  // The accounting model caller for this step (model_caller.h); null when the driver has no
  // model configured. Valid only during Decide.
  ModelCaller* model = nullptr;
  // The caller's (cancellation.h); null when the run cannot be cancelled. An agent that stops
  // because of it returns an error: the run is then not failed, the step stays open for a
  // resume.
  const Cancellation* cancellation = nullptr;
};

class Agent {
 public:
  virtual ~Agent() = default;
  // An error ends the run (FAILED, agent_error).
  virtual absl::StatusOr<Decision> Decide(const StepInput& input) = 0;
};

}  // namespace agentrt
