// runtime/store/internal/sqlite.h
//
// The store's connection to a SQLite file (connection.h): a thin, Status-returning layer over
// the SQLite C API, prepared statements with positional binds, and errors that name the
// statement and SQLite's reason. Internal to agentrt::store; not thread-safe (the Store
// serializes access). Its SQL is in runtime/store/sqlite/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/store/internal/connection.h"

struct sqlite3;
struct sqlite3_stmt;

namespace agentrt::store::internal {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Bind resets the statement and binds `params` to ?1, ?2, ...
  absl::Status Bind(absl::Span<const Param> params);
  // Step returns true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Run binds, steps to completion and resets.
  absl::Status Run(absl::Span<const Param> params);

  int ColumnCount() const;
  std::int64_t ColumnInt(int i) const;
  std::string ColumnText(int i) const;
  bool ColumnIsNull(int i) const;

  const std::string& sql() const { return sql_; }
  // Whether the statement may change the events table: it writes, and names it. The store
  // forgets the chain's head it remembers once such a statement ran.
  bool may_change_events() const { return may_change_events_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string sql_;
  bool may_change_events_;
};

class SqliteConnection final : public Connection {
 public:
  // Open opens `path` (a plain file path; ":memory:" for tests). `read_only` opens it without
  // write access; otherwise it is created when missing. `vfs` names the SQLite VFS to open it
  // through ("" for SQLite's default). Neither Open follows a symbolic link that is the file
  // itself or one of its sidecars (PermissionDenied): links among its folders are followed.
  // `on_os_disk` false: `path` is a name on a VFS that keeps its files itself, used as it is.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                                bool read_only,
                                                                const std::string& vfs = "",
                                                                bool on_os_disk = true);
  // OpenImmutable opens `path` read-only as a file nothing changes while it is open (SQLite's
  // immutable=1): no lock, no -shm, nothing created. For a database in a directory this
  // process cannot write, where SQLite cannot make the WAL index a reader needs.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> OpenImmutable(const std::string& path);
  ~SqliteConnection() override;

  // Connection:
  const Dialect& dialect() const override;
  absl::Status ExecScript(std::string_view sql) override { return Exec(sql); }
  absl::StatusOr<std::int64_t> Run(std::string_view sql, absl::Span<const Param> params,
                                   bool* may_change_events = nullptr) override;
  absl::StatusOr<std::vector<Row>> Query(std::string_view sql, absl::Span<const Param> params,
                                         bool* may_change_events = nullptr) override;
  absl::Status BeginWrite() override { return ExecPrepared("BEGIN IMMEDIATE"); }
  // A durable commit syncs the write-ahead log after the commit, as synchronous=FULL would at
  // the commit, when the connection's commits are not synced already (set_sync_durable_commits):
  // that makes it and every earlier commit durable.
  absl::Status Commit(bool durable) override;
  void Rollback() override { Exec("ROLLBACK").IgnoreError(); }
  absl::Status BeginRead() override { return ExecPrepared("BEGIN"); }
  void EndRead() override { ExecPrepared("COMMIT").IgnoreError(); }
  // PRAGMA data_version: it changes when another connection commits to the database, never for
  // this connection's own commits.
  absl::StatusOr<std::optional<std::int64_t>> DataVersion() override;
  bool Retryable(const absl::Status&) const override { return false; }

  // Whether a durable commit must sync the log itself (synchronous=NORMAL on a file).
  void set_sync_durable_commits(bool sync) { sync_durable_commits_ = sync; }

  absl::Status Exec(std::string_view sql);
  // ExecPrepared is Exec for a statement run again and again (BEGIN IMMEDIATE, COMMIT):
  // prepared once, then only stepped.
  absl::Status ExecPrepared(std::string_view sql);
  // ExecRetryingBusy is Exec retried every 5 ms for up to 5 s while another connection holds
  // the lock. For statements SQLite's busy timeout does not cover (the WAL switch).
  absl::Status ExecRetryingBusy(std::string_view sql);
  // Prepare returns a statement owned by the connection's cache (prepared once, reused).
  absl::StatusOr<Statement*> Prepare(std::string_view sql);
  std::int64_t Changes() const;
  // SyncJournal makes every committed transaction durable: it syncs the write-ahead log (or the
  // rollback journal) of the main database through its VFS, as synchronous=FULL does at a
  // commit. A connection with no journal open has nothing unsynced: OK.
  absl::Status SyncJournal();
  absl::Status Error(std::string_view what) const;  // the current SQLite error as a Status
  // Whether the last call failed because SQLite could not create a file it needs (the WAL
  // index) in a directory this process cannot write (SQLITE_READONLY_DIRECTORY).
  bool FailedOnAReadOnlyDirectory() const;

 private:
  explicit SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  bool sync_durable_commits_ = false;
  // By SQL text: a step looks statements up a dozen times, BEGIN and COMMIT included.
  absl::flat_hash_map<std::string, std::unique_ptr<Statement>> statements_;
};

}  // namespace agentrt::store::internal
