#include <sqlite3.h>

#include <cstdlib>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/store/internal/sqlite.h"

namespace agentrt::store::internal {
namespace {

absl::Status FromSqlite(sqlite3* db, int code, std::string_view what) {
  std::string message = absl::StrCat("sqlite: ", ToAbsl(what), ": ",
                                     db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code));
  int primary = code & 0xFF;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) return absl::DataLossError(message);
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) return absl::UnavailableError(message);
  if (primary == SQLITE_CONSTRAINT) return absl::AlreadyExistsError(message);
  if (primary == SQLITE_READONLY || primary == SQLITE_PERM || primary == SQLITE_CANTOPEN) {
    return absl::PermissionDeniedError(message);
  }
  return absl::InternalError(message);
}

}  // namespace

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql)
    : db_(db),
      stmt_(stmt),
      sql_(std::move(sql)),
      may_change_events_(sqlite3_stmt_readonly(stmt) == 0 &&
                         absl::StrContains(absl::AsciiStrToLower(sql_), "events")) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

absl::Status Statement::Bind(absl::Span<const Param> params) {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  for (std::size_t i = 0; i < params.size(); ++i) {
    int index = static_cast<int>(i + 1);
    int rc;
    if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
      rc = sqlite3_bind_int64(stmt_, index, *n);
    } else {
      std::string_view s = std::get<std::string_view>(params[i]);
      // An empty view may carry a null pointer, which SQLite would bind as NULL: text is text.
      // SQLITE_STATIC, not a copy: the caller's text outlives every step of this binding (Run
      // steps and resets at once; a query's parameters are held until its last row), and the
      // next Bind clears these pointers before anything could read them.
      rc = sqlite3_bind_text64(stmt_, index, s.data() != nullptr ? s.data() : "", s.size(),
                               SQLITE_STATIC, SQLITE_UTF8);
    }
    if (rc != SQLITE_OK) return FromSqlite(db_, rc, absl::StrCat("bind ", sql_));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    // Reset at once: a finished but un-reset statement can keep its read snapshot open, and a
    // later write on this connection would then fail with SQLITE_BUSY_SNAPSHOT when another
    // connection committed in between.
    sqlite3_reset(stmt_);
    return false;
  }
  absl::Status error = FromSqlite(db_, rc, sql_);
  sqlite3_reset(stmt_);
  return error;
}

absl::Status Statement::Run(absl::Span<const Param> params) {
  if (absl::Status s = Bind(params); !s.ok()) return s;
  for (;;) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
  }
  sqlite3_reset(stmt_);
  return absl::OkStatus();
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }

std::int64_t Statement::ColumnInt(int i) const { return sqlite3_column_int64(stmt_, i); }

std::string Statement::ColumnText(int i) const {
  const unsigned char* text = sqlite3_column_text(stmt_, i);
  int size = sqlite3_column_bytes(stmt_, i);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text), size);
}

bool Statement::ColumnIsNull(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }

