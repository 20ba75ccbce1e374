// runtime/records/run_reader.h
//
// Reading back what the driver stored: a run, its steps (with its approvals) and its lease, decoded
// into the engine's types, each in one read transaction (the statements are rows.h's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/records/rows.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt {

// ReadRun: NotFound when there is no such run.
absl::StatusOr<Run> ReadRun(store::Store& store, std::string_view run_id);
// RefreshRun brings `run` (read whole before) up to date: rows::RefreshRun in one read
// transaction. NotFound when there is no such run.
absl::Status RefreshRun(store::Store& store, Run& run);
// ReadSteps: the run's steps by index.
absl::StatusOr<std::vector<Step>> ReadSteps(store::Store& store, std::string_view run_id);
// ReadHistory: the run's steps by index and its approvals in the order they were created, as
// one snapshot (what a resume judges from).
struct RunHistory {
  std::vector<Step> steps;
  std::vector<Approval> approvals;
};
absl::StatusOr<RunHistory> ReadHistory(store::Store& store, std::string_view run_id);
// ReadRecentSteps: the run's last `count` steps (fewer when it has fewer), in order, and the
// index of the first of them; one read transaction.
struct RecentSteps {
  std::vector<Step> steps;
  std::size_t first = 0;
};
absl::StatusOr<RecentSteps> ReadRecentSteps(store::Store& store, std::string_view run_id,
                                            std::size_t count);

// The one step-page reader (reference/core.md §12, ListStepsPage): at most `limit` of a run's
// steps from `offset`, the total from COUNT, and a decision, observation or policy longer than
// Store::kMaxPageText bytes reduced to its kind and tool (kind and summary; outcome and reason,
// each whole up to kMaxPageField bytes of JSON, else cut), with decode_error saying so. Only the
// page is read. Operator summaries (runtime/operator/view/pages.h) are made from it. Errors:
// InvalidArgument for limit < 1 or offset < 0.
inline constexpr std::int64_t kMaxPageField = 1001;
using StepPage = rows::StepsPage;
absl::StatusOr<StepPage> ReadStepsPage(store::Store& store, std::string_view run_id,
                                       std::int64_t limit, std::int64_t offset);

// A run's lease as stored (docs/decisions/0007-run-leases.md): who may write the RUNNING run,
// and until when. Both empty when nobody holds it; an expired lease is reported as it is, not
// released.
struct RunLease {
  std::string owner;
  std::string expires_at;  // stored timestamp text (runtime/world/timestamp.h); "" when unheld
};
// ReadLease: NotFound naming an unknown run.
absl::StatusOr<RunLease> ReadLease(store::Store& store, std::string_view run_id);

}  // namespace agentrt
