#include "runtime/operator/view/pages.h"

#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/timestamp.h"

namespace agentrt::view {
namespace {

using store::SqlRow;

// The run columns a summary needs, with the long texts cut inside SQLite so a huge goal is
// never read whole. One character more than the cap is read so that the byte cap, applied
// after reading (DisplayText), marks a text that was longer.
std::string SelectRuns(std::string_view rest) {
  constexpr std::int64_t kRead = kMaxDisplayText + 1;
  return absl::StrCat("SELECT id, substr(goal, 1, ", kRead, "), status, substr(reason, 1, ", kRead,
                      "), substr(reason_detail, 1, ", kRead,
                      "), step_count, created_at, finished_at, model_calls, input_tokens, "
                      "output_tokens, cached_input_tokens, estimated_cost_micros FROM runs ",
                      ToAbsl(rest));
}

Run RunFromRow(const SqlRow& r) {
  Run run;
  run.id = r[0];
  run.goal = r[1];
  run.status = ParseRunStatus(r[2]).value_or(RunStatus::kFailed);
  run.reason = r[3];
  run.reason_detail = r[4];
  run.step_count = static_cast<int>(store::ToInt(r[5]));
  run.created_at = world::ParseTimestamp(r[6]).value_or(absl::InfinitePast());
  run.finished_at = world::ParseTimestamp(r[7]).value_or(absl::InfinitePast());
  run.model_calls = store::ToInt(r[8]);
  run.input_tokens = store::ToInt(r[9]);
  run.output_tokens = store::ToInt(r[10]);
  run.cached_input_tokens = store::ToInt(r[11]);
  run.estimated_cost_micros = store::ToInt(r[12]);
  return run;
}

std::optional<StepStatus> ParseStepStatus(std::string_view s) {
  for (StepStatus st :
       {StepStatus::kDeciding, StepStatus::kAwaitingApproval, StepStatus::kExecuting,
        StepStatus::kDone, StepStatus::kFailed, StepStatus::kInterrupted}) {
    if (ToString(st) == s) return st;
  }
  return std::nullopt;
}

// One member of a JSON column, read inside SQLite: '' when the column is not JSON (a
// rewritten row must not fail the page) or the member is absent, at most ?4 characters (the
// cap plus one, so DisplayText marks a longer text as cut).
std::string Member(std::string_view column, std::string_view path) {
  return absl::StrCat("CASE WHEN json_valid(", ToAbsl(column), ") THEN coalesce(substr(",
                      "json_extract(", ToAbsl(column), ", '", ToAbsl(path),
                      "'), 1, ?4), '') ELSE '' END");
}

}  // namespace

absl::StatusOr<RunsPageResult> RunsPage(store::Store& store, std::int64_t limit,
                                        std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  RunsPageResult page;
  std::vector<Run> runs;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> count, tx.Query("SELECT COUNT(*) FROM runs"));
    page.total = store::ToInt(count[0][0]);
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query(SelectRuns("ORDER BY created_at DESC, rowid DESC LIMIT ?1 OFFSET ?2"),
                 {limit, offset}));
    for (const SqlRow& r : rows) runs.push_back(RunFromRow(r));
    return absl::OkStatus();
  }));
  std::vector<std::string> waiting;
  for (const Run& run : runs) {
    if (run.status == RunStatus::kWaitingForApproval) waiting.push_back(run.id);
  }
  AGENTRT_ASSIGN_OR_RETURN(auto pending, PendingApprovalIds(store, waiting, 2));
  for (const Run& run : runs) {
    auto it = pending.find(run.id);
    page.runs.push_back(Summarize(
        run, it == pending.end() ? std::span<const std::string>() : std::span(it->second)));
  }
  return page;
}

absl::StatusOr<StepsPageResult> StepsPage(store::Store& store, std::string_view run_id,
                                          std::int64_t limit, std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  StepsPageResult page;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> count,
                             tx.Query("SELECT COUNT(*) FROM steps WHERE run_id = ?1", {run_id}));
    page.total = store::ToInt(count[0][0]);
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query(absl::StrCat("SELECT idx, id, status, ", Member("decision_json", "$.tool"), ", ",
                              Member("decision_json", "$.kind"), ", ",
                              Member("policy_json", "$.outcome"), ", ",
                              Member("observation_json", "$.kind"), ", ",
                              Member("observation_json", "$.summary"),
                              " FROM steps WHERE run_id = ?1 ORDER BY idx LIMIT ?2 OFFSET ?3"),
                 {run_id, limit, offset, kMaxStepText + 1}));
    for (const SqlRow& r : rows) {
      StepSummary s;
      s.index = store::ToInt(r[0]);
      s.id = DisplayText(r[1], kMaxDisplayText);
      s.status = ParseStepStatus(r[2]).value_or(StepStatus::kFailed);
      s.tool = DisplayText(r[3], kMaxStepText);
      s.decision = DisplayText(r[4], kMaxStepText);
      s.policy = DisplayText(r[5], kMaxStepText);
      s.observation = DisplayText(r[6], kMaxStepText);
      s.summary = DisplayText(r[7], kMaxStepText);
      page.steps.push_back(std::move(s));
    }
    return absl::OkStatus();
  }));
  return page;
}

absl::StatusOr<RunDetailPage> DetailPage(store::Store& store, std::string_view run_id,
                                         std::int64_t limit, std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  RunDetailPage detail;
  std::optional<Run> run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                             tx.Query(SelectRuns("WHERE id = ?1"), {run_id}));
    if (!rows.empty()) run = RunFromRow(rows[0]);
    return absl::OkStatus();
  }));
  if (!run.has_value()) {
    return absl::NotFoundError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " not found"));
  }
  AGENTRT_ASSIGN_OR_RETURN(StepsPageResult steps, StepsPage(store, run_id, limit, offset));
  detail.steps = std::move(steps.steps);
  detail.steps_total = steps.total;
  AGENTRT_ASSIGN_OR_RETURN(ApprovalPage pending,
                           ListApprovalsPage(store, run_id, /*pending_only=*/true, limit, offset));
  detail.pending = std::move(pending.approvals);
  detail.pending_total = pending.total;
  AGENTRT_ASSIGN_OR_RETURN(ApprovalPage all,
                           ListApprovalsPage(store, run_id,
                                             /*pending_only=*/false, limit, offset));
  detail.approvals = std::move(all.approvals);
  detail.approvals_total = all.total;
  std::vector<std::string> pending_ids;
  if (run->status == RunStatus::kWaitingForApproval && detail.pending_total == 1) {
    if (detail.pending.size() == 1) {
      detail.waiting = detail.pending[0];
    } else {
      AGENTRT_ASSIGN_OR_RETURN(ApprovalPage first,
                               ListApprovalsPage(store, run_id, /*pending_only=*/true, 1, 0));
      if (!first.approvals.empty()) detail.waiting = first.approvals[0];
    }
    if (detail.waiting.has_value()) pending_ids.push_back(detail.waiting->id);
  }
  detail.run = Summarize(*run, pending_ids);
  return detail;
}

}  // namespace agentrt::view
