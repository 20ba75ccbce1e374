#include "runtime/records/schema.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/postgres/schema.h"
#include "runtime/store/internal/sql.h"
#include "runtime/world/timestamp.h"

namespace agentrt::records {
namespace {

// Migration 5: runs that were RUNNING under a build without leases get one short lease, so an
// old loop still inside a call has that long before another owner may take over.
absl::Status LeaseRunsOfThePreviousVersion(store::Transaction& tx,
                                           const store::MigrationContext& context) {
  std::string expiry = world::FormatTimestamp(context.now + absl::Seconds(30));
  return store::Sql::Exec(tx,
                          "UPDATE runs SET lease_owner = 'agentrt:pre-lease-version', "
                          "lease_expires_at = ?1 WHERE status = 'RUNNING'",
                          {std::string_view(expiry)})
      .status();
}

// Migration 6: events written before the chain get their hashes now, in seq order, so the
// chain vouches for them as of this migration.
absl::Status ChainEventsOfThePreviousVersions(store::Transaction& tx,
                                              const store::MigrationContext& context) {
  return store::Sql::HashStoredEvents(tx, context.path);
}

// The tables as they stand, each written once: migration 8 creates the first five, migrations 3,
// 6 and 7 the last three, and the baseline all of them. MigrationsTest pins every migration's
// bytes, so what these pieces join to is exactly the released text.
constexpr char kRunsTable[] = R"sql((
  run_key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  goal TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  reason_detail TEXT NOT NULL DEFAULT '',
  limits_json TEXT NOT NULL,
  step_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '',
  result_json TEXT NOT NULL DEFAULT '',
  model_calls INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_micros INTEGER NOT NULL DEFAULT 0,
  active_ms INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT NOT NULL DEFAULT '',
  lease_expires_at TEXT NOT NULL DEFAULT ''
))sql";
constexpr char kStepsTable[] = R"sql((
  step_key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  run_key INTEGER NOT NULL REFERENCES runs(run_key),
  idx INTEGER NOT NULL,
  status TEXT NOT NULL,
  decision_json TEXT NOT NULL DEFAULT '',
  policy_json TEXT NOT NULL DEFAULT '',
  observation_json TEXT NOT NULL DEFAULT '',
  observation_hash TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT '',
  spec_hash TEXT NOT NULL DEFAULT '',
  policy_id TEXT NOT NULL DEFAULT '',
  UNIQUE (run_key, idx)
))sql";
constexpr char kEventsTable[] = R"sql((
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  step_id TEXT NOT NULL DEFAULT '',
  at TEXT NOT NULL,
  type TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  hash TEXT NOT NULL DEFAULT ''
))sql";
constexpr char kHighWaterTable[] = R"sql((
  only INTEGER PRIMARY KEY CHECK (only = 1),
  seq INTEGER NOT NULL
))sql";
constexpr char kApprovalsTable[] = R"sql((
  approval_key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  run_key INTEGER NOT NULL REFERENCES runs(run_key),
  step_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  capability_json TEXT NOT NULL,
  presentation_json TEXT NOT NULL,
  request_json TEXT NOT NULL,
  hash TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  decided_at TEXT NOT NULL DEFAULT '',
  decided_by TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '',
  expires_at TEXT NOT NULL DEFAULT ''
))sql";
constexpr char kModelCallsTable[] = R"sql(CREATE TABLE model_calls (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  latency_ms INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  dispatched_at TEXT NOT NULL,
  completed_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX model_calls_run ON model_calls (run_id, dispatched_at);)sql";
constexpr char kToolSpecsTable[] = R"sql(CREATE TABLE tool_specs (
  hash TEXT PRIMARY KEY,
  spec_json TEXT NOT NULL
);)sql";
constexpr char kProxyCallsTable[] = R"sql(CREATE TABLE proxy_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session TEXT NOT NULL,
  request_key TEXT NOT NULL,
  tool TEXT NOT NULL,
  side_effect TEXT NOT NULL,
  run_id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  open INTEGER NOT NULL DEFAULT 1,
  closed_at TEXT NOT NULL DEFAULT '',
  settled_at TEXT NOT NULL DEFAULT '',
  outcome INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX proxy_calls_open ON proxy_calls (session, request_key) WHERE open = 1;
CREATE INDEX proxy_calls_key ON proxy_calls (session, request_key, id);
CREATE INDEX proxy_calls_settled ON proxy_calls (session, settled_at, id);
CREATE INDEX proxy_calls_tool ON proxy_calls (session, tool, request_key, id);)sql";

