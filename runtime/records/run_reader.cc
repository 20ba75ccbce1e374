#include "runtime/records/run_reader.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt {
namespace {

absl::Status NoSuchRun(std::string_view run_id) {
  return absl::NotFoundError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " not found"));
}

}  // namespace

absl::StatusOr<Run> ReadRun(store::Store& store, std::string_view run_id) {
  std::optional<Run> run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(run, rows::ReadRun(tx, run_id));
    return absl::OkStatus();
  }));
  if (!run.has_value()) return NoSuchRun(run_id);
  return *std::move(run);
}

absl::Status RefreshRun(store::Store& store, Run& run) {
  bool found = false;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(found, rows::RefreshRun(tx, run));
    return absl::OkStatus();
  }));
  if (!found) return NoSuchRun(run.id);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Step>> ReadSteps(store::Store& store, std::string_view run_id) {
  std::vector<Step> steps;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(steps, rows::ReadSteps(tx, run_id));
    return absl::OkStatus();
  }));
  return steps;
}

absl::StatusOr<RunHistory> ReadHistory(store::Store& store, std::string_view run_id) {
  RunHistory history;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(history.steps, rows::ReadSteps(tx, run_id));
    AGENTRT_ASSIGN_OR_RETURN(history.approvals, rows::ReadApprovals(tx, run_id));
    return absl::OkStatus();
  }));
  return history;
}

absl::StatusOr<RecentSteps> ReadRecentSteps(store::Store& store, std::string_view run_id,
                                            std::size_t count) {
  RecentSteps recent;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::int64_t stored, rows::StoredStepCount(tx, run_id));
    std::int64_t first = std::max<std::int64_t>(0, stored - static_cast<std::int64_t>(count));
    recent.first = static_cast<std::size_t>(first);
    AGENTRT_ASSIGN_OR_RETURN(recent.steps,
                             rows::ReadStepRange(tx, run_id, first, stored, /*with_content=*/true));
    return absl::OkStatus();
  }));
  return recent;
}

absl::StatusOr<StepPage> ReadStepsPage(store::Store& store, std::string_view run_id,
                                       std::int64_t limit, std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  StepPage page;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(page, rows::ReadStepsPage(tx, run_id, limit, offset,
                                                       store::Store::kMaxPageText, kMaxPageField));
    return absl::OkStatus();
  }));
  return page;
}

absl::StatusOr<RunLease> ReadLease(store::Store& store, std::string_view run_id) {
  std::optional<rows::RunState> state;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(state, rows::ReadRunState(tx, run_id));
    return absl::OkStatus();
  }));
  if (!state.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no run ", ToAbsl(json::Sanitize(run_id)), " in database ", store.path()));
  }
  return RunLease{std::move(state->lease_owner), std::move(state->lease_expires_at)};
}

}  // namespace agentrt
