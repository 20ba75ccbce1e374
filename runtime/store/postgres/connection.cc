#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/store/internal/postgres.h"

namespace agentrt::store::internal {
namespace {

// SQLSTATE classes and codes the store tells apart.
bool IsConnectionLoss(std::string_view state) {
  // 08: connection exceptions; 57P01..57P03: the server shutting down or not yet up.
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

// libpq's error of `result` (or of the connection, when there is no result) as a Status that
// says what was being done, mapped as the SQLite connection maps its codes; `kind`, when given,
// says which kind of error it was.
absl::Status FromServer(pg_conn* conn, const PGresult* result, std::string_view what,
                        ServerErrorKind* kind) {
  const char* state_field =
      result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string_view state = state_field != nullptr ? state_field : "";
  std::string reason =
      result != nullptr ? PQresultErrorMessage(result) : std::string(PQerrorMessage(conn));
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
  std::string message = absl::StrCat("postgres: ", ToAbsl(what), ": ", reason,
                                     state.empty() ? "" : absl::StrCat(" (", ToAbsl(state), ")"));
  const bool gave_way = state == "40001" || state == "40P01";
  // A lost connection is libpq's own error, with no SQLSTATE: the connection is marked bad, or
  // (a failed send) not yet.
  const bool lost = state.empty() ? PQstatus(conn) != CONNECTION_OK ||
                                        absl::StrContains(reason, "server closed the connection") ||
                                        absl::StrContains(reason, "could not send data") ||
                                        absl::StrContains(reason, "no connection to the server")
                                  : IsConnectionLoss(state);
  if (kind != nullptr) *kind = {.gave_way = gave_way, .lost = lost};
  if (gave_way) return absl::AbortedError(message);
  if (lost) return absl::UnavailableError(message);
  if (state.starts_with("23")) return absl::AlreadyExistsError(message);  // a constraint
  if (state == "42P06" || state == "42P07") return absl::AlreadyExistsError(message);  // a name
  if (state == "25006" || state == "42501") return absl::PermissionDeniedError(message);
  if (state.starts_with("22")) return absl::InvalidArgumentError(message);  // data exceptions
  if (state == "55P03" || state == "57014") return absl::UnavailableError(message);  // lock, cancel
  return absl::InternalError(message);
}

// The first 120 characters of a statement, to name it in an error.
std::string_view Short(std::string_view sql) { return sql.substr(0, 120); }

std::string ServerByteLength(std::string_view column) {
  return absl::StrCat("octet_length(", ToAbsl(column), ")");
}

std::string ServerSlice(std::string_view column, std::string_view from, std::string_view count) {
  return absl::StrCat("substr(", ToAbsl(column), ", ", ToAbsl(from), ", ", ToAbsl(count), ")");
}

constexpr std::string_view kNextSeq =
    "SELECT GREATEST(COALESCE((SELECT seq FROM event_log_high_water WHERE \"only\" = 1), 0), "
    "COALESCE((SELECT MAX(seq) FROM events), 0)), "
    "COALESCE((SELECT hash FROM events ORDER BY seq DESC LIMIT 1), '')";

constexpr Dialect kServer{
    .on_server = true,
    .byte_offsets = false,
    .byte_length = &ServerByteLength,
    .slice = &ServerSlice,
    .next_seq = kNextSeq,
    // Every server schema has the high-water row (it starts at migration 8).
    .next_seq_autoincrement = kNextSeq,
    .table_exists =
        "SELECT 1 FROM pg_catalog.pg_tables "
        "WHERE schemaname = current_schema() AND tablename = ?1",
    // Triggers, views and rules could run SQL on the store's writes or disguise what a read
    // returns: none is ever created by agentrt.
    .trigger_or_view =
        "SELECT 'trigger', t.tgname::text FROM pg_catalog.pg_trigger t "
        "JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid "
        "WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace "
        "UNION ALL SELECT 'view', viewname::text FROM pg_catalog.pg_views "
        "WHERE schemaname = current_schema() "
        "UNION ALL SELECT 'rule', rulename::text FROM pg_catalog.pg_rules "
        "WHERE schemaname = current_schema() LIMIT 1",
    .object_count =
        "SELECT COUNT(*) FROM pg_catalog.pg_class "
        "WHERE relnamespace = current_schema()::regnamespace",
    .create_migrations_table =
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version BIGINT PRIMARY KEY, applied_at TEXT COLLATE \"C\" NOT NULL)",
};

// Notices (a table that already exists, say) are the server's chatter, not the store's output.
void IgnoreNotice(void*, const char*) {}

// Owns a PGresult.
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

}  // namespace

std::string ServerSql(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: the same text
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      c = '$';
    }
    out += c;
  }
  return out;
}

