// runtime/engine/run_end.h
//
// The one write that ends a run, used by the loop, the operator's decisions and cancel, and
// expiry: status, reason, detail, result and end time set and the lease released, then
// `limit.exceeded` (when a limit ended it) and `run.finished`, all inside the caller's
// transaction so the run's end commits with whatever ended it.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt {

struct RunEnd {
  RunStatus status = RunStatus::kFailed;
  std::string_view reason;
  std::string_view detail;
  std::string_view result;  // canonical JSON; "" for none
  bool limit = false;       // write limit.exceeded before run.finished
  bool with_by = false;     // an operator's end names who: run.finished carries `by`
  std::string_view by;
};

absl::Status FinishRunTx(store::Transaction& tx, std::string_view run_id, const RunEnd& end,
                         absl::Time at);

// FailStepsInFlightTx fails every step of the run still deciding, awaiting approval or
// executing, with `observation` and end time `at` (a cancel or an internal failure ends them
// all; no step.failed events).
absl::Status FailStepsInFlightTx(store::Transaction& tx, std::string_view run_id,
                                 const Observation& observation, absl::Time at);

}  // namespace agentrt
