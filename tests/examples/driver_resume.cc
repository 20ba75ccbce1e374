// A remote-mutation tool pauses the run for an operator. Once the operator approves, a new
// driver (as after a restart) resumes the run: exactly the approved call runs, once.
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

// Sends an email: a change outside the process, so the default policy asks a person first.
class SendEmail final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {.name = "send_email",
            .description = "Send an email.",
            .input_schema = R"({"type":"object","required":["to","subject"],
                                "properties":{"to":{"type":"string"},
                                              "subject":{"type":"string"}}})",
            .side_effect = agentrt::SideEffect::kRemoteMutation,
            .timeout = absl::Seconds(10)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    ++calls;
    std::cout << "send_email called with " << call.args << "\n";
    return agentrt::ToolResult{R"({"message_id":"m-1"})", "sent"};
  }
  int calls = 0;
};

// A driver over `agent`; each process that drives runs makes its own.
absl::StatusOr<std::unique_ptr<agentrt::Driver>> NewDriver(agentrt::store::Store& store,
                                                           agentrt::world::ManualClock& clock,
                                                           agentrt::world::Entropy& entropy,
                                                           agentrt::Agent& agent,
                                                           agentrt::Policy& policy,
                                                           agentrt::Tool& tool) {
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  options.tools = {&tool};
  options.scheduler = &clock;
  return agentrt::Driver::Create(store, clock, entropy, std::move(options));
}

}  // namespace

absl::Status Example() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();
  SendEmail send_email;

  // The first driver runs until the policy asks for approval.
  agentrt::ScriptedAgent asks({agentrt::scripted::Call(
      "send_email", R"({"to":"ops@example.com","subject":"deploy finished"})")});
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> first,
                           NewDriver(*store, clock, entropy, asks, *policy, send_email));
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, first->StartWithId("run-1", "announce the deploy"));
  std::cout << "started: " << agentrt::ToString(run.status) << "\n";
  first.reset();

  // The operator finds the pending approval and grants it.
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Approval pending, agentrt::PendingApproval(*store, run.id));
  std::cout << "pending: " << pending.kind << " approval, " << agentrt::ToString(pending.status)
            << "\n";
  AGENTRT_ASSIGN_OR_RETURN(
      agentrt::Approval approved,
      agentrt::Approve(*store, clock, run.id, pending.id,
                       {.by = "alice", .note = "wording checked", .shown_hash = pending.hash}));
  std::cout << "decided: " << agentrt::ToString(approved.status) << " by " << approved.decided_by
            << "\n";
  std::cout << "send_email calls before resume: " << send_email.calls << "\n";

  // A new driver resumes: the approved call runs (with the arguments the approval bound, in
  // canonical form), then the agent goes on from there.
  agentrt::ScriptedAgent finishes({agentrt::scripted::Complete(R"({"announced":true})")});
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> second,
                           NewDriver(*store, clock, entropy, finishes, *policy, send_email));
  AGENTRT_ASSIGN_OR_RETURN(run, second->Resume(run.id));
  std::cout << "resumed: " << agentrt::ToString(run.status) << " (" << run.reason << ") after "
            << run.step_count << " steps\n";
  std::cout << "send_email calls: " << send_email.calls << "\n";
  return absl::OkStatus();
}

// Output:
// started: WAITING_FOR_APPROVAL
// pending: remote_mutation approval, pending
// decided: approved by alice
// send_email calls before resume: 0
// send_email called with {"subject":"deploy finished","to":"ops@example.com"}
// resumed: COMPLETED (goal_completed) after 2 steps
// send_email calls: 1
