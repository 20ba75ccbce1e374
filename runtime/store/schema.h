// runtime/store/schema.h
//
// The tables a store holds, as the forward-only migrations that make them. The store applies a
// schema and knows nothing of its tables but the events table its chain is written to: the
// layer that owns the tables gives the schema (runtime/records/schema.h for agentrt's), so a
// change to a table is made in that layer alone.
//
// The event log's high-water mark: a schema may hold the table
//   event_log_high_water (only INTEGER PRIMARY KEY CHECK (only = 1), seq INTEGER NOT NULL)
// and its one row. The store then writes the highest seq ever appended into it once per write
// transaction that appended events (a deleted row is put back, as a deleted sqlite_sequence
// row would be), takes the next seq past it (a deleted newest event is never
// reused), and VerifyEvents reports a log whose newest events are gone. Without it, the events
// table must number its rows with AUTOINCREMENT, whose sqlite_sequence row serves instead (and
// is written at every insert).
//
// A schema's migrations are numbered 1, 2, 3, ... in order; a database records the number of
// each one applied, and a store opening it applies the rest, with their backfills and records,
// in one IMMEDIATE transaction: all of them or none, so concurrent first opens are safe and a
// failed open leaves the database as it found it. A released migration is never edited: a
// change is a new migration at the end.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace agentrt::store {

class Transaction;

// What a migration's backfill may know of the open.
struct MigrationContext {
  std::string_view path;  // the database, for errors
  absl::Time now;         // the opening store's clock
};

struct Migration {
  int version;
  std::string_view description;
  std::string_view sql;  // statements run in order
  // Code run after `sql` in the same transaction (rows the new columns need), or null.
  absl::Status (*backfill)(Transaction& tx, const MigrationContext& context) = nullptr;
  // Code run before `sql` in the same transaction, or null: an error refuses the migration
  // before anything changed (rows the migration could not carry over, say).
  absl::Status (*precheck)(Transaction& tx, const MigrationContext& context) = nullptr;
  // A migration that rebuilds tables others refer to (create, copy, drop, rename): the store
  // turns foreign-key enforcement off around the migrating transaction, as SQLite requires for
  // such a rebuild, and checks every foreign key (PRAGMA foreign_key_check) before it commits:
  // a violation refuses the migration, and the database stays as it was.
  bool rebuilds_tables = false;
  // Only the schema's last migration's is read: the whole schema as of this version, run instead
  // of every migration on a database that has no table yet, which is then recorded as having
  // every migration applied (no backfill runs: there are no rows). Empty: a new database is
  // migrated one migration at a time. The layer that owns the tables must test that the two
  // give the same schema.
  std::string_view baseline = {};
};

// The table holding the event log's high-water mark (see above).
inline constexpr std::string_view kHighWaterTable = "event_log_high_water";

using Schema = std::span<const Migration>;

// OK when `schema` is non-empty and its versions are 1, 2, ... in order; InvalidArgument
// naming the first that is not.
absl::Status CheckSchemaNumbering(Schema schema);

}  // namespace agentrt::store
