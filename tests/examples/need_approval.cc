// A product's own policy asks for approval with NeedApproval: it chooses the approval kind,
// the capability a grant allows and what the operator is shown, all stored canonical and bound
// by the approval's hash. A grant covers exactly the call it was asked for: the next refund
// pauses again.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace {

// Refunds an order.
class Refund final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {.name = "refund",
            .description = "Refund an order.",
            .input_schema = R"({"type":"object","required":["order","amount_cents"],
                                "properties":{"order":{"type":"string"},
                                              "amount_cents":{"type":"integer","minimum":1}}})",
            .side_effect = agentrt::SideEffect::kRemoteMutation,
            .timeout = absl::Seconds(10)};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    refunded.push_back(call.args);
    return agentrt::ToolResult{R"({"refunded":true})", "refunded"};
  }
  std::vector<std::string> refunded;
};

// The product's rule: every refund needs a person from support, who is shown the order and
// the amount in dollars; the grant is for that order and that amount only.
class RefundPolicy final : public agentrt::Policy {
 public:
  absl::StatusOr<agentrt::PolicyDecision> Evaluate(const agentrt::ToolRequest& request,
                                                   const agentrt::RunView& view) override {
    if (request.spec.name != "refund") {
      return agentrt::PolicyDecision{.outcome = agentrt::PolicyOutcome::kDeny,
                                     .reason = "this agent may only refund"};
    }
    // The arguments have passed the tool's schema and are canonical JSON.
    AGENTRT_ASSIGN_OR_RETURN(agentrt::json::Document args, agentrt::json::Parse(request.args));
    const std::string order = agentrt::json::MemberText(args.root(), "order");
    const std::int64_t cents = agentrt::json::MemberInt(args.root(), "amount_cents");
    std::string capability =
        agentrt::json::JsonObject().String("order", order).Int("amount_cents", cents).Build();
    std::string presentation =
        agentrt::json::JsonObject()
            .String("title", "Refund order " + order)
            .String("amount", absl::StrFormat("$%d.%02d", cents / 100, cents % 100))
            .Build();
    return agentrt::NeedApproval("refund", "refunds are approved by support", capability,
                                 presentation);
  }
  std::string Id() const override { return "refunds/v1"; }
};

}  // namespace

absl::Status Example() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::store::Store> store,
                           agentrt::records::OpenStoreInMemory(clock));
  Refund refund;
  RefundPolicy policy;
  agentrt::ScriptedAgent agent({
      agentrt::scripted::Call("refund", R"({"order":"A-17","amount_cents":2500})"),
      agentrt::scripted::Call("refund", R"({"order":"B-22","amount_cents":900})"),
  });
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = &policy;
  options.tools = {&refund};
  options.scheduler = &clock;
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<agentrt::Driver> driver,
                           agentrt::Driver::Create(*store, clock, entropy, std::move(options)));

  AGENTRT_ASSIGN_OR_RETURN(agentrt::Run run, driver->StartWithId("run-1", "refund two orders"));
  std::cout << "run: " << agentrt::ToString(run.status) << "\n";

  // What the operator is asked, as stored.
  AGENTRT_ASSIGN_OR_RETURN(agentrt::Approval pending, agentrt::PendingApproval(*store, run.id));
  std::cout << "kind: " << pending.kind << "\n";
  std::cout << "capability: " << pending.capability << "\n";
  std::cout << "presentation: " << pending.presentation << "\n";
  // A surface that shows the presentation its own way decodes it.
  AGENTRT_ASSIGN_OR_RETURN(agentrt::json::Document shown, agentrt::DecodePresentation(pending));
  std::cout << "shown: " << agentrt::json::MemberText(shown.root(), "title") << " for "
            << agentrt::json::MemberText(shown.root(), "amount") << "\n";

  AGENTRT_RETURN_IF_ERROR(agentrt::Approve(*store, clock, run.id, pending.id,
                                           {.by = "support", .shown_hash = pending.hash})
                              .status());
  AGENTRT_ASSIGN_OR_RETURN(run, driver->Resume(run.id));
  std::cout << "resumed: " << agentrt::ToString(run.status) << "\n";
  for (const std::string& args : refund.refunded) std::cout << "refunded: " << args << "\n";

  // The second refund was not covered by the first grant: it waits for its own.
  AGENTRT_ASSIGN_OR_RETURN(std::vector<agentrt::Approval> approvals,
                           agentrt::ListApprovals(*store, run.id));
  for (const agentrt::Approval& a : approvals) {
    std::cout << "approval: " << agentrt::ToString(a.status) << " " << a.capability << "\n";
  }
  return absl::OkStatus();
}

// Output:
// run: WAITING_FOR_APPROVAL
// kind: refund
// capability: {"amount_cents":2500,"order":"A-17"}
// presentation: {"amount":"$25.00","title":"Refund order A-17"}
// shown: Refund order A-17 for $25.00
// resumed: WAITING_FOR_APPROVAL
// refunded: {"amount_cents":2500,"order":"A-17"}
// approval: approved {"amount_cents":2500,"order":"A-17"}
// approval: pending {"amount_cents":900,"order":"B-22"}
