#include "runtime/records/proxy_calls.h"

#include <utility>

#include "runtime/base/status_macros.h"
#include "runtime/store/internal/sql.h"

namespace agentrt::rows {
namespace {

using store::SqlRow;
using store::SqlValue;
using store::ToInt;

#define AGENTRT_PROXY_CALL_COLUMNS                                                     \
  "id, session, request_key, tool, side_effect, run_id, created_at, open, closed_at, " \
  "settled_at, outcome"

CallOutcome OutcomeOf(std::int64_t stored) {
  switch (stored) {
    case 1:
      return CallOutcome::kNone;
    case 2:
      return CallOutcome::kKnown;
    case 3:
      return CallOutcome::kUnknown;
    default:
      // An edited cache is read as never seen, so the run's record is read again.
      return CallOutcome::kUnseen;
  }
}

std::vector<ProxyCall> Decode(std::vector<SqlRow> rows) {
  std::vector<ProxyCall> out;
  out.reserve(rows.size());
  for (SqlRow& r : rows) {
    ProxyCall c;
    c.id = ToInt(r[0]);
    c.session = std::move(r[1]);
    c.request_key = std::move(r[2]);
    c.tool = std::move(r[3]);
    c.side_effect = std::move(r[4]);
    c.run_id = std::move(r[5]);
    c.created_at = std::move(r[6]);
    c.open = ToInt(r[7]) == 1;
    c.closed_at = std::move(r[8]);
    c.settled_at = std::move(r[9]);
    c.outcome = OutcomeOf(ToInt(r[10]));
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<std::vector<ProxyCall>> Select(store::Transaction& tx, std::string_view sql,
                                              std::initializer_list<SqlValue> params) {
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows, store::Sql::Query(tx, sql, params));
  return Decode(std::move(rows));
}

}  // namespace

absl::StatusOr<bool> ClaimProxyCall(store::Transaction& tx, const NewProxyCall& call,
                                    std::int64_t seen_open) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> open,
      store::Sql::Query(tx,
                        "SELECT id FROM proxy_calls WHERE session = ?1 AND request_key = ?2 AND "
                        "open = 1",
                        {call.session, call.request_key}));
  std::int64_t now_open = open.empty() ? 0 : ToInt(open[0][0]);
  if (now_open != seen_open) return false;
  if (now_open != 0) {
    AGENTRT_RETURN_IF_ERROR(
        store::Sql::Exec(tx, "UPDATE proxy_calls SET open = 0, closed_at = ?2 WHERE id = ?1",
                         {now_open, call.at})
            .status());
  }
  AGENTRT_RETURN_IF_ERROR(
      store::Sql::Exec(
          tx,
          "INSERT INTO proxy_calls (session, request_key, tool, side_effect, run_id, "
          "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
          {call.session, call.request_key, call.tool, call.side_effect, call.run_id, call.at})
          .status());
  return true;
}

absl::StatusOr<std::vector<ProxyCall>> ProxyCallsForKey(store::Transaction& tx,
                                                        std::string_view session,
                                                        std::string_view request_key,
                                                        std::string_view since,
                                                        std::int64_t limit) {
  return Select(tx,
                "SELECT " AGENTRT_PROXY_CALL_COLUMNS
                " FROM proxy_calls WHERE session = ?1 AND request_key = ?2 AND "
                "(open = 1 OR closed_at >= ?3) ORDER BY open DESC, id DESC LIMIT ?4",
                {session, request_key, since, limit});
}

absl::StatusOr<std::vector<ProxyCall>> UnsettledProxyCalls(store::Transaction& tx,
                                                           std::string_view session,
                                                           std::int64_t limit) {
  return Select(tx,
                "SELECT " AGENTRT_PROXY_CALL_COLUMNS
                " FROM proxy_calls WHERE session = ?1 AND settled_at = '' ORDER BY id LIMIT ?2",
                {session, limit});
}

absl::StatusOr<std::vector<ProxyCall>> ProxyCallAttempts(store::Transaction& tx,
                                                         std::string_view session,
                                                         std::string_view request_key,
                                                         std::int64_t limit) {
  return Select(tx,
                "SELECT " AGENTRT_PROXY_CALL_COLUMNS
                " FROM proxy_calls WHERE session = ?1 AND request_key = ?2 AND outcome != 1 "
                "ORDER BY id DESC LIMIT ?3",
                {session, request_key, limit});
}

absl::StatusOr<std::vector<ProxyCall>> UnknownForTool(store::Transaction& tx,
                                                      std::string_view session,
                                                      std::string_view tool,
                                                      std::string_view except_key,
                                                      std::int64_t limit) {
  return Select(tx,
                "SELECT " AGENTRT_PROXY_CALL_COLUMNS
                " FROM proxy_calls AS c WHERE session = ?1 AND tool = ?2 AND request_key != ?3 "
                "AND outcome IN (0, 3) AND id = (SELECT MAX(id) FROM proxy_calls AS d WHERE "
                "d.session = c.session AND d.request_key = c.request_key AND d.outcome != 1) "
                "ORDER BY id LIMIT ?4",
                {session, tool, except_key, limit});
}

absl::StatusOr<std::vector<ProxyCall>> RecentProxyCalls(store::Transaction& tx,
                                                        std::string_view session,
                                                        std::string_view since,
                                                        std::int64_t limit) {
  return Select(tx,
                "SELECT " AGENTRT_PROXY_CALL_COLUMNS
                " FROM proxy_calls WHERE session = ?1 AND (settled_at = '' OR settled_at >= ?2) "
                "ORDER BY id DESC LIMIT ?3",
                {session, since, limit});
}

absl::Status SettleProxyCall(store::Transaction& tx, std::int64_t id, std::string_view at,
                             CallOutcome outcome) {
  return store::Sql::Exec(tx, "UPDATE proxy_calls SET settled_at = ?2, outcome = ?3 WHERE id = ?1",
                          {id, at, static_cast<std::int64_t>(outcome)})
      .status();
}

absl::StatusOr<bool> SettleUnbegunProxyCall(store::Transaction& tx, std::int64_t id,
                                            std::string_view at) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::int64_t changed,
      store::Sql::Exec(tx,
                       "UPDATE proxy_calls SET settled_at = ?2, outcome = 1 WHERE id = ?1 AND "
                       "NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = proxy_calls.run_id)",
                       {id, at}));
  return changed == 1;
}

absl::Status UnsettleProxyCall(store::Transaction& tx, std::int64_t id) {
  return store::Sql::Exec(tx, "UPDATE proxy_calls SET settled_at = '', outcome = 0 WHERE id = ?1",
                          {id})
      .status();
}

absl::StatusOr<std::vector<std::string>> ProxySessionRunIds(store::Transaction& tx,
                                                            std::string_view session,
                                                            std::int64_t limit) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx, "SELECT run_id FROM proxy_calls WHERE session = ?1 ORDER BY id DESC LIMIT ?2",
          {session, limit}));
  std::vector<std::string> ids;
  for (SqlRow& r : rows) ids.push_back(std::move(r[0]));
  return ids;
}

}  // namespace agentrt::rows