namespace {

// The connection every Open makes: extended result codes, defensive mode and an untrusted
// schema, so a database file someone else wrote cannot make SQL functions run with side
// effects or corrupt the file through writable_schema.
absl::StatusOr<sqlite3*> OpenDatabase(const std::string& name, const std::string& path, int flags,
                                      const char* vfs) {
  sqlite3* db = nullptr;
  int rc =
      sqlite3_open_v2(name.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, vfs);
  if (rc != SQLITE_OK) {
    absl::Status error = FromSqlite(db, rc, absl::StrCat("open ", path));
    sqlite3_close(db);
    return error;
  }
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_busy_timeout(db, 5000);
  return db;
}

// `path` with its folder resolved, for SQLITE_OPEN_NOFOLLOW. With it SQLite refuses a name that
// holds a symbolic link anywhere, and opens every file (the database, its -wal, -shm and
// journal) with O_NOFOLLOW, so a link swapped in after the store's own checks is refused, never
// followed. Links among the folders are the operator's to use, so they are resolved here: only a
// link as the database file itself is refused. Unchanged when the folder cannot be resolved
// (SQLite then fails to open it, naming the reason).
std::string WithRealFolder(const std::string& path) {
  if (path == ":memory:") return path;
  std::size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char* real = ::realpath(folder.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string resolved(real);
  std::free(real);
  return absl::StrCat(resolved, resolved == "/" ? "" : "/", name);
}

// A file path as a URI's path (docs/architecture.md, "The store"): the three characters a URI gives
// meaning to escaped, an absolute path after "file://".
std::string FileUri(const std::string& path) {
  std::string uri = path.starts_with("/") ? "file://" : "file:";
  for (char c : path) {
    switch (c) {
      case '%':
        uri += "%25";
        break;
      case '?':
        uri += "%3F";
        break;
      case '#':
        uri += "%23";
        break;
      default:
        uri += c;
    }
  }
  return uri;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                         bool read_only,
                                                                         const std::string& vfs,
                                                                         bool on_os_disk) {
  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  AGENTRT_ASSIGN_OR_RETURN(sqlite3 * db,
                           OpenDatabase(on_os_disk ? WithRealFolder(path) : path, path,
                                        flags | (on_os_disk ? SQLITE_OPEN_NOFOLLOW : 0),
                                        vfs.empty() ? nullptr : vfs.c_str()));
  return std::unique_ptr<SqliteConnection>(new SqliteConnection(db, path));
}

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::OpenImmutable(
    const std::string& path) {
  AGENTRT_ASSIGN_OR_RETURN(
      sqlite3 * db,
      OpenDatabase(FileUri(WithRealFolder(path)) + "?immutable=1", path,
                   SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW, nullptr));
  return std::unique_ptr<SqliteConnection>(new SqliteConnection(db, path));
}

SqliteConnection::~SqliteConnection() {
  statements_.clear();
  sqlite3_close(db_);
}

bool SqliteConnection::FailedOnAReadOnlyDirectory() const {
  return sqlite3_extended_errcode(db_) == SQLITE_READONLY_DIRECTORY;
}

absl::Status SqliteConnection::Exec(std::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return absl::OkStatus();
  absl::Status status = FromSqlite(db_, rc, text.substr(0, 120));
  sqlite3_free(error);
  return status;
}

absl::Status SqliteConnection::ExecPrepared(std::string_view sql) {
  AGENTRT_ASSIGN_OR_RETURN(Statement * statement, Prepare(sql));
  return statement->Run({});
}

absl::Status SqliteConnection::SyncJournal() {
  sqlite3_file* journal = nullptr;
  int rc = sqlite3_file_control(db_, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal);
  if (rc != SQLITE_OK) return FromSqlite(db_, rc, "find the write-ahead log to sync");
  if (journal == nullptr || journal->pMethods == nullptr) return absl::OkStatus();
  rc = journal->pMethods->xSync(journal, SQLITE_SYNC_NORMAL);
  if (rc != SQLITE_OK) return FromSqlite(db_, rc, "sync the write-ahead log");
  return absl::OkStatus();
}

absl::Status SqliteConnection::ExecRetryingBusy(std::string_view sql) {
  absl::Status status;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    status = Exec(sql);
    if (!absl::IsUnavailable(status)) return status;
    // SQLite's own wait, as its busy handler would: the lock is another connection's.
    sqlite3_sleep(5);
  }
  return status;
}

absl::StatusOr<Statement*> SqliteConnection::Prepare(std::string_view sql) {
  if (auto found = statements_.find(ToAbsl(sql)); found != statements_.end()) {
    return found->second.get();
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return FromSqlite(db_, rc, absl::StrCat("prepare ", ToAbsl(sql)));
  auto statement = std::make_unique<Statement>(db_, stmt, std::string(sql));
  Statement* raw = statement.get();
  statements_.emplace(std::string(sql), std::move(statement));
  return raw;
}

std::int64_t SqliteConnection::Changes() const { return sqlite3_changes64(db_); }

absl::StatusOr<std::optional<std::int64_t>> SqliteConnection::DataVersion() {
  AGENTRT_ASSIGN_OR_RETURN(Statement * pragma, Prepare("PRAGMA data_version"));
  AGENTRT_RETURN_IF_ERROR(pragma->Bind({}));
  AGENTRT_ASSIGN_OR_RETURN(bool row, pragma->Step());
  if (!row) return absl::InternalError("sqlite: PRAGMA data_version returned no row");
  std::int64_t version = pragma->ColumnInt(0);
  AGENTRT_RETURN_IF_ERROR(pragma->Step().status());  // done: the statement resets
  return version;
}

absl::StatusOr<std::int64_t> SqliteConnection::Run(std::string_view sql,
                                                   absl::Span<const Param> params,
                                                   bool* may_change_events) {
  AGENTRT_ASSIGN_OR_RETURN(Statement * statement, Prepare(sql));
  if (may_change_events != nullptr) *may_change_events = statement->may_change_events();
  AGENTRT_RETURN_IF_ERROR(statement->Run(params));
  return Changes();
}

absl::StatusOr<std::vector<Row>> SqliteConnection::Query(std::string_view sql,
                                                         absl::Span<const Param> params,
                                                         bool* may_change_events) {
  AGENTRT_ASSIGN_OR_RETURN(Statement * statement, Prepare(sql));
  if (may_change_events != nullptr) *may_change_events = statement->may_change_events();
  AGENTRT_RETURN_IF_ERROR(statement->Bind(params));
  std::vector<Row> rows;
  const int columns = statement->ColumnCount();
  for (;;) {
    AGENTRT_ASSIGN_OR_RETURN(bool row, statement->Step());
    if (!row) break;
    Row& values = rows.emplace_back();
    values.reserve(columns);
    for (int i = 0; i < columns; ++i) values.push_back(statement->ColumnText(i));
  }
  return rows;
}

absl::Status SqliteConnection::Commit(bool durable) {
  AGENTRT_RETURN_IF_ERROR(ExecPrepared("COMMIT"));
  // Committed but perhaps not durable: an error here is the write's (its caller must not act
  // as if it were on disk), though what was committed stays committed. Not by raising
  // synchronous around the commit: SQLite applies that pragma when it compiles it, so the
  // statement was compiled anew twice per durable write (docs/performance.md).
  if (durable && sync_durable_commits_) return SyncJournal();
  return absl::OkStatus();
}

namespace {

// SQLite's spelling of what connection.h's Dialect names.
std::string SqliteByteLength(std::string_view column) {
  return absl::StrCat("length(CAST(", ToAbsl(column), " AS BLOB))");
}

std::string SqliteSlice(std::string_view column, std::string_view from, std::string_view count) {
  return absl::StrCat("substr(CAST(", ToAbsl(column), " AS BLOB), ", ToAbsl(from), ", ",
                      ToAbsl(count), ")");
}

constexpr Dialect kSqlite{
    .byte_offsets = true,
    .byte_length = &SqliteByteLength,
    .slice = &SqliteSlice,
    .next_seq =
        "SELECT MAX(COALESCE((SELECT seq FROM event_log_high_water WHERE only = 1), 0), "
        "COALESCE((SELECT MAX(seq) FROM events), 0)), "
        "COALESCE((SELECT hash FROM events ORDER BY seq DESC LIMIT 1), '')",
    .next_seq_autoincrement =
        "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0), "
        "COALESCE((SELECT MAX(seq) FROM events), 0)), "
        "COALESCE((SELECT hash FROM events ORDER BY seq DESC LIMIT 1), '')",
    .table_exists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
    .trigger_or_view =
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1",
    .object_count = "SELECT COUNT(*) FROM sqlite_master",
    .create_migrations_table =
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
};

}  // namespace

const Dialect& SqliteConnection::dialect() const { return kSqlite; }

absl::Status SqliteConnection::Error(std::string_view what) const {
  return FromSqlite(db_, sqlite3_extended_errcode(db_), what);
}

}  // namespace agentrt::store::internal
