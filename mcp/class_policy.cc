#include "mcp/class_policy.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"

namespace agentrt::mcp {
namespace {

std::string TableJson(const std::map<SideEffect, PolicyOutcome>& classes,
                      const std::map<std::string, PolicyOutcome>& tools) {
  json::JsonObject c;
  for (const auto& [effect, outcome] : classes) c.String(ToString(effect), ToString(outcome));
  json::JsonObject t;
  for (const auto& [name, outcome] : tools) t.String(name, ToString(outcome));
  return json::JsonObject().Raw("classes", c.Build()).Raw("tools", t.Build()).Build();
}

}  // namespace

ClassPolicy::ClassPolicy(std::map<SideEffect, PolicyOutcome> classes,
                         std::map<std::string, PolicyOutcome> tools)
    : classes_(std::move(classes)),
      tools_(std::move(tools)),
      id_(absl::StrCat("mcp-class-policy/1:", json::Sha256Hex(TableJson(classes_, tools_)))) {}

absl::StatusOr<PolicyDecision> ClassPolicy::Evaluate(const ToolRequest& request,
                                                     const RunView& view) {
  PolicyDecision decision;
  std::string_view effect = ToString(request.spec.side_effect);
  auto tool = tools_.find(request.spec.name);
  auto cls = classes_.find(request.spec.side_effect);
  if (tool != tools_.end()) {
    decision.outcome = tool->second;
    decision.reason = absl::StrCat("the operator's rule for ", request.spec.name, " says ",
                                   ToAbsl(ToString(tool->second)));
  } else if (cls != classes_.end()) {
    decision.outcome = cls->second;
    decision.reason = absl::StrCat("side effect ", ToAbsl(effect), " is ",
                                   ToAbsl(ToString(cls->second)), " by policy");
  } else {
    decision.outcome = PolicyOutcome::kDeny;
    decision.reason = absl::StrCat("side effect ", ToAbsl(effect), " has no outcome in the policy");
  }
  if (decision.outcome == PolicyOutcome::kRequireApproval) {
    decision.kind = ToString(DecisionKind::kToolCall);
    decision.capability =
        json::JsonObject().String("tool", request.spec.name).Raw("args", request.args).Build();
    decision.presentation = json::JsonObject()
                                .String("question", absl::StrCat("Allow ", request.spec.name, " (",
                                                                 ToAbsl(effect), ")?"))
                                .String("tool", request.spec.name)
                                .String("side_effect", effect)
                                .Raw("args", request.args)
                                .Build();
  }
  return decision;
}

}  // namespace agentrt::mcp
