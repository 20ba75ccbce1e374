// tests/support/tamper.h
//
// What a test plants behind the records layer's back: one raw statement in a transaction of its
// own, as a hostile editor of the database file (or a failing disk) would leave it, and raw reads
// of what the records layer does not show. Each takes `what`, the plant in words ("the approval's
// arguments rewritten"), and an error names it with the statement, so a failing test says which
// forgery did not take. Nothing else in the tests writes SQL (runtime/store/internal/sql.h is
// the door; LayoutTest keeps it shut to the product). Header-only, test-only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "runtime/base/string_view.h"
#include "runtime/store/internal/sql.h"
#include "runtime/store/store.h"

namespace agentrt::test_support {

// TamperIn runs `sql` (with `params`) inside a transaction the test already holds (several
// plants that must commit together, or a plant beside a records-layer write); returns the rows it
// changed. Errors: the statement's, naming `what` and the statement.
inline absl::StatusOr<std::int64_t> TamperIn(store::Transaction& tx, std::string_view what,
                                             std::string_view sql,
                                             absl::Span<const store::SqlValue> params = {}) {
  absl::StatusOr<std::int64_t> n = store::Sql::Exec(tx, sql, params);
  if (!n.ok()) {
    return absl::Status(n.status().code(),
                        absl::StrCat("planting ", ToAbsl(what), " (", ToAbsl(sql),
                                     ") failed: ", n.status().message()));
  }
  return n;
}

// PlantRunIn makes a bare RUNNING row for run `run` unless there is one (what events of a run
// need, for tests of the event log that drive no run), inside a transaction the test holds.
inline absl::Status PlantRunIn(store::Transaction& tx, std::string_view run) {
  return TamperIn(tx, "a bare run row for its events",
                  "INSERT INTO runs (id, goal, status, limits_json, created_at) "
                  "VALUES (?1, 'g', 'RUNNING', '{}', '') ON CONFLICT DO NOTHING",
                  {run})
      .status();
}

// Tamper is TamperIn in a write transaction of its own.
inline absl::StatusOr<std::int64_t> Tamper(store::Store& store, std::string_view what,
                                           std::string_view sql,
                                           absl::Span<const store::SqlValue> params = {}) {
  absl::StatusOr<std::int64_t> changed;
  absl::Status written = store.Write([&](store::Transaction& tx) {
    changed = TamperIn(tx, what, sql, params);
    return changed.status();
  });
  if (!written.ok()) return written;
  return changed;
}

// PlantRefusal makes every later UPDATE of `table` fail with `message`, as a failing disk
// would: a trigger, in the words of the store's engine.
inline absl::Status PlantRefusal(store::Store& store, std::string_view table,
                                 std::string_view message) {
  std::string what = absl::StrCat("a disk that refuses updates of ", ToAbsl(table));
  if (!store::IsServerUrl(store.path())) {
    return Tamper(store, what,
                  absl::StrCat("CREATE TRIGGER refuse BEFORE UPDATE ON ", ToAbsl(table),
                               " BEGIN SELECT RAISE(ABORT, '", ToAbsl(message), "'); END"))
        .status();
  }
  absl::Status made =
      Tamper(store, what,
             absl::StrCat("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                          "$$BEGIN RAISE EXCEPTION '",
                          ToAbsl(message), "'; END$$"))
          .status();
  if (!made.ok()) return made;
  return Tamper(store, what,
                absl::StrCat("CREATE TRIGGER refuse BEFORE UPDATE ON ", ToAbsl(table),
                             " FOR EACH ROW EXECUTE FUNCTION refuse()"))
      .status();
}

// RemoveRefusal undoes PlantRefusal: the disk works again.
inline absl::Status RemoveRefusal(store::Store& store, std::string_view table) {
  return Tamper(store, "the disk working again",
                store::IsServerUrl(store.path())
                    ? absl::StrCat("DROP TRIGGER refuse ON ", ToAbsl(table))
                    : std::string("DROP TRIGGER refuse"))
      .status();
}

// PeekIn reads rows the records layer does not show (columns as text) inside a transaction the
// test holds. Errors: the statement's, naming `what` and the statement.
inline absl::StatusOr<std::vector<store::SqlRow>> PeekIn(
    store::Transaction& tx, std::string_view what, std::string_view sql,
    absl::Span<const store::SqlValue> params = {}) {
  absl::StatusOr<std::vector<store::SqlRow>> rows = store::Sql::Query(tx, sql, params);
  if (!rows.ok()) {
    return absl::Status(rows.status().code(),
                        absl::StrCat("reading ", ToAbsl(what), " (", ToAbsl(sql),
                                     ") failed: ", rows.status().message()));
  }
  return rows;
}

// Peek is PeekIn in a read transaction of its own.
inline absl::StatusOr<std::vector<store::SqlRow>> Peek(
    store::Store& store, std::string_view what, std::string_view sql,
    absl::Span<const store::SqlValue> params = {}) {
  absl::StatusOr<std::vector<store::SqlRow>> rows;
  absl::Status read = store.Read([&](store::Transaction& tx) {
    rows = PeekIn(tx, what, sql, params);
    return rows.status();
  });
  if (!read.ok()) return read;
  return rows;
}

}  // namespace agentrt::test_support
