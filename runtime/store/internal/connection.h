// runtime/store/internal/connection.h
//
// One connection to the database a Store holds, whichever engine keeps it: SQLite (a file,
// sqlite.h) or a PostgreSQL server (postgres.h). The Store and its Transaction speak to the
// engine only through this interface and the few statements that differ between the two
// (Dialect); everything above the store sees neither (docs/decisions/0029-a-store-on-a-server.md).
//
// Statements are written once in the SQL both engines speak, with numbered parameters ?1, ?2,
// ... (a PostgreSQL connection reads them as $1, $2, ...). Values bind as 64-bit integers or
// text; every column reads back as text (an integer in decimal, NULL as ""). Not thread-safe:
// the Store serializes access.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace agentrt::store::internal {

using Param = std::variant<std::int64_t, std::string_view>;
using Row = std::vector<std::string>;

// The statements the store needs that the two engines spell differently.
struct Dialect {
  bool on_server = false;  // PostgreSQL
  // Whether a text's bytes are read by byte offsets (SQLite, through CAST AS BLOB) or by
  // character offsets (PostgreSQL, whose text holds only whole UTF-8 characters): how the
  // chain's verifier reads a long field in chunks.
  bool byte_offsets = true;
  // `expr`'s length in bytes, and its first `count` units (bytes or characters, as above) from
  // unit `from` (1-based), as SQL expressions over a column and parameters.
  std::string (*byte_length)(std::string_view column) = nullptr;
  std::string (*slice)(std::string_view column, std::string_view from,
                       std::string_view count) = nullptr;
  // The next seq and the newest event's hash, in one row: the next seq follows both the highest
  // stored seq and the highest ever appended (the high-water row; in a SQLite database from
  // before it, AUTOINCREMENT's memory), so a seq is never reused.
  std::string_view next_seq;
  std::string_view next_seq_autoincrement;
  // One row when the table named ?1 exists in the store's schema.
  std::string_view table_exists;
  // A trigger or view of the store's schema, if any: (kind, name), LIMIT 1.
  std::string_view trigger_or_view;
  // The number of tables, views and indexes in the store's schema.
  std::string_view object_count;
  // The table of applied migrations, created when missing.
  std::string_view create_migrations_table;
};

class Connection {
 public:
  virtual ~Connection() = default;

  virtual const Dialect& dialect() const = 0;

  // ExecScript runs `sql`, one or more statements without parameters (a migration).
  virtual absl::Status ExecScript(std::string_view sql) = 0;
  // Run runs one statement and returns the number of rows it changed. `may_change_events` is
  // set when the statement writes and names the events table (the store then forgets the chain
  // head it remembers); it may be null.
  virtual absl::StatusOr<std::int64_t> Run(std::string_view sql, absl::Span<const Param> params,
                                           bool* may_change_events = nullptr) = 0;
  // Query runs one statement and returns its rows.
  virtual absl::StatusOr<std::vector<Row>> Query(std::string_view sql,
                                                 absl::Span<const Param> params,
                                                 bool* may_change_events = nullptr) = 0;

  // A write transaction: serialized with every other writer of the database from BeginWrite on
  // (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction-scoped lock every writer takes first),
  // so a write sees the database as the previous writer left it.
  virtual absl::Status BeginWrite() = 0;
  // Commit commits the open transaction; `durable`: it is on disk (or on the server's disk)
  // before Commit returns, whatever the connection's durability.
  virtual absl::Status Commit(bool durable) = 0;
  // Rollback ends the open transaction, if any, leaving nothing of it.
  virtual void Rollback() = 0;
  // A read transaction: one consistent snapshot until EndRead.
  virtual absl::Status BeginRead() = 0;
  virtual void EndRead() = 0;

  // DataVersion changes whenever another connection commits (SQLite's data_version); nullopt
  // when the engine cannot tell, so the store reads the chain's head at every write.
  virtual absl::StatusOr<std::optional<std::int64_t>> DataVersion() = 0;

  // Whether a failed transaction may be run again whole: the engine gave it up to let another
  // go first (a serialization failure or deadlock), and nothing of it was kept.
  virtual bool Retryable(const absl::Status& status) const = 0;
};

}  // namespace agentrt::store::internal