absl::StatusOr<std::unique_ptr<PostgresConnection>> PostgresConnection::Open(const std::string& url,
                                                                             bool read_only,
                                                                             bool full) {
  pg_conn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return absl::ResourceExhaustedError("postgres: out of memory connecting");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string reason = PQerrorMessage(conn);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat("postgres: connect: ", reason));
  }
  std::unique_ptr<PostgresConnection> connection(new PostgresConnection(conn, read_only, full));
  AGENTRT_RETURN_IF_ERROR(connection->SetUpSession());
  return connection;
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

absl::Status PostgresConnection::SetUpSession() {
  PQsetNoticeProcessor(conn_, &IgnoreNotice, nullptr);
  prepared_.clear();
  // Text as the engine writes it (UTF-8), and compared byte by byte wherever the schema says
  // COLLATE "C"; the session's durability; read-only when opened so.
  AGENTRT_RETURN_IF_ERROR(ExecScript(
      absl::StrCat("SET client_encoding = 'UTF8'; SET synchronous_commit = ", full_ ? "on" : "off",
                   "; SET default_transaction_read_only = ", read_only_ ? "on" : "off")));
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<Row> key,
      Query("SELECT ('x' || substr(md5('agentrt:' || current_schema()), 1, 16))::bit(64)::bigint",
            {}));
  std::int64_t lock_key = 0;
  if (key.empty() || !absl::SimpleAtoi(key[0][0], &lock_key)) {
    return absl::FailedPreconditionError(
        "postgres: the connection has no schema to use (search_path names none that exists)");
  }
  begin_write_ = absl::StrCat("BEGIN; SELECT pg_advisory_xact_lock(", lock_key, ")");
  return absl::OkStatus();
}

absl::Status PostgresConnection::Reconnect() {
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) return FromServer(conn_, nullptr, "reconnect", nullptr);
  return SetUpSession();
}

const Dialect& PostgresConnection::dialect() const { return kServer; }

absl::Status PostgresConnection::ExecScript(std::string_view sql) {
  Result result(PQexec(conn_, std::string(sql).c_str()));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return absl::OkStatus();
  return FromServer(conn_, result.get(), Short(sql), &last_error_);
}

