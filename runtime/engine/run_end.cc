#include "runtime/engine/run_end.h"

#include "runtime/base/status_macros.h"
#include "runtime/engine/records.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

absl::Status FinishRunTx(store::Transaction& tx, std::string_view run_id, const RunEnd& end,
                         absl::Time at) {
  std::string finished = world::FormatTimestamp(at);
  AGENTRT_RETURN_IF_ERROR(
      tx.Exec("UPDATE runs SET status = ?1, reason = ?2, reason_detail = ?3, finished_at = ?4, "
              "result_json = ?5, lease_owner = '', lease_expires_at = '' WHERE id = ?6",
              {ToString(end.status), end.reason, end.detail, std::string_view(finished), end.result,
               run_id})
          .status());
  if (end.limit) {
    AGENTRT_RETURN_IF_ERROR(
        tx.AppendEvent(
              run_id, "", at, event::kLimitExceeded,
              json::JsonObject().String("reason", end.reason).String("detail", end.detail).Build())
            .status());
  }
  AGENTRT_ASSIGN_OR_RETURN(std::vector<store::SqlRow> count,
                           tx.Query("SELECT step_count FROM runs WHERE id = ?1", {run_id}));
  json::JsonObject payload;
  payload.String("status", ToString(end.status))
      .String("reason", end.reason)
      .String("detail", end.detail)
      .Int("steps", count.empty() ? 0 : store::ToInt(count[0][0]));
  if (end.with_by) payload.String("by", end.by);
  return tx.AppendEvent(run_id, "", at, event::kRunFinished, payload.Build()).status();
}

absl::Status FailStepsInFlightTx(store::Transaction& tx, std::string_view run_id,
                                 const Observation& observation, absl::Time at) {
  std::string finished = world::FormatTimestamp(at);
  std::string json = ObservationJson(observation);
  return tx
      .Exec(
          "UPDATE steps SET status = 'failed', observation_json = ?1, observation_hash = ?2, "
          "finished_at = ?3 WHERE run_id = ?4 AND status IN "
          "('deciding', 'awaiting_approval', 'executing')",
          {std::string_view(json), std::string_view(observation.content_hash),
           std::string_view(finished), run_id})
      .status();
}

}  // namespace agentrt
