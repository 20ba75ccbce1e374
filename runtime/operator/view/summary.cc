#include "runtime/operator/view/summary.h"

#include <vector>

#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/operator/view/display.h"
#include "runtime/world/timestamp.h"

namespace agentrt::view {

std::string DisplayText(std::string_view text, std::int64_t max_bytes) {
  return json::Truncate(json::ToValidUtf8(text), static_cast<int>(max_bytes));
}

RunSummary Summarize(const Run& run, std::span<const std::string> pending_ids) {
  RunSummary s;
  s.id = DisplayText(run.id, kMaxDisplayText);
  s.goal = DisplayText(run.goal, kMaxDisplayText);
  s.status = run.status;
  s.unknown_status = DisplayText(run.unknown_status, kMaxDisplayText);
  s.reason = DisplayText(run.reason, kMaxDisplayText);
  s.reason_detail = DisplayText(run.reason_detail, kMaxDisplayText);
  s.steps = run.step_count;
  s.created_at = run.created_at;
  s.finished_at = run.finished_at;
  if (run.status == RunStatus::kWaitingForApproval && pending_ids.size() == 1) {
    s.pending_approval_id = pending_ids[0];
  }
  s.model_calls = run.model_calls;
  s.input_tokens = run.input_tokens;
  s.output_tokens = run.output_tokens;
  s.cached_input_tokens = run.cached_input_tokens;
  s.estimated_cost_micros = run.estimated_cost_micros;
  return s;
}

absl::StatusOr<RunSummary> Summary(store::Store& store, const Run& run) {
  std::vector<std::string> pending;
  if (run.status == RunStatus::kWaitingForApproval) {
    std::string id = run.id;
    AGENTRT_ASSIGN_OR_RETURN(auto ids, PendingApprovalIds(store, std::span(&id, 1), 2));
    pending = std::move(ids[id]);
  }
  return Summarize(run, pending);
}

std::string ToJson(const RunSummary& s) {
  json::JsonObject o;
  o.String("id", s.id)
      .String("goal", s.goal)
      .String("status", StoredStatus(s))
      .StringIfSet("reason", s.reason)
      .StringIfSet("reason_detail", s.reason_detail)
      .Int("steps", s.steps)
      .String("created_at", world::FormatTimestamp(s.created_at))
      .StringIfSet("finished_at", world::FormatTimestamp(s.finished_at))
      .StringIfSet("pending_approval_id", s.pending_approval_id);
  if (s.model_calls != 0) o.Int("model_calls", s.model_calls);
  if (s.input_tokens != 0 || s.output_tokens != 0 || s.cached_input_tokens != 0) {
    json::JsonObject usage;
    usage.Int("input_tokens", s.input_tokens).Int("output_tokens", s.output_tokens);
    if (s.cached_input_tokens != 0) usage.Int("cached_input_tokens", s.cached_input_tokens);
    o.Raw("usage", usage.Build());
  }
  if (s.estimated_cost_micros != 0) o.Int("estimated_cost_micros", s.estimated_cost_micros);
  return o.Build();
}

StepSummary SummarizeStep(const Step& step) {
  StepSummary s;
  s.index = step.index;
  s.id = DisplayText(step.id, kMaxDisplayText);
  s.status = step.status;
  s.unknown_status = DisplayText(step.unknown_status, kMaxDisplayText);
  if (step.decision.has_value()) {
    s.tool = DisplayText(step.decision->tool, kMaxStepText);
    s.decision = DisplayText(step.decision->kind, kMaxStepText);
  }
  if (step.policy.has_value()) s.policy = DisplayText(step.policy->outcome_text, kMaxStepText);
  if (step.observation.has_value()) {
    s.observation = std::string(ToString(step.observation->kind));
    s.summary = DisplayText(step.observation->summary, kMaxStepText);
  }
  return s;
}

std::string ToJson(const StepSummary& s) {
  return json::JsonObject()
      .Int("index", s.index)
      .String("id", s.id)
      .StringIfSet("tool", s.tool)
      .StringIfSet("decision", s.decision)
      .String("status", StoredStatus(s))
      .StringIfSet("policy", s.policy)
      .StringIfSet("observation", s.observation)
      .StringIfSet("summary", s.summary)
      .Build();
}

}  // namespace agentrt::view