absl::StatusOr<std::int64_t> PostgresConnection::Execute(std::string_view sql,
                                                         absl::Span<const Param> params,
                                                         std::vector<Row>* rows) {
  auto found = prepared_.find(ToAbsl(sql));
  if (found == prepared_.end()) {
    std::string name = absl::StrCat("agentrt_", next_name_++);
    Result prepared(PQprepare(conn_, name.c_str(), ServerSql(sql).c_str(), 0, nullptr));
    if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      return FromServer(conn_, prepared.get(), absl::StrCat("prepare ", ToAbsl(Short(sql))),
                        &last_error_);
    }
    found = prepared_.emplace(std::string(sql), std::move(name)).first;
  }
  // Text values, NUL-terminated for libpq: PostgreSQL's text cannot hold a NUL byte, so one is
  // refused rather than cut short.
  std::vector<std::string> texts(params.size());
  std::vector<const char*> values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
      texts[i] = absl::StrCat(*n);
    } else {
      std::string_view s = std::get<std::string_view>(params[i]);
      if (s.find('\0') != std::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("postgres: ", ToAbsl(Short(sql)), ": value ", i + 1,
                         " holds a NUL byte, which PostgreSQL's text cannot store"));
      }
      texts[i] = std::string(s);
    }
    values[i] = texts[i].c_str();
  }
  Result result(PQexecPrepared(conn_, found->second.c_str(), static_cast<int>(params.size()),
                               values.data(), nullptr, nullptr, /*resultFormat=*/0));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    absl::Status error = FromServer(conn_, result.get(), Short(sql), &last_error_);
    // A statement the server no longer knows (a session reset under us) is prepared again
    // next time.
    if (last_error_.lost) prepared_.clear();
    return error;
  }
  if (rows != nullptr) {
    const int count = PQntuples(result.get());
    const int columns = PQnfields(result.get());
    rows->reserve(count);
    for (int r = 0; r < count; ++r) {
      Row& row = rows->emplace_back();
      row.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        row.emplace_back(PQgetvalue(result.get(), r, c),
                         static_cast<std::size_t>(PQgetlength(result.get(), r, c)));
      }
    }
  }
  std::int64_t changed = 0;
  absl::SimpleAtoi(PQcmdTuples(result.get()), &changed);
  return changed;
}

absl::StatusOr<std::int64_t> PostgresConnection::Run(std::string_view sql,
                                                     absl::Span<const Param> params,
                                                     bool* may_change_events) {
  // The head is read at every write here (DataVersion), so nothing needs telling.
  if (may_change_events != nullptr) *may_change_events = false;
  return Execute(sql, params, nullptr);
}

absl::StatusOr<std::vector<Row>> PostgresConnection::Query(std::string_view sql,
                                                           absl::Span<const Param> params,
                                                           bool* may_change_events) {
  if (may_change_events != nullptr) *may_change_events = false;
  std::vector<Row> rows;
  AGENTRT_RETURN_IF_ERROR(Execute(sql, params, &rows).status());
  return rows;
}

absl::Status PostgresConnection::Begin(std::string begin) {
  if (PQstatus(conn_) != CONNECTION_OK) AGENTRT_RETURN_IF_ERROR(Reconnect());
  absl::Status begun = ExecScript(begin);
  // A connection the server dropped since the last transaction (a restart, an idle connection
  // ended) is found here, before anything of this transaction was sent: connect again, once.
  if (!begun.ok() && last_error_.lost) {
    AGENTRT_RETURN_IF_ERROR(Reconnect());
    begun = ExecScript(begin);
  }
  return begun;
}

absl::Status PostgresConnection::BeginWrite() {
  last_error_ = {};
  // Every writer of this schema takes the same lock first, until its transaction ends: one
  // writer at a time, as SQLite's BEGIN IMMEDIATE makes it. Sent with the BEGIN, in one round
  // trip (the key is this connection's own number, not input).
  absl::Status locked = Begin(begin_write_);
  if (!locked.ok()) Rollback();
  return locked;
}

absl::Status PostgresConnection::Commit(bool durable) {
  if (durable && !full_) AGENTRT_RETURN_IF_ERROR(ExecScript("SET LOCAL synchronous_commit = on"));
  return ExecScript("COMMIT");
}

void PostgresConnection::Rollback() {
  if (PQstatus(conn_) == CONNECTION_OK) ExecScript("ROLLBACK").IgnoreError();
}

absl::Status PostgresConnection::BeginRead() {
  return Begin("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
}

void PostgresConnection::EndRead() { Rollback(); }

bool PostgresConnection::Retryable(const absl::Status& status) const {
  return last_error_.gave_way && absl::IsAborted(status);
}

}  // namespace agentrt::store::internal