// Joins string literals at compile time (a migration's text from the pieces above).
template <std::size_t... N>
constexpr std::array<char, (N + ...) - sizeof...(N) + 1> Join(const char (&... parts)[N]) {
  std::array<char, (N + ...) - sizeof...(N) + 1> out{};
  std::size_t at = 0;
  ((std::copy(parts, parts + N - 1, out.begin() + static_cast<std::ptrdiff_t>(at)), at += N - 1),
   ...);
  return out;
}
template <std::size_t N>
constexpr std::string_view View(const std::array<char, N>& text) {
  return std::string_view(text.data(), N - 1);
}

// Migration 8: runs, steps and approvals rebuilt with integer row keys (steps and approvals
// name their run by its key), events without AUTOINCREMENT, and the event log's high-water mark
// (store/schema.h) set to what AUTOINCREMENT remembered. The text ids stay the public identity,
// unique and indexed. Every row is copied with its rowid, so orders by rowid stay; the chain is
// not touched (events keep their seq, run_id and hash). A step or approval naming no run would
// be lost by the copy: the migration is refused instead, naming it.
constexpr auto kIntegerKeysText = Join(
    R"sql(
CREATE TABLE runs_new )sql",
    kRunsTable,
    R"sql(;
INSERT INTO runs_new (run_key, id, goal, status, reason, reason_detail, limits_json,
  step_count, created_at, started_at, finished_at, result_json, model_calls, input_tokens,
  output_tokens, cached_input_tokens, estimated_cost_micros, active_ms, lease_owner,
  lease_expires_at)
SELECT rowid, id, goal, status, reason, reason_detail, limits_json, step_count, created_at,
  started_at, finished_at, result_json, model_calls, input_tokens, output_tokens,
  cached_input_tokens, estimated_cost_micros, active_ms, lease_owner, lease_expires_at
FROM runs ORDER BY rowid;
CREATE TABLE steps_new )sql",
    kStepsTable,
    R"sql(;
INSERT INTO steps_new (step_key, id, run_key, idx, status, decision_json, policy_json,
  observation_json, observation_hash, started_at, finished_at, spec_hash, policy_id)
SELECT s.rowid, s.id, r.rowid, s.idx, s.status, s.decision_json, s.policy_json,
  s.observation_json, s.observation_hash, s.started_at, s.finished_at, s.spec_hash, s.policy_id
FROM steps s JOIN runs r ON r.id = s.run_id ORDER BY s.rowid;
CREATE TABLE approvals_new )sql",
    kApprovalsTable,
    R"sql(;
INSERT INTO approvals_new (approval_key, id, run_key, step_id, kind, capability_json,
  presentation_json, request_json, hash, status, created_at, decided_at, decided_by, note,
  expires_at)
SELECT a.rowid, a.id, r.rowid, a.step_id, a.kind, a.capability_json, a.presentation_json,
  a.request_json, a.hash, a.status, a.created_at, a.decided_at, a.decided_by, a.note, a.expires_at
FROM approvals a JOIN runs r ON r.id = a.run_id ORDER BY a.rowid;
CREATE TABLE events_new )sql",
    kEventsTable,
    R"sql(;
INSERT INTO events_new (seq, run_id, step_id, at, type, payload_json, hash)
SELECT seq, run_id, step_id, at, type, payload_json, hash FROM events ORDER BY seq;
CREATE TABLE event_log_high_water )sql",
    kHighWaterTable,
    R"sql(;
INSERT INTO event_log_high_water (only, seq)
SELECT 1, MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0),
              COALESCE((SELECT MAX(seq) FROM events), 0));
DROP TABLE events;
DROP TABLE approvals;
DROP TABLE steps;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
ALTER TABLE steps_new RENAME TO steps;
ALTER TABLE approvals_new RENAME TO approvals;
ALTER TABLE events_new RENAME TO events;
CREATE INDEX events_run ON events (run_id, seq);
CREATE INDEX approvals_run ON approvals (run_key, approval_key);
)sql");
constexpr std::string_view kIntegerKeys = View(kIntegerKeysText);

// The whole schema as of migration 8, for a database that has none yet: what migrations 1 to 8
// make of an empty file, made at once (migration 8's rebuild alone costs a new database a few
// milliseconds). MigrationsTest.ANewDatabaseIsWhatTheMigrationsMake holds the two to the same
// tables, columns, keys, indexes and rows; a later migration moves the baseline to itself.
constexpr auto kBaseline8Text = Join(
    R"sql(
CREATE TABLE runs )sql",
    kRunsTable,
    R"sql(;
CREATE TABLE steps )sql",
    kStepsTable,
    R"sql(;
CREATE TABLE events )sql",
    kEventsTable,
    R"sql(;
CREATE INDEX events_run ON events (run_id, seq);
CREATE TABLE event_log_high_water )sql",
    kHighWaterTable,
    R"sql(;
INSERT INTO event_log_high_water (only, seq) VALUES (1, 0);
CREATE TABLE approvals )sql",
    kApprovalsTable,
    R"sql(;
