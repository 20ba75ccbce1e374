// testkit/same_renders.h
//
// SameRenders: the model request a product's agent renders for a step is byte-identical
// whether the run went straight through, was paused for approval and resumed (in a fresh
// driver with a fresh agent), or crashed at a step boundary and was resumed in another
// process. Replay keys, caches and the model's view of the conversation all rest on this: an
// opening that reads the clock, a counter or anything but its StepInput breaks it, and so
// does a renderer that shows what a resumed run reads back differently.
//
// The product gives its renderer (render::ModelAgentOptions) and tools; the kit plays the
// model: at each step it asks for the next call of the scenario (the number of assistant turns
// in the request says which), and declines once they are used up, which ends the run. Runs use
// real database files in a temporary folder; crashes are real: a forked child drives the run
// and _exits after a step's step.tool_finished, and the resume happens in this process once
// the child's lease has expired on a lease clock the kit controls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/render/model_agent.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "testkit/report.h"

namespace agentrt::testkit {

struct RenderScenario {
  render::ModelAgentOptions agent;  // the product's renderer (an opening is required)
  std::vector<Tool*> tools;         // not owned
  std::vector<ToolUse> calls;       // what the model asks for, one per step
  std::string goal = "same renders";
  Limits limits;
  std::uint64_t seed = 1;
  int max_crashes = 8;  // crash runs, one after each of the first N tool steps
};

// SameRenders drives the scenario straight, paused before every call (each approved and
// resumed), and crashed after each tool step, and reports every request that differs from the
// straight run's (the variant, the request's position, the first differing byte and both
// sides around it), any variant that made a different number of requests, and a crash point
// not reached. Errors: the
// straight run made no request, or a run could not be set up (a tool refused, no folder).
absl::StatusOr<Report> SameRenders(const RenderScenario& scenario);

}  // namespace agentrt::testkit
