#include "testkit/internal/world.h"

#include "runtime/json/json_object.h"

namespace agentrt::testkit::internal {
namespace {

class AllowAll final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
    PolicyDecision d;
    d.outcome = PolicyOutcome::kAllow;
    d.reason = "test kit: allowed";
    return d;
  }
};

class ApproveAll final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView&) override {
    std::string what =
        json::JsonObject().Raw("args", request.args).String("tool", request.spec.name).Build();
    return NeedApproval("testkit", "test kit: every call waits for an operator", what, what);
  }
};

}  // namespace

std::unique_ptr<Policy> AllowEverything() { return std::make_unique<AllowAll>(); }
std::unique_ptr<Policy> ApproveEverything() { return std::make_unique<ApproveAll>(); }

}  // namespace agentrt::testkit::internal