CREATE INDEX approvals_run ON approvals (run_key, approval_key);
)sql",
    kModelCallsTable,
    R"sql(
)sql",
    kToolSpecsTable,
    R"sql(
)sql",
    kProxyCallsTable,
    R"sql(
)sql");
constexpr std::string_view kBaseline8 = View(kBaseline8Text);

absl::Status RefuseRowsNamingNoRun(store::Transaction& tx, const store::MigrationContext& context) {
  for (std::string_view table : {std::string_view("steps"), std::string_view("approvals")}) {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<store::SqlRow> orphans,
        store::Sql::Query(
            tx, absl::StrCat("SELECT id, run_id, (SELECT COUNT(*) FROM ", ToAbsl(table),
                             " WHERE run_id NOT IN (SELECT id FROM "
                             "runs)) FROM ",
                             ToAbsl(table), " WHERE run_id NOT IN (SELECT id FROM runs) LIMIT 1")));
    if (!orphans.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database ", ToAbsl(context.path), ": ", orphans[0][2], " row(s) of ", ToAbsl(table),
          " name a run that does not exist (the first: ", ToAbsl(json::Sanitize(orphans[0][0])),
          ", naming run ", ToAbsl(json::Sanitize(orphans[0][1])),
          "); migration 8 would lose them, so it is refused and nothing was changed"));
    }
  }
  return absl::OkStatus();
}

constexpr auto kMigration3Text = Join(R"sql(
)sql",
                                      kModelCallsTable, R"sql(
ALTER TABLE runs ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN estimated_cost_micros INTEGER NOT NULL DEFAULT 0;
)sql");
constexpr auto kMigration6Text = Join(R"sql(
)sql",
                                      kToolSpecsTable, R"sql(
ALTER TABLE steps ADD COLUMN spec_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN policy_id TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN hash TEXT NOT NULL DEFAULT '';
)sql");
constexpr auto kMigration7Text = Join(R"sql(
)sql",
                                      kProxyCallsTable, R"sql(
)sql");
constexpr store::Migration kMigrations[] = {
    {1, "runs, steps, events", R"sql(
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  goal TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  reason_detail TEXT NOT NULL DEFAULT '',
  limits_json TEXT NOT NULL,
  step_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '',
  result_json TEXT NOT NULL DEFAULT ''
);
CREATE TABLE steps (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  idx INTEGER NOT NULL,
  status TEXT NOT NULL,
  decision_json TEXT NOT NULL DEFAULT '',
  policy_json TEXT NOT NULL DEFAULT '',
  observation_json TEXT NOT NULL DEFAULT '',
  observation_hash TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, idx)
);
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs(id),
  step_id TEXT NOT NULL DEFAULT '',
  at TEXT NOT NULL,
  type TEXT NOT NULL,
  payload_json TEXT NOT NULL
);
CREATE INDEX events_run ON events (run_id, seq);
)sql"},
    {2, "approvals", R"sql(
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  step_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  capability_json TEXT NOT NULL,
  presentation_json TEXT NOT NULL,
  request_json TEXT NOT NULL,
  hash TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  decided_at TEXT NOT NULL DEFAULT '',
  decided_by TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX approvals_run ON approvals (run_id, created_at);
)sql"},
    {3, "model calls and run accounting", View(kMigration3Text)},
    {4, "active time and approval expiry", R"sql(
ALTER TABLE runs ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE approvals ADD COLUMN expires_at TEXT NOT NULL DEFAULT '';
)sql"},
    {5, "run leases", R"sql(
ALTER TABLE runs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN lease_expires_at TEXT NOT NULL DEFAULT '';
)sql",
     &LeaseRunsOfThePreviousVersion},
    {6, "tool specs, recorded policy identity, event hash chain", View(kMigration6Text),
     &ChainEventsOfThePreviousVersions},
    {7, "the proxy's call index", View(kMigration7Text)},
    {8, "integer row keys; the event log's high-water mark", kIntegerKeys, nullptr,
     &RefuseRowsNamingNoRun, /*rebuilds_tables=*/true, kBaseline8},
};

}  // namespace

store::Schema Migrations() { return kMigrations; }

store::Schema SchemaFor(std::string_view path) {
  return store::IsServerUrl(path) ? ServerMigrations() : Migrations();
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenStore(const std::string& path,
                                                        const world::Clock& clock,
                                                        store::StoreOptions options) {
  return store::Store::Open(path, clock, SchemaFor(path), std::move(options));
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenExistingStore(const std::string& path,
                                                                bool read_only) {
  return store::Store::OpenExisting(path, SchemaFor(path), read_only,
                                    " (agentrt migrate --db brings it up to date)");
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenStoreInMemory(const world::Clock& clock) {
  return store::Store::OpenInMemory(clock, kMigrations);
}

}  // namespace agentrt::records
