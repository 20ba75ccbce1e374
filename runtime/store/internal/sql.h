// runtime/store/internal/sql.h
//
// Raw statements inside a transaction: the door to the tables for the one layer that owns
// their statements (runtime/records/) and for tests that plant what a hostile editor of the
// file would. Every other layer reads and writes rows through runtime/records/, so a change to a
// table is made in one place; LayoutTest holds that nothing else includes this header.
//
// A statement that writes to the events table other than through Transaction::AppendEvent is
// noticed: the store then rereads the chain's head before its next write.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/store/store.h"

namespace agentrt::store {

class Sql {
 public:
  // Exec runs one statement; returns the number of rows it changed.
  static absl::StatusOr<std::int64_t> Exec(Transaction& tx, std::string_view sql,
                                           absl::Span<const SqlValue> params = {}) {
    return tx.Exec(sql, params);
  }
  // Query runs one statement and returns its rows, columns as text.
  static absl::StatusOr<std::vector<SqlRow>> Query(Transaction& tx, std::string_view sql,
                                                   absl::Span<const SqlValue> params = {}) {
    return tx.Query(sql, params);
  }
  // OnServer: whether the transaction is on a PostgreSQL server rather than a SQLite file, for
  // the few statements the records layer must spell for each (runtime/records/rows.cc).
  static bool OnServer(Transaction& tx);
  // HashStoredEvents gives every stored event its chain hash (event_chain.h), in seq order
  // from the first, read a page at a time as Store::VerifyEvents reads them: the backfill of the
  // migration that added the chain, so the chain vouches for the events written before it.
  // `path` names the database in errors.
  static absl::Status HashStoredEvents(Transaction& tx, std::string_view path);
};

}  // namespace agentrt::store
