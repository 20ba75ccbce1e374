#include "runtime/records/copy.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/store/internal/sql.h"

namespace agentrt::records {
namespace {

struct Table {
  std::string_view name;
  std::string_view columns;  // every column, in the order both engines' schemas declare them
  std::string_view key;      // an identity column a server numbers, or ""
};

// In the order the foreign keys need: runs before what names them.
constexpr std::array<Table, 7> kTables = {{
    {"runs",
     "run_key, id, goal, status, reason, reason_detail, limits_json, step_count, created_at, "
     "started_at, finished_at, result_json, model_calls, input_tokens, output_tokens, "
     "cached_input_tokens, estimated_cost_micros, active_ms, lease_owner, lease_expires_at",
     "run_key"},
    {"steps",
     "step_key, id, run_key, idx, status, decision_json, policy_json, observation_json, "
     "observation_hash, started_at, finished_at, spec_hash, policy_id",
     "step_key"},
    {"approvals",
     "approval_key, id, run_key, step_id, kind, capability_json, presentation_json, "
     "request_json, hash, status, created_at, decided_at, decided_by, note, expires_at",
     "approval_key"},
    {"events", "seq, run_id, step_id, at, type, payload_json, hash", ""},
    {"model_calls",
     "id, run_id, step_id, attempt, status, model, input_tokens, output_tokens, "
     "cached_input_tokens, cost_micros, latency_ms, error, dispatched_at, completed_at",
     ""},
    {"tool_specs", "hash, spec_json", ""},
    {"proxy_calls",
     "id, session, request_key, tool, side_effect, run_id, created_at, open, closed_at, "
     "settled_at, outcome",
     "id"},
}};

std::size_t ColumnCount(std::string_view columns) {
  return static_cast<std::size_t>(std::count(columns.begin(), columns.end(), ',')) + 1;
}

}  // namespace

absl::Status CopyRecords(store::Store& from, store::Store& to) {
  std::vector<std::vector<store::SqlRow>> rows(kTables.size());
  std::string high_water = "0";
  AGENTRT_RETURN_IF_ERROR(from.Read([&](store::Transaction& tx) -> absl::Status {
    for (std::size_t t = 0; t < kTables.size(); ++t) {
      AGENTRT_ASSIGN_OR_RETURN(
          rows[t],
          store::Sql::Query(tx, absl::StrCat("SELECT ", ToAbsl(kTables[t].columns), " FROM ",
                                             ToAbsl(kTables[t].name), " ORDER BY 1")));
    }
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<store::SqlRow> mark,
        store::Sql::Query(tx, "SELECT COALESCE(MAX(seq), 0) FROM event_log_high_water"));
    high_water = mark[0][0];
    return absl::OkStatus();
  }));
  return to.Write([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<store::SqlRow> runs,
                             store::Sql::Query(tx, "SELECT COUNT(*) FROM runs"));
    if (runs[0][0] != "0") {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", to.path(), " holds runs already; a copy goes to an empty one"));
    }
    const bool server = store::Sql::OnServer(tx);
    for (std::size_t t = 0; t < kTables.size(); ++t) {
      const Table& table = kTables[t];
      std::vector<std::string> slots;
      for (std::size_t c = 1; c <= ColumnCount(table.columns); ++c) {
        slots.push_back(absl::StrCat("?", c));
      }
      const std::string insert =
          absl::StrCat("INSERT INTO ", ToAbsl(table.name), " (", ToAbsl(table.columns),
                       ") VALUES (", absl::StrJoin(slots, ", "), ")");
      for (const store::SqlRow& row : rows[t]) {
        std::vector<store::SqlValue> values(row.begin(), row.end());
        AGENTRT_RETURN_IF_ERROR(store::Sql::Exec(tx, insert, values).status());
      }
      // A server numbers new rows from its own sequence: past the keys copied.
      if (server && !table.key.empty() && !rows[t].empty()) {
        AGENTRT_RETURN_IF_ERROR(
            store::Sql::Query(
                tx, absl::StrCat("SELECT setval(pg_get_serial_sequence('", ToAbsl(table.name),
                                 "', '", ToAbsl(table.key), "'), (SELECT MAX(", ToAbsl(table.key),
                                 ") FROM ", ToAbsl(table.name), "))"))
                .status());
      }
    }
    return store::Sql::Exec(tx,
                            "UPDATE event_log_high_water SET seq = CAST(?1 AS BIGINT) "
                            "WHERE \"only\" = 1",
                            {std::string_view(high_water)})
        .status();
  });
}

}  // namespace agentrt::records
