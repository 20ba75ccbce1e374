// runtime/operator/view/pages.h
//
// Page reads for operator surfaces (docs/operators.md): a list of runs, a run's steps, and
// a run with its steps and approvals, each reading only the rows of the page it returns, with
// totals from COUNT — so a database of millions of rows, or one whose other rows would not
// decode, shows its first page at the cost of that page. Text columns the page shows are capped
// inside SQLite before they are read (goal and reason detail at kMaxDisplayText); a step page
// is the engine's one step-page reader (ReadStepsPage) summarized, a step's tool and summary
// shown at kMaxStepText. Reads only.
//
// Errors: InvalidArgument for limit < 1 or offset < 0; NotFound naming a run that does not
// exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/operator/view/summary.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt::view {

struct RunsPageResult {
  std::vector<RunSummary> runs;  // newest first
  std::int64_t total = 0;
};

// RunsPage reads at most `limit` runs from `offset`, newest first, with each WAITING run's
// pending approval id when it has exactly one (one query asking at most two ids a run).
absl::StatusOr<RunsPageResult> RunsPage(store::Store& store, std::int64_t limit,
                                        std::int64_t offset);

struct StepsPageResult {
  std::vector<StepSummary> steps;  // by index
  std::int64_t total = 0;
};

// StepsPage reads the summaries of at most `limit` of a run's steps from `offset`.
absl::StatusOr<StepsPageResult> StepsPage(store::Store& store, std::string_view run_id,
                                          std::int64_t limit, std::int64_t offset);

struct RunDetailPage {
  RunSummary run;
  std::vector<StepSummary> steps;
  std::int64_t steps_total = 0;
  std::vector<Approval> pending;  // the run's pending approvals on this page (unbounded)
  std::int64_t pending_total = 0;
  std::vector<Approval> approvals;  // all the run's approvals on this page (unbounded)
  std::int64_t approvals_total = 0;
  // The run's pending approval when it has exactly one and is waiting, whatever the offset.
  std::optional<Approval> waiting;
};

// DetailPage reads a run, and its steps, pending approvals and approvals at `limit` and
// `offset` (the three pages share them).
absl::StatusOr<RunDetailPage> DetailPage(store::Store& store, std::string_view run_id,
                                         std::int64_t limit, std::int64_t offset);

}  // namespace agentrt::view
