#include "runtime/records/event_payloads.h"

#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/records/rows.h"

namespace agentrt::records {

using json::MemberInt;
using json::MemberText;

std::optional<json::Document> PayloadObject(std::string_view payload_json) {
  absl::StatusOr<json::Document> doc = json::Parse(payload_json);
  if (!doc.ok() || !doc->root().is_object()) return std::nullopt;
  return *std::move(doc);
}

RunCreated RunCreated::From(json::Value p) {
  RunCreated out;
  out.goal = MemberText(p, "goal");
  out.limits_json = MemberText(p, "limits");
  if (std::optional<json::Value> limits = p.Find("limits"); limits && limits->is_object()) {
    out.limits = rows::LimitsFromJson(*limits);
  }
  out.lists_tools = p.Find("tools").has_value();
  return out;
}

RunFinished RunFinished::From(json::Value p) {
  return RunFinished{MemberText(p, "status"), MemberText(p, "reason"), MemberText(p, "detail"),
                     MemberInt(p, "steps", -1), MemberText(p, "by")};
}

StepStarted StepStarted::From(json::Value p) { return StepStarted{MemberInt(p, "index", -1)}; }

PolicyView PolicyView::From(json::Value v) {
  PolicyView out;
  out.status = ParseRunStatus(MemberText(v, "status"));
  out.steps = MemberInt(v, "steps", -1);
  out.approvals = MemberInt(v, "approvals", -1);
  out.step_count = MemberInt(v, "step_count");
  out.model_calls = MemberInt(v, "model_calls");
  out.input_tokens = MemberInt(v, "input_tokens");
  out.output_tokens = MemberInt(v, "output_tokens");
  out.cached_input_tokens = MemberInt(v, "cached_input_tokens");
  out.estimated_cost_micros = MemberInt(v, "estimated_cost_micros");
  out.active_ms = MemberInt(v, "active_ms");
  return out;
}

StepPolicy StepPolicy::From(json::Value p) {
  StepPolicy out;
  out.outcome = MemberText(p, "outcome");
  out.reason = MemberText(p, "reason");
  out.kind = MemberText(p, "kind");
  if (std::optional<json::Value> v = p.Find("capability"))
    out.capability_json = json::WriteCanonical(*v);
  if (std::optional<json::Value> v = p.Find("presentation")) {
    out.presentation_json = json::WriteCanonical(*v);
  }
  out.policy_id = MemberText(p, "policy_id");
  out.spec_hash = MemberText(p, "spec_hash");
  if (std::optional<json::Value> view = p.Find("view")) {
    out.has_view = true;
    if (view->is_object()) out.view = PolicyView::From(*view);
  }
  return out;
}

StepToolStarted StepToolStarted::From(json::Value p) {
  StepToolStarted out;
  out.tool = MemberText(p, "tool");
  if (std::optional<json::Value> args = p.Find("args")) out.args = json::WriteCanonical(*args);
  out.approval_id = MemberText(p, "approval_id");
  return out;
}

StepFailed StepFailed::From(json::Value p) {
  return StepFailed{MemberText(p, "detail"), MemberText(p, "observation"),
                    MemberText(p, "content_hash")};
}

StepInterrupted StepInterrupted::From(json::Value p) {
  StepInterrupted out;
  std::optional<json::Value> v = p.Find("previous_status");
  if (v && v->is_object()) v = v->Find("previous_status");
  if (v && v->is_string()) out.previous_status = ParseStepStatus(v->string_value());
  return out;
}

ApprovalRequested ApprovalRequested::From(json::Value p) {
  return ApprovalRequested{MemberText(p, "approval_id"),  MemberText(p, "kind"),
                           MemberText(p, "reason"),       MemberText(p, "capability"),
                           MemberText(p, "presentation"), MemberText(p, "hash")};
}

ApprovalDecided ApprovalDecided::From(json::Value p) {
  ApprovalDecided out;
  out.approval_id = MemberText(p, "approval_id");
  out.status_text = MemberText(p, "status");
  out.status = ParseApprovalStatus(out.status_text);
  out.by = MemberText(p, "by");
  out.note = MemberText(p, "note");
  return out;
}

}  // namespace agentrt::records
