// The default policy decides by a tool's side-effect class: a read-only tool runs, a
// destructive one is denied, and the denial is an observation the agent sees (the run goes on).
#include <iostream>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/operator/view/pages.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

constexpr char kPathSchema[] =
    R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})";

// Reads a file; the operator classed it read_only.
class ReadFile final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {.name = "read_file",
            .description = "Read a file.",
            .input_schema = kPathSchema,
            .side_effect = agentrt::SideEffect::kReadOnly,
            .timeout = absl::Seconds(5)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    return agentrt::ToolResult{R"({"text":"ship on friday"})", "read 14 bytes"};
  }
};

// Deletes a file; classed destructive, so the default policy never lets it run.
class DeleteFile final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {.name = "delete_file",
            .description = "Delete a file.",
            .input_schema = kPathSchema,
            .side_effect = agentrt::SideEffect::kDestructive,
            .timeout = absl::Seconds(5)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    ++calls;
    return agentrt::ToolResult{"{}", "deleted"};
  }
  int calls = 0;
};

}  // namespace

absl::Status Example() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));

  ReadFile read_file;
  DeleteFile delete_file;
  agentrt::ScriptedAgent agent({
      agentrt::scripted::Call("read_file", R"({"path":"notes.txt"})"),
      agentrt::scripted::Call("delete_file", R"({"path":"notes.txt"})"),
      agentrt::scripted::Complete(R"({"summary":"ship on friday"})"),
  });
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();

  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&read_file, &delete_file};
  options.scheduler = &clock;  // the lease heartbeat's clock: it beats only when moved
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> driver,
                           agentrt::Driver::Create(*store, clock, entropy, std::move(options)));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, driver->StartWithId("run-1", "summarize the notes"));

  // The steps as an operator surface reads them back from the store.
  AGENTRT_ASSIGN_OR_RETURN(agentrt::view::StepsPageResult page,
                           agentrt::view::StepsPage(*store, run.id, /*limit=*/10, /*offset=*/0));
  for (const agentrt::view::StepSummary& step : page.steps) {
    if (step.decision != "tool_call") {
      std::cout << "step " << step.index << ": " << step.decision << "\n";
      continue;
    }
    std::cout << "step " << step.index << ": " << step.tool << " " << step.policy << " -> "
              << step.observation << " \"" << step.summary << "\"\n";
  }
  std::cout << "delete_file ran " << delete_file.calls << " times\n";
  std::cout << "run: " << agentrt::ToString(run.status) << " (" << run.reason << ")\n";
  return absl::OkStatus();
}

// Output:
// step 0: read_file allow -> tool_result "read 14 bytes"
// step 1: delete_file deny -> policy_denied "denied: side effect destructive is deny by policy"
// step 2: complete
// delete_file ran 0 times
// run: COMPLETED (goal_completed)
