// runtime/store/internal/postgres.h
//
// The store's connection to a PostgreSQL server (connection.h), over libpq: statements prepared
// once per connection by their text (?N read as $N), values sent as text, every column read as
// text. Its SQL is in runtime/store/postgres/. Internal to agentrt::store; not thread-safe (the
// Store serializes access).
//
// Writers are serialized as SQLite serializes them: every write transaction first takes one
// transaction-scoped lock of the store's schema (pg_advisory_xact_lock), so a write sees the
// database as the previous writer left it, the chain has one head, and every compare-and-set is
// decided by the row counts it returns. Reads see one snapshot (REPEATABLE READ, READ ONLY).
//
// Durability: kNormal runs with synchronous_commit off (a committed transaction survives a
// crash of this process; the server's crash may lose the last commits, never corrupt them),
// and a durable commit turns it on for itself (SET LOCAL); kFull keeps it on.
//
// A connection the server dropped (a restart, pg_terminate_backend) fails the statement it was
// in with Unavailable; the transaction is gone, nothing of it kept. The next transaction
// connects again, as does one that finds the connection dropped at its BEGIN (nothing of it was
// sent yet).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/store/internal/connection.h"

struct pg_conn;

namespace agentrt::store::internal {

// What a server's error says of the transaction and the connection it happened on.
struct ServerErrorKind {
  bool gave_way = false;  // the server gave the transaction up for another: it may run again
  bool lost = false;      // the connection is gone
};

class PostgresConnection final : public Connection {
 public:
  // Open connects to `url` (libpq's URL or key=value form; the PG* environment fills in what it
  // leaves out). `read_only`: every transaction is read-only. `full`: every commit waits for the
  // server's disk. Errors: Unavailable with libpq's reason (the password, never).
  static absl::StatusOr<std::unique_ptr<PostgresConnection>> Open(const std::string& url,
                                                                  bool read_only, bool full);
  ~PostgresConnection() override;

  const Dialect& dialect() const override;
  absl::Status ExecScript(std::string_view sql) override;
  absl::StatusOr<std::int64_t> Run(std::string_view sql, absl::Span<const Param> params,
                                   bool* may_change_events = nullptr) override;
  absl::StatusOr<std::vector<Row>> Query(std::string_view sql, absl::Span<const Param> params,
                                         bool* may_change_events = nullptr) override;
  absl::Status BeginWrite() override;
  absl::Status Commit(bool durable) override;
  void Rollback() override;
  absl::Status BeginRead() override;
  void EndRead() override;
  absl::StatusOr<std::optional<std::int64_t>> DataVersion() override { return std::nullopt; }
  bool Retryable(const absl::Status& status) const override;

 private:
  PostgresConnection(pg_conn* conn, bool read_only, bool full)
      : conn_(conn), read_only_(read_only), full_(full) {}
  // Runs `begin`, connecting again first when the connection was dropped. A copy: connecting
  // again sets the session's own texts anew.
  absl::Status Begin(std::string begin);
  // After a dropped connection: connects again and sets the session up.
  absl::Status Reconnect();
  absl::Status SetUpSession();
  // Runs a prepared statement (prepared at its first use); fills `rows` when given.
  absl::StatusOr<std::int64_t> Execute(std::string_view sql, absl::Span<const Param> params,
                                       std::vector<Row>* rows);

  pg_conn* conn_;
  bool read_only_;
  bool full_;
  ServerErrorKind last_error_;  // what the last error was
  std::string begin_write_;     // BEGIN, then the writers' lock of this schema
  std::int64_t next_name_ = 0;
  // Prepared statements by SQL text, with their server-side names.
  absl::flat_hash_map<std::string, std::string> prepared_;
};

// ServerSql turns a statement's ?N parameters into PostgreSQL's $N, outside quoted text.
std::string ServerSql(std::string_view sql);

}  // namespace agentrt::store::internal
