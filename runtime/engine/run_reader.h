// runtime/engine/run_reader.h
//
// Reading back what the driver stored: a run and its steps, decoded into the engine's types.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt {

// ReadRun: NotFound when there is no such run.
absl::StatusOr<Run> ReadRun(store::Store& store, std::string_view run_id);
// ReadSteps: the run's steps by index.
absl::StatusOr<std::vector<Step>> ReadSteps(store::Store& store, std::string_view run_id);

// ReadStepsPage reads one page of a run's steps for showing: at most `limit` from `offset`,
// the total from COUNT, and a decision or observation longer than Store::kMaxPageText
// characters reduced to its kind and tool (or summary), with decode_error saying so. Only the
// page is read. Errors: InvalidArgument for limit < 1 or offset < 0.
struct StepPage {
  std::vector<Step> steps;
  std::int64_t total = 0;
};
absl::StatusOr<StepPage> ReadStepsPage(store::Store& store, std::string_view run_id,
                                       std::int64_t limit, std::int64_t offset);

}  // namespace agentrt
