#include "runtime/operator/view/pages.h"

#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"

namespace agentrt::view {
namespace {

// One byte more than the cap is read, so that the cap applied after reading (DisplayText)
// marks a text that was longer.
constexpr std::int64_t kReadRunText = kMaxDisplayText + 1;

}  // namespace

absl::StatusOr<RunsPageResult> RunsPage(store::Store& store, std::int64_t limit,
                                        std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  RunsPageResult page;
  rows::RunsPage read;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(read, rows::ReadCappedRunsPage(tx, limit, offset, kReadRunText));
    return absl::OkStatus();
  }));
  page.total = read.total;
  std::vector<std::string> waiting;
  for (const Run& run : read.runs) {
    if (run.status == RunStatus::kWaitingForApproval) waiting.push_back(run.id);
  }
  AGENTRT_ASSIGN_OR_RETURN(auto pending, PendingApprovalIds(store, waiting, 2));
  for (const Run& run : read.runs) {
    auto it = pending.find(run.id);
    page.runs.push_back(Summarize(
        run, it == pending.end() ? std::span<const std::string>() : std::span(it->second)));
  }
  return page;
}

absl::StatusOr<StepsPageResult> StepsPage(store::Store& store, std::string_view run_id,
                                          std::int64_t limit, std::int64_t offset) {
  AGENTRT_ASSIGN_OR_RETURN(StepPage read, ReadStepsPage(store, run_id, limit, offset));
  StepsPageResult page;
  page.total = read.total;
  for (const Step& step : read.steps) page.steps.push_back(SummarizeStep(step));
  return page;
}

absl::StatusOr<RunDetailPage> DetailPage(store::Store& store, std::string_view run_id,
                                         std::int64_t limit, std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  RunDetailPage detail;
  std::optional<Run> run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(run, rows::ReadCappedRun(tx, run_id, kReadRunText));
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
