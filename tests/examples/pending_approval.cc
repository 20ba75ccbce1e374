// PendingApproval finds the approval an operator means without being told its id: the one
// pending approval of a paused run. A run with none (here: once it was decided) is NotFound;
// with several, FailedPrecondition naming them. The runtime never guesses.
#include <iostream>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

// Publishes a post: remote_mutation, so the default policy pauses for approval.
class Publish final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {.name = "publish",
            .description = "Publish a post.",
            .input_schema = R"({"type":"object","properties":{"title":{"type":"string"}}})",
            .side_effect = agentrt::SideEffect::kRemoteMutation,
            .timeout = absl::Seconds(10)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    return agentrt::ToolResult{"{}", "published"};
  }
};

}  // namespace

absl::Status Example() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));
  Publish publish;
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();
  agentrt::ScriptedAgent agent(
      {agentrt::scripted::Call("publish", R"({"title":"Release notes"})")});
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&publish};
  options.scheduler = &clock;
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> driver,
                           agentrt::Driver::Create(*store, clock, entropy, std::move(options)));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, driver->StartWithId("run-1", "publish the notes"));
  std::cout << run.id << ": " << agentrt::ToString(run.status) << "\n";

  AGENTRT_ASSIGN_OR_RETURN(agentrt::Approval approval, agentrt::PendingApproval(*store, run.id));
  std::cout << "pending: " << approval.kind << " " << approval.presentation << "\n";
  // Naming the approval gives the same one.
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Approval named,
                           agentrt::PendingApproval(*store, run.id, approval.id));
  std::cout << "named: " << (named.id == approval.id ? "the same approval" : "another") << "\n";

  // Once it is decided the run, still waiting for its resume, has no pending approval left.
  AGENTRT_RETURN_IF_ERROR(
      agentrt::Approve(*store, clock, run.id, approval.id, {.by = "alice"}).status());
  absl::StatusOr<agentrt::Approval> none = agentrt::PendingApproval(*store, run.id);
  if (none.ok()) return absl::InternalError("the approval is still pending after Approve");
  std::cout << "after approving: " << absl::StatusCodeToString(none.status().code()) << ": "
            << none.status().message() << "\n";
  return absl::OkStatus();
}

// Output:
// run-1: WAITING_FOR_APPROVAL
// pending: remote_mutation {"args":{"title":"Release notes"},"tool":"publish"}
// named: the same approval
// after approving: NOT_FOUND: run run-1 has no pending approval
