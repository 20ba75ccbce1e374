#include "runtime/engine/run_end.h"

#include "runtime/base/status_macros.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/records/rows.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

absl::Status FinishRunTx(store::Transaction& tx, std::string_view run_id, const RunEnd& end,
                         absl::Time at) {
  std::string finished = world::FormatTimestamp(at);
  AGENTRT_RETURN_IF_ERROR(rows::FinishRun(tx, run_id,
                                          {.status = end.status,
                                           .reason = end.reason,
                                           .detail = end.detail,
                                           .finished_at = finished,
                                           .result = end.result}));
  if (end.limit) {
    AGENTRT_RETURN_IF_ERROR(
        tx.AppendEvent(
              run_id, "", at, event::kLimitExceeded,
              json::JsonObject().String("reason", end.reason).String("detail", end.detail).Build())
            .status());
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunState> state, rows::ReadRunState(tx, run_id));
  json::JsonObject payload;
  payload.String("status", ToString(end.status))
      .String("reason", end.reason)
      .String("detail", end.detail)
      .Int("steps", state.has_value() ? state->step_count : 0);
  if (end.with_by) payload.String("by", end.by);
  return tx.AppendEvent(run_id, "", at, event::kRunFinished, payload.Build()).status();
}

absl::Status FailStepsInFlightTx(store::Transaction& tx, std::string_view run_id,
                                 const Observation& observation, absl::Time at) {
  std::string finished = world::FormatTimestamp(at);
  return rows::FailStepsInFlight(tx, run_id, ObservationJson(observation), observation.content_hash,
                                 finished);
}

}  // namespace agentrt
