#include "runtime/policy.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"
#include "runtime/tool.h"

namespace agentrt {
namespace {

class SideEffectPolicy final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                          const RunView& view) override {
    PolicyDecision d;
    std::string_view side_effect = ToString(request.spec.side_effect);
    switch (request.spec.side_effect) {
      case SideEffect::kReadOnly:
      case SideEffect::kLocalMutation:
        d.outcome = PolicyOutcome::kAllow;
        break;
      case SideEffect::kRemoteMutation:
        d.outcome = PolicyOutcome::kRequireApproval;
        d.kind = std::string(side_effect);
        d.capability =
            json::JsonObject().Raw("args", request.args).String("tool", request.spec.name).Build();
        d.presentation = d.capability;
        break;
      case SideEffect::kDestructive:
        d.outcome = PolicyOutcome::kDeny;
        break;
    }
    d.outcome_text = std::string(ToString(d.outcome));
    d.reason =
        absl::StrCat("side effect ", ToAbsl(side_effect), " is ", d.outcome_text, " by policy");
    return d;
  }
};

}  // namespace

std::unique_ptr<Policy> DefaultPolicy() { return std::make_unique<SideEffectPolicy>(); }

absl::StatusOr<PolicyDecision> NeedApproval(std::string_view kind, std::string_view reason,
                                            std::string_view capability,
                                            std::string_view presentation) {
  PolicyDecision d;
  d.outcome = PolicyOutcome::kRequireApproval;
  d.outcome_text = std::string(ToString(d.outcome));
  d.kind = std::string(kind);
  d.reason = std::string(reason);
  for (auto [name, text, out] : {std::tuple{"capability", capability, &d.capability},
                                 std::tuple{"presentation", presentation, &d.presentation}}) {
    absl::StatusOr<std::string> canonical = json::Canonicalize(Blank(text) ? "{}" : text);
    if (!canonical.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("approval ", name, ": ", canonical.status().message()));
    }
    *out = *std::move(canonical);
  }
  return d;
}

absl::StatusOr<json::Document> DecodePresentation(const Approval& approval) {
  if (Blank(approval.presentation)) {
    return absl::InvalidArgumentError(
        absl::StrCat("approval ", approval.id, " has no presentation"));
  }
  absl::StatusOr<json::Document> doc = json::Parse(approval.presentation);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "approval ", approval.id, ": presentation is not JSON: ", doc.status().message()));
  }
  return doc;
}

absl::Status AbortRun(std::string_view detail) {
  absl::Status status = absl::AbortedError(absl::StrCat("abort run: ", ToAbsl(detail)));
  status.SetPayload(ToAbsl(payload::kAbortRun), absl::Cord(ToAbsl(detail)));
  return status;
}

bool IsAbortRun(const absl::Status& status) {
  return status.GetPayload(ToAbsl(payload::kAbortRun)).has_value();
}

}  // namespace agentrt
