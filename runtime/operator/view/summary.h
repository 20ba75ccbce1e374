// runtime/operator/view/summary.h
//
// The read models operator surfaces list (docs/operators.md): one line's worth of a run
// (RunSummary) and of a step (StepSummary), and their JSON forms. A summary is for showing: the
// goal and the reason detail are capped at kMaxDisplayText bytes (marked "…" where cut), and
// text read from the database is valid UTF-8 (an invalid sequence becomes U+FFFD) so the JSON
// forms always parse. Sanitizing for a terminal is the printer's job, not the model's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt::view {

// The cap on a run's goal and reason detail as shown (bytes).
inline constexpr std::int64_t kMaxDisplayText = 4000;

struct RunSummary {
  std::string id;
  std::string goal;
  RunStatus status = RunStatus::kRunning;
  std::string unknown_status;  // Run::unknown_status, fit to show (DisplayText)
  std::string reason;
  std::string reason_detail;
  std::int64_t steps = 0;
  absl::Time created_at = absl::InfinitePast();
  absl::Time finished_at = absl::InfinitePast();
  // Set only for a WAITING_FOR_APPROVAL run with exactly one pending approval: the approval an
  // operator would decide without naming one.
  std::string pending_approval_id;
  std::int64_t model_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t estimated_cost_micros = 0;
};

// JSON: id, goal, status (the stored text when it is unknown), reason?, reason_detail?, steps,
// created_at, finished_at?, pending_approval_id?, model_calls?, usage? {input_tokens,
// output_tokens, cached_input_tokens?} (omitted when all zero), estimated_cost_micros?. Times
// as world::FormatTimestamp writes them.
std::string ToJson(const RunSummary& summary);

struct StepSummary {
  std::int64_t index = 0;
  std::string id;
  std::string tool;      // the decision's tool
  std::string decision;  // the decision's kind
  StepStatus status = StepStatus::kDeciding;
  std::string unknown_status;  // Step::unknown_status, fit to show (DisplayText)
  std::string policy;          // the policy's outcome
  std::string observation;     // the observation's kind
  std::string summary;         // the observation's summary
};

// JSON: index, id, tool?, decision?, status (the stored text when it is unknown), policy?,
// observation?, summary?.
std::string ToJson(const StepSummary& step);

// The cap on a step's tool name and observation summary as shown (bytes).
inline constexpr std::int64_t kMaxStepText = 1000;

// SummarizeStep makes the summary of a step as read (whole or from a page): the decision's
// kind and tool, the policy's outcome as written, the observation's kind and summary, the tool
// and summary capped at kMaxStepText. Pure.
StepSummary SummarizeStep(const Step& step);

// Summarize makes the summary of `run` (read whole by ReadRun, or capped) given the ids of its
// pending approvals (two are enough). Pure.
RunSummary Summarize(const Run& run, std::span<const std::string> pending_ids);

// Summary is Summarize with the run's pending approvals read from `store` (at most two rows).
absl::StatusOr<RunSummary> Summary(store::Store& store, const Run& run);

// DisplayText makes text from the database fit to show: valid UTF-8 (invalid sequences become
// U+FFFD) and at most `max_bytes` bytes (json::Truncate marks the cut).
std::string DisplayText(std::string_view text, std::int64_t max_bytes);

}  // namespace agentrt::view
