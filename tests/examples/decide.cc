// Reading a model's reply as the agent's next decision (render::Decide): a reply with a tool
// use becomes a tool_call of it; a reply with none becomes a no_tool_call decision, which the
// driver records as an invalid decision the model is told about, and the run goes on.
#include "runtime/render/decide.h"

#include <iostream>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/model.h"
#include "runtime/operator/view/pages.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

void Print(const agentrt::Decision& d) {
  std::cout << "kind=" << d.kind << " tool=" << d.tool << " args=" << d.args << " reason=\""
            << d.reason << "\"\n";
}

}  // namespace

absl::Status Example() {
  agentrt::ModelResponse with_call;
  with_call.text = "Let me look that up.";
  with_call.tool_uses = {{.id = "toolu_1", .name = "search", .args = R"({"q":"agentrt 1.0"})"}};
  with_call.stop_reason = agentrt::stop_reason::kToolUse;
  agentrt::Decision call = agentrt::render::Decide(with_call);
  Print(call);

  agentrt::ModelResponse without_call;
  without_call.text = "  It was probably released in March.\n";
  without_call.stop_reason = agentrt::stop_reason::kEndTurn;
  agentrt::Decision none = agentrt::render::Decide(without_call);
  Print(none);

  // What the driver records for the second: the step fails with an invalid_decision
  // observation, and the agent is asked again (here it completes).
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));
  agentrt::ScriptedAgent agent({none, agentrt::scripted::Complete()});
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.scheduler = &clock;
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> driver,
                           agentrt::Driver::Create(*store, clock, entropy, std::move(options)));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, driver->StartWithId("run-1", "find the date"));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::view::StepsPageResult page,
                           agentrt::view::StepsPage(*store, run.id, /*limit=*/10, /*offset=*/0));
  for (const agentrt::view::StepSummary& step : page.steps) {
    std::cout << "step " << step.index << ": " << step.decision << " "
              << agentrt::ToString(step.status);
    if (!step.observation.empty()) {
      std::cout << " " << step.observation << " \"" << step.summary << "\"";
    }
    std::cout << "\n";
  }
  std::cout << "run: " << agentrt::ToString(run.status) << "\n";
  return absl::OkStatus();
}

// Output:
// kind=tool_call tool=search args={"q":"agentrt 1.0"} reason="Let me look that up."
// kind=no_tool_call tool= args= reason="It was probably released in March."
// step 0: no_tool_call failed invalid_decision "invalid decision: the reply contained no tool call"
// step 1: complete done
// run: COMPLETED
