#include "runtime/store/store.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <type_traits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/store/event_chain.h"
#include "runtime/store/internal/file_security.h"
#include "runtime/store/internal/sql.h"
#include "runtime/store/internal/sqlite.h"
#include "runtime/world/timestamp.h"

namespace agentrt::store {
namespace {

using internal::Connection;
using internal::Param;
using internal::SqliteConnection;
static_assert(std::is_same_v<SqlValue, Param>, "a query's values bind as they are");
static_assert(std::is_same_v<SqlRow, internal::Row>, "a query's rows read as they are");

absl::Status WithPath(const std::string& path, absl::Status status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("database ", path, ": ", status.message()));
}

// Runs `fn` in the open transaction. A throwing caller leaves nothing half-written: the
// transaction is rolled back, then the exception propagates.
absl::Status CallRollingBackOnThrow(Connection& connection,
                                    absl::FunctionRef<absl::Status(Transaction&)> fn,
                                    Transaction& tx) {
  try {
    return fn(tx);
  } catch (...) {
    connection.Rollback();
    throw;
  }
}

// The columns a capped event read selects, in the order CappedEvent reads them; ?CAP is the
// parameter holding kMaxPageText. A payload of at most ?CAP bytes is read as it is: SQLite's
// substr and length end a text at its first NUL, which a payload edited to hold one would
// otherwise be shown cut at.
std::string CappedEventColumns(const internal::Dialect& dialect, int cap_param) {
  std::string cap = absl::StrCat("?", cap_param);
  return absl::StrCat("seq, run_id, step_id, at, type, ", "CASE WHEN ",
                      dialect.byte_length("payload_json"), " <= ", cap,
                      " THEN payload_json ELSE substr(payload_json, 1, ", cap, ") END, ",
                      "length(payload_json), hash");
}

// A row of CappedEventColumns as an Event: a payload over the cap becomes
// {"head":...,"length":N,"truncated":true}, still JSON.
Event CappedEvent(SqlRow& r, std::int64_t cap) {
  std::string payload = std::move(r[5]);
  std::int64_t length = ToInt(r[6]);
  if (length > cap) {
    std::string head;
    json::AppendCanonicalString(payload, head);
    payload = absl::StrCat("{\"head\":", head, ",\"length\":", length, ",\"truncated\":true}");
  }
  return Event{ToInt(r[0]),     std::move(r[1]),    std::move(r[2]), std::move(r[3]),
               std::move(r[4]), std::move(payload), std::move(r[7])};
}

// VerifyEvents reads this many events at a time, and of each field this many bytes with the
// page; a longer field is read and hashed in chunks of Store::kMaxPageText bytes, so a database
// of any size, and an event of any length, is verified in bounded memory.
constexpr std::int64_t kVerifyPage = 128;
constexpr std::int64_t kVerifyInline = 4096;

// One netstring of the chain (event_chain.h): `<byte length>:<bytes>,`.
void AppendNetstring(std::string_view bytes, json::Sha256Stream& hash) {
  hash.Add(absl::StrCat(bytes.size(), ":"));
  hash.Add(bytes);
  hash.Add(",");
}

// Events as stored, a page at a time, hashed into the chain without holding a long field whole:
// how VerifyEvents checks the chain and migration 6 backfills it.
class StoredEventPages {
 public:
  // A page row: seq, then (byte length, first kVerifyInline bytes) of each chained field, then
  // the stored hash (its first 128 characters; NULL reads as "").
  static constexpr std::size_t kHashColumn = 11;

  StoredEventPages(const internal::Dialect& dialect, std::string_view path)
      : path_(path), byte_offsets_(dialect.byte_offsets) {
    page_sql_ = "SELECT seq";
    for (std::string_view field : kFields) {
      absl::StrAppend(&page_sql_, ", ", dialect.byte_length(field), ", ",
                      dialect.slice(field, "1", "?4"));
      chunk_sql_.push_back(
          absl::StrCat("SELECT ", dialect.slice(field, "?2", "?3"), " FROM events WHERE seq = ?1"));
    }
    absl::StrAppend(&page_sql_, ", ", dialect.slice("hash", "1", "128"),
                    " FROM events WHERE seq >= ?1 AND seq <= ?2 ORDER BY seq LIMIT ?3");
  }

  // At most kVerifyPage events with from <= seq <= to, in seq order.
  absl::StatusOr<std::vector<SqlRow>> Page(Transaction& tx, std::int64_t from, std::int64_t to) {
    return Sql::Query(tx, page_sql_, {from, to, kVerifyPage, kVerifyInline});
  }

  // The chain hash of a page row after `previous` (event_chain.h's seven netstrings, fed to the
  // hash as they are read). DataLoss when a field holds fewer bytes than its length says.
  absl::StatusOr<std::string> Hash(Transaction& tx, const SqlRow& r, std::string_view previous) {
    std::int64_t seq = ToInt(r[0]);
    json::Sha256Stream hash;
    AppendNetstring(previous, hash);
    AppendNetstring(std::to_string(seq), hash);
    for (std::size_t f = 0; f < std::size(kFields); ++f) {
      std::int64_t length = ToInt(r[1 + 2 * f]);
      const std::string& head = r[2 + 2 * f];
      hash.Add(absl::StrCat(length, ":"));
      hash.Add(head);
      // Chunks are asked for by the engine's unit (bytes, or whole characters: Dialect), and
      // counted in bytes against the length.
      std::int64_t units = Units(head);
      for (std::int64_t read = static_cast<std::int64_t>(head.size()); read < length;) {
        AGENTRT_ASSIGN_OR_RETURN(
            std::vector<SqlRow> chunk,
            Sql::Query(tx, chunk_sql_[f], {seq, units + 1, Store::kMaxPageText}));
        if (chunk.empty() || chunk[0][0].empty()) {
          return absl::DataLossError(absl::StrCat("database ", ToAbsl(path_), ": event seq ", seq,
                                                  " holds fewer bytes of ", ToAbsl(kFields[f]),
                                                  " than its length says"));
        }
        hash.Add(chunk[0][0]);
        read += static_cast<std::int64_t>(chunk[0][0].size());
        units += Units(chunk[0][0]);
      }
      hash.Add(",");
    }
    return hash.HexDigest();
  }

 private:
  static constexpr std::string_view kFields[] = {"run_id", "step_id", "at", "type", "payload_json"};

  // How many of the engine's units `text` holds: bytes, or UTF-8 characters (the bytes that do
  // not continue one).
  std::int64_t Units(std::string_view text) const {
    if (byte_offsets_) return static_cast<std::int64_t>(text.size());
    return std::count_if(text.begin(), text.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  }

  std::string_view path_;
  bool byte_offsets_;
  std::string page_sql_;
  std::vector<std::string> chunk_sql_;
};

constexpr std::string_view kInsertEvent =
    "INSERT INTO events (seq, run_id, step_id, at, type, payload_json, hash) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

}  // namespace

std::int64_t ToInt(std::string_view column) {
  std::int64_t value = 0;
  return absl::SimpleAtoi(ToAbsl(column), &value) ? value : 0;
}

absl::Status Transaction::LoadHead() {
  if (head_loaded_) return absl::OkStatus();
  // The next seq follows both the highest stored seq and the highest ever appended (the
  // high-water mark, or AUTOINCREMENT's memory of it), so a seq is never reused; the newest
  // event's hash is what the next one links to. One statement for both.
  const internal::Dialect& dialect = connection_.dialect();
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                           Query(high_water_ ? dialect.next_seq : dialect.next_seq_autoincrement));
  head_seq_ = ToInt(rows.at(0).at(0));
  head_hash_ = rows.at(0).at(1);
  head_loaded_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Event> Transaction::AppendEvent(std::string_view run_id, std::string_view step_id,
                                               absl::Time at, std::string_view type,
                                               std::string_view payload_json) {
  AGENTRT_RETURN_IF_ERROR(LoadHead());
  Event event;
  event.seq = head_seq_ + 1;
  event.run_id = std::string(run_id);
  event.step_id = std::string(step_id);
  event.at = world::FormatTimestamp(at);
  event.type = std::string(type);
  event.payload_json = payload_json.empty() ? "{}" : std::string(payload_json);
  event.hash = EventHash(head_hash_, EventFields{event.seq, event.run_id, event.step_id, event.at,
                                                 event.type, event.payload_json});
  AGENTRT_RETURN_IF_ERROR(
      connection_
          .Run(kInsertEvent,
               {event.seq, std::string_view(event.run_id), std::string_view(event.step_id),
                std::string_view(event.at), std::string_view(event.type),
                std::string_view(event.payload_json), std::string_view(event.hash)})
          .status());
  head_seq_ = event.seq;
  head_hash_ = event.hash;
  appended_ = true;
  if (keep_events_) events_.push_back(event);  // for the observers, after the commit
  return event;
}

absl::Status Transaction::RaiseHighWater() {
  if (!high_water_ || !appended_) return absl::OkStatus();
  // One statement, which also puts back a row someone deleted (an UPDATE, then an INSERT when
  // it changed nothing, costs more: docs/performance.md).
  return connection_
      .Run(
          "INSERT INTO event_log_high_water (\"only\", seq) VALUES (1, ?1) "
          "ON CONFLICT (\"only\") DO UPDATE SET seq = excluded.seq "
          "WHERE event_log_high_water.seq < excluded.seq",
          {head_seq_})
      .status();
}

absl::StatusOr<std::int64_t> Transaction::Exec(std::string_view sql,
                                               absl::Span<const SqlValue> params) {
  bool may_change_events = false;
  absl::StatusOr<std::int64_t> changed = connection_.Run(sql, params, &may_change_events);
  events_changed_raw_ |= may_change_events;
  return changed;
}

absl::StatusOr<std::vector<SqlRow>> Transaction::Query(std::string_view sql,
                                                       absl::Span<const SqlValue> params) {
  bool may_change_events = false;
  absl::StatusOr<std::vector<SqlRow>> rows = connection_.Query(sql, params, &may_change_events);
  events_changed_raw_ |= may_change_events;
  return rows;
}

Store::Store(std::unique_ptr<Connection> connection, std::string path, bool read_only)
    : connection_(std::move(connection)), path_(std::move(path)), read_only_(read_only) {}

Store::Store(std::unique_ptr<SqliteConnection> connection, std::string path, bool read_only)
    : sqlite_(connection.get()),
      connection_(std::move(connection)),
      path_(std::move(path)),
      read_only_(read_only) {}

Store::~Store() = default;

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path,
                                                   const world::Clock& clock, Schema schema,
                                                   StoreOptions options) {
  AGENTRT_RETURN_IF_ERROR(CheckSchemaNumbering(schema));
  if (IsServerUrl(path)) return OpenOnServer(path, &clock, schema, options, /*read_only=*/false);
  const bool on_os_disk = !options.files_on_vfs;
  if (on_os_disk) {
    if (!options.must_exist) AGENTRT_RETURN_IF_ERROR(CreateIfMissing(path));
    AGENTRT_RETURN_IF_ERROR(SecureFiles(path, /*writer=*/true));
  }
  AGENTRT_ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteConnection> connection,
      SqliteConnection::Open(path, /*read_only=*/false, options.vfs, on_os_disk));
  connection->set_sync_durable_commits(options.durability == Durability::kNormal);
  std::unique_ptr<Store> store(new Store(std::move(connection), path, false));
  {
    absl::MutexLock lock(&store->mu_);
    SqliteConnection& c = *store->sqlite_;
    // The first statement that touches the file: a corrupt file or one that is not a
    // database fails here, with SQLite's reason, before anything is written.
    // A disk that keeps its files itself keeps the rollback journal beside the database
    // (StoreOptions::files_on_vfs).
    AGENTRT_RETURN_IF_ERROR(WithPath(
        path,
        c.ExecRetryingBusy(on_os_disk ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE")));
    AGENTRT_RETURN_IF_ERROR(WithPath(
        path, c.Exec(options.durability == Durability::kFull ? "PRAGMA synchronous=FULL"
                                                             : "PRAGMA synchronous=NORMAL")));
    AGENTRT_RETURN_IF_ERROR(WithPath(path, c.Exec("PRAGMA foreign_keys=ON")));
  }
  AGENTRT_RETURN_IF_ERROR(store->CheckSchema());
  AGENTRT_RETURN_IF_ERROR(store->Migrate(clock, schema));
  AGENTRT_RETURN_IF_ERROR(store->NoteHighWater());
  // WAL and shared-memory files exist now: hold them to the same rules.
  if (on_os_disk) AGENTRT_RETURN_IF_ERROR(SecureFiles(path, /*writer=*/true));
  return store;
}

absl::StatusOr<std::unique_ptr<Store>> Store::OpenExisting(const std::string& path, Schema schema,
                                                           bool read_only,
                                                           std::string_view older_hint) {
  AGENTRT_RETURN_IF_ERROR(CheckSchemaNumbering(schema));
  if (IsServerUrl(path)) {
    AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Store> store,
                             OpenOnServer(path, nullptr, schema, {}, read_only));
    AGENTRT_RETURN_IF_ERROR(store->CheckVersion(schema, older_hint));
    return store;
  }
  AGENTRT_RETURN_IF_ERROR(SecureFiles(path, /*writer=*/!read_only));
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> connection,
                           SqliteConnection::Open(path, read_only));
  if (read_only && !connection->Exec("SELECT count(*) FROM sqlite_schema").ok() &&
      connection->FailedOnAReadOnlyDirectory()) {
    // A WAL database in a directory this process cannot write: SQLite cannot make the -shm a
    // reader needs, so the file is read as one nothing changes while it is open. Nothing is
    // created and no mode changes.
    AGENTRT_ASSIGN_OR_RETURN(connection, SqliteConnection::OpenImmutable(path));
  }
  std::unique_ptr<Store> store(new Store(std::move(connection), path, read_only));
  {
    absl::MutexLock lock(&store->mu_);
    AGENTRT_RETURN_IF_ERROR(WithPath(path, store->sqlite_->Exec("PRAGMA foreign_keys=ON")));
  }
  AGENTRT_RETURN_IF_ERROR(store->CheckSchema());
  AGENTRT_RETURN_IF_ERROR(store->CheckVersion(schema, older_hint));
  AGENTRT_RETURN_IF_ERROR(store->NoteHighWater());
  return store;
}

absl::Status Store::CheckVersion(Schema schema, std::string_view older_hint) const {
  int known = static_cast<int>(schema.size());
  if (schema_version_ == known) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "database ", path_, " is at schema version ", schema_version_, "; this build reads version ",
      known, schema_version_ < known ? ToAbsl(older_hint) : ""));
}

absl::StatusOr<std::unique_ptr<Store>> Store::OpenInMemory(const world::Clock& clock,
                                                           Schema schema) {
  AGENTRT_RETURN_IF_ERROR(CheckSchemaNumbering(schema));
  // On SQLite's memdb disk, not ":memory:": a ":memory:" database lives wholly in its page
  // cache, which a commit after some B-tree balances walks whole, so every commit slowed as the
  // database grew (docs/performance.md, "An in-memory store that keeps growing"). On memdb the
  // page cache is bounded as a file's is; the pages live in memdb's own memory. A name without
  // a leading slash is private to this connection. Its rollback journal is kept in memory too
  // (memdb keeps only the main database; a journal would otherwise go to the process's disk).
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> connection,
                           SqliteConnection::Open("agentrt-in-memory", false, "memdb",
                                                  /*on_os_disk=*/false));
  std::unique_ptr<Store> store(new Store(std::move(connection), ":memory:", false));
  {
    absl::MutexLock lock(&store->mu_);
    AGENTRT_RETURN_IF_ERROR(store->sqlite_->Exec("PRAGMA journal_mode=MEMORY"));
    AGENTRT_RETURN_IF_ERROR(store->sqlite_->Exec("PRAGMA foreign_keys=ON"));
  }
  AGENTRT_RETURN_IF_ERROR(store->Migrate(clock, schema));
  AGENTRT_RETURN_IF_ERROR(store->NoteHighWater());
  return store;
}

// Refuses a schema holding triggers or views (they could run SQL on our writes or disguise
// what a read returns), and reads the schema version.
absl::Status Store::CheckSchema() {
  absl::MutexLock lock(&mu_);
  Transaction tx(*connection_, /*high_water=*/false);
  const internal::Dialect& dialect = connection_->dialect();
  absl::StatusOr<std::vector<SqlRow>> objects = tx.Query(dialect.trigger_or_view);
  if (!objects.ok()) return WithPath(path_, objects.status());
  if (!objects->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("database ", path_, " holds a ", (*objects)[0][0], " named \"",
                     ToAbsl(json::Sanitize((*objects)[0][1])),
                     "\", which agentrt never creates; refusing to use it"));
  }
  absl::StatusOr<std::vector<SqlRow>> table =
      tx.Query(dialect.table_exists, {std::string_view("schema_migrations")});
  if (!table.ok()) return WithPath(path_, table.status());
  if (table->empty()) {
    // A fresh file has no tables at all; anything else without our table is not ours.
    absl::StatusOr<std::vector<SqlRow>> any = tx.Query(dialect.object_count);
    if (!any.ok()) return WithPath(path_, any.status());
    if ((*any)[0][0] != "0") {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", path_, " is not an agentrt database"));
    }
    schema_version_ = 0;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<SqlRow>> version =
      tx.Query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!version.ok()) return WithPath(path_, version.status());
  schema_version_ = ToInt((*version)[0][0]);
  return absl::OkStatus();
}

absl::Status Store::NoteHighWater() {
  bool found = false;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> table,
                             tx.Query(connection_->dialect().table_exists, {kHighWaterTable}));
    found = !table.empty();
    return absl::OkStatus();
  }));
  high_water_ = found;
  return absl::OkStatus();
}

absl::Status Store::Migrate(const world::Clock& clock, Schema schema) {
  // A migration that rebuilds tables others refer to needs foreign keys off around its
  // transaction (SQLite cannot switch them inside one); they are checked before it commits.
  bool rebuilds = false;
  for (const Migration& m : schema) rebuilds |= m.version > schema_version_ && m.rebuilds_tables;
  // A rebuild is SQLite's way to change a table; a server's schema changes its tables in place.
  if (rebuilds && sqlite_ == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("database ", path_, ": a server's migrations never rebuild tables"));
  }
  if (rebuilds) {
    absl::MutexLock lock(&mu_);
    AGENTRT_RETURN_IF_ERROR(WithPath(path_, sqlite_->Exec("PRAGMA foreign_keys=OFF")));
  }
  absl::Status migrated = MigrateInOneTransaction(clock, schema, rebuilds);
  if (rebuilds) {
    absl::MutexLock lock(&mu_);
    absl::Status on = WithPath(path_, sqlite_->Exec("PRAGMA foreign_keys=ON"));
    if (migrated.ok()) migrated = on;
  }
  return migrated;
}

absl::Status Store::MigrateInOneTransaction(const world::Clock& clock, Schema schema,
                                            bool check_foreign_keys) {
  return Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(tx.Exec(connection_->dialect().create_migrations_table).status());
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                             tx.Query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
    int current = ToInt(rows[0][0]);
    int known = static_cast<int>(schema.size());
    if (current > known) {
      return absl::FailedPreconditionError(
          absl::StrCat("database ", path_, " is at schema version ", current,
                       ", newer than this build knows (", known, "); use a newer agentrt"));
    }
    const MigrationContext context{.path = path_, .now = clock.Now()};
    std::string now = world::FormatTimestamp(context.now);
    const bool at_once = current == 0 && !schema.back().baseline.empty();
    if (at_once) {
      AGENTRT_RETURN_IF_ERROR(WithPath(path_, connection_->ExecScript(schema.back().baseline)));
    }
    for (const Migration& m : schema) {
      if (m.version <= current) continue;
      if (!at_once) {
        if (m.precheck != nullptr) AGENTRT_RETURN_IF_ERROR(m.precheck(tx, context));
        AGENTRT_RETURN_IF_ERROR(WithPath(path_, connection_->ExecScript(m.sql)));
        if (m.backfill != nullptr) AGENTRT_RETURN_IF_ERROR(m.backfill(tx, context));
      }
      AGENTRT_RETURN_IF_ERROR(
          tx.Exec("INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
                  {std::int64_t{m.version}, std::string_view(now)})
              .status());
    }
    if (check_foreign_keys) {
      AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> broken,
                               tx.Query("SELECT \"table\", rowid, parent FROM "
                                        "pragma_foreign_key_check LIMIT 1"));
      if (!broken.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("database ", path_, ": migrating it would leave row ", broken[0][1],
                         " of table ", ToAbsl(json::Sanitize(broken[0][0])), " naming a row of ",
                         ToAbsl(json::Sanitize(broken[0][2])),
                         " that does not exist; nothing was changed (the database is as it was)"));
      }
    }
    schema_version_ = known;
    return absl::OkStatus();
  });
}

bool Sql::OnServer(Transaction& tx) { return tx.connection_.dialect().on_server; }

absl::Status Sql::HashStoredEvents(Transaction& tx, std::string_view path) {
  StoredEventPages pages(tx.connection_.dialect(), path);
  std::string previous;
  for (std::int64_t next = 1;;) {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> page,
                             pages.Page(tx, next, std::numeric_limits<std::int64_t>::max()));
    if (page.empty()) return absl::OkStatus();
    for (const SqlRow& e : page) {
      AGENTRT_ASSIGN_OR_RETURN(std::string hash, pages.Hash(tx, e, previous));
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE events SET hash = ?1 WHERE seq = ?2",
                                      {std::string_view(hash), ToInt(e[0])})
                                  .status());
      previous = std::move(hash);
      next = ToInt(e[0]) + 1;
    }
  }
}

absl::Status CheckSchemaNumbering(Schema schema) {
  if (schema.empty()) return absl::InvalidArgumentError("a store's schema has no migration");
  for (std::size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].version != static_cast<int>(i + 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a store's schema numbers its migrations 1, 2, ... in order; migration ", i + 1, " (\"",
          ToAbsl(schema[i].description), "\") is numbered ", schema[i].version));
    }
  }
  return absl::OkStatus();
}

absl::Status Store::Write(absl::FunctionRef<absl::Status(Transaction&)> fn, WriteOptions options) {
  if (read_only_) {
    return absl::FailedPreconditionError(absl::StrCat("database ", path_, " was opened read-only"));
  }
  std::vector<Event> committed;
  std::vector<EventObserver> observers;
  {
    absl::MutexLock lock(&mu_);
    // A server may give a transaction up so that another goes first (a serialization failure or
    // a deadlock): nothing of it was kept, so it is run again whole, a bounded number of times.
    absl::Status status;
    for (int attempt = 1;; ++attempt) {
      status = WriteOnce(fn, options, committed);
      if (status.ok() || attempt >= kWriteAttempts || !connection_->Retryable(status)) break;
    }
    if (!status.ok()) return status;
    observers = observers_;
  }
  for (const Event& event : committed) {
    for (const EventObserver& observer : observers) observer(event);
  }
  return absl::OkStatus();
}

absl::Status Store::WriteOnce(absl::FunctionRef<absl::Status(Transaction&)> fn,
                              WriteOptions options, std::vector<Event>& committed) {
  AGENTRT_RETURN_IF_ERROR(WithPath(path_, connection_->BeginWrite()));
  Transaction tx(*connection_, high_water_);
  tx.keep_events_ = !observers_.empty();
  // The head this store's last write left is the head still, unless another connection has
  // committed since (data_version, read under the write lock, tells) or we lost track. An
  // engine that cannot tell has its head read at every write.
  absl::StatusOr<std::optional<std::int64_t>> version = connection_->DataVersion();
  if (!version.ok()) {
    connection_->Rollback();
    return WithPath(path_, version.status());
  }
  if (*version && head_.valid && head_.data_version == **version) {
    tx.head_loaded_ = true;
    tx.head_seq_ = head_.seq;
    tx.head_hash_ = head_.hash;
  }
  absl::Status status = CallRollingBackOnThrow(*connection_, fn, tx);
  if (status.ok()) status = WithPath(path_, tx.RaiseHighWater());
  if (!status.ok()) {
    // A failed ROLLBACK means the engine already rolled back; the first error is the one to
    // tell.
    connection_->Rollback();
    return status;  // what is remembered is what the database holds again
  }
  // A durable write is on disk before Commit returns, as synchronous=FULL would make it, and
  // every earlier commit with it.
  if (absl::Status done = connection_->Commit(options.durable); !done.ok()) {
    // Not committed (rolled back), or committed but perhaps not durable: either way the write
    // failed for its caller, and the head is read again from what the database holds.
    connection_->Rollback();
    head_.valid = false;
    return WithPath(path_, done);
  }
  // Our own commits leave data_version as it was.
  if (tx.events_changed_raw_ || !*version) {
    head_.valid = false;
  } else if (tx.head_loaded_) {
    head_ = {.valid = true, .data_version = **version, .seq = tx.head_seq_, .hash = tx.head_hash_};
  } else if (head_.valid && head_.data_version != **version) {
    head_.valid = false;  // another connection wrote, and this write did not read the head
  }
  committed = std::move(tx.events_);
  return absl::OkStatus();
}

absl::Status Store::Read(absl::FunctionRef<absl::Status(Transaction&)> fn) {
  absl::MutexLock lock(&mu_);
  AGENTRT_RETURN_IF_ERROR(WithPath(path_, connection_->BeginRead()));
  Transaction tx(*connection_, high_water_);
  absl::Status status = CallRollingBackOnThrow(*connection_, fn, tx);
  connection_->EndRead();
  return status;
}

void Store::AddObserver(EventObserver observer) {
  absl::MutexLock lock(&mu_);
  observers_.push_back(std::move(observer));
}

absl::StatusOr<std::vector<Event>> Store::ListEvents(std::string_view run_id) {
  std::vector<Event> events;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT seq, run_id, step_id, at, type, payload_json, hash FROM events "
                 "WHERE ?1 = '' OR run_id = ?1 ORDER BY seq",
                 {run_id}));
    for (SqlRow& r : rows) {
      events.push_back(Event{ToInt(r[0]), std::move(r[1]), std::move(r[2]), std::move(r[3]),
                             std::move(r[4]), std::move(r[5]), std::move(r[6])});
    }
    return absl::OkStatus();
  }));
  return events;
}

absl::Status Store::CheckPage(std::int64_t limit, std::int64_t offset) {
  if (limit < 1 || offset < 0) {
    return absl::InvalidArgumentError("a page needs limit >= 1 and offset >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<Store::EventPage> Store::ListEventsPage(std::string_view run_id, std::int64_t limit,
                                                       std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(CheckPage(limit, offset));
  EventPage page;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> count,
                             tx.Query("SELECT COUNT(*) FROM events WHERE run_id = ?1", {run_id}));
    page.total = ToInt(count[0][0]);
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query(absl::StrCat("SELECT ", CappedEventColumns(connection_->dialect(), 4),
                              " FROM events WHERE run_id = ?1 ORDER BY seq LIMIT ?2 OFFSET ?3"),
                 {run_id, limit, offset, kMaxPageText}));
    for (SqlRow& r : rows) page.events.push_back(CappedEvent(r, kMaxPageText));
    return absl::OkStatus();
  }));
  return page;
}

absl::StatusOr<std::vector<Event>> Store::ListEventsAfter(std::string_view run_id,
                                                          std::int64_t after_seq,
                                                          std::int64_t limit) {
  if (limit < 1 || after_seq < 0) {
    return absl::InvalidArgumentError(absl::StrCat("reading events after seq ", after_seq,
                                                   " needs limit >= 1 (got ", limit,
                                                   ") and a seq >= 0"));
  }
  limit = std::min(limit, kMaxEventsAfter);
  std::vector<Event> events;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    // Two statements, so each uses its index: the primary key for every run, events_run for one.
    // Each names every value it is given (a server must know each one's type).
    const internal::Dialect& dialect = connection_->dialect();
    absl::StatusOr<std::vector<SqlRow>> read =
        run_id.empty()
            ? tx.Query(absl::StrCat("SELECT ", CappedEventColumns(dialect, 3),
                                    " FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2"),
                       {after_seq, limit, kMaxPageText})
            : tx.Query(absl::StrCat("SELECT ", CappedEventColumns(dialect, 4),
                                    " FROM events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq "
                                    "LIMIT ?3"),
                       {run_id, after_seq, limit, kMaxPageText});
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows, std::move(read));
    events.reserve(rows.size());
    for (SqlRow& r : rows) events.push_back(CappedEvent(r, kMaxPageText));
    return absl::OkStatus();
  }));
  return events;
}

absl::StatusOr<std::string> Store::StoredHash(std::int64_t seq) {
  std::string hash;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query(absl::StrCat("SELECT ", connection_->dialect().slice("hash", "1", "128"),
                              " FROM events WHERE seq = ?1"),
                 {seq}));
    if (rows.empty()) {
      return absl::NotFoundError(absl::StrCat("no event has seq ", seq, " in database ", path_));
    }
    hash = std::move(rows[0][0]);
    return absl::OkStatus();
  }));
  return hash;
}

absl::StatusOr<ChainHead> Store::Head() {
  ChainHead head;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                             tx.Query("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"));
    if (!rows.empty()) head = {ToInt(rows[0][0]), rows[0][1]};
    return absl::OkStatus();
  }));
  return head;
}

absl::StatusOr<ChainReport> Store::VerifyEvents(std::int64_t from, std::int64_t to) {
  // A page holds each field's first kVerifyInline bytes; the rest of a longer one is read
  // inside SQLite a chunk at a time.
  StoredEventPages pages(connection_->dialect(), path_);
  ChainReport report;
  const bool whole = from <= 1 && to < 1;
  AGENTRT_RETURN_IF_ERROR(Read([&](Transaction& tx) -> absl::Status {
    if (from < 1) from = 1;
    if (to < 1) {
      AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> head,
                               tx.Query("SELECT COALESCE(MAX(seq), 0) FROM events"));
      to = ToInt(head[0][0]);
    }
    report.from = from;
    report.to = to;
    std::string previous;
    std::int64_t previous_seq = 0;
    if (from > 1) {
      AGENTRT_ASSIGN_OR_RETURN(
          std::vector<SqlRow> before,
          tx.Query(absl::StrCat("SELECT seq, ", connection_->dialect().slice("hash", "1", "128"),
                                " FROM events WHERE seq < ?1 ORDER BY seq DESC LIMIT 1"),
                   {from}));
      if (!before.empty()) {
        previous_seq = ToInt(before[0][0]);
        previous = before[0][1];
      }
    }
    std::int64_t next = from;
    while (next <= to && !report.broken) {
      AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows, pages.Page(tx, next, to));
      if (rows.empty()) break;
      for (const SqlRow& r : rows) {
        std::int64_t seq = ToInt(r[0]);
        bool first = report.checked == 0;
        if (first && from == 1 && seq != 1) {
          report.broken = ChainBreak{
              seq, "", "", absl::StrCat("the first event is seq ", seq, ": an event is missing")};
          break;
        }
        if (previous_seq != 0 && seq != previous_seq + 1) {
          report.broken = ChainBreak{
              seq, "", "",
              absl::StrCat("seq ", seq, " follows ", previous_seq, ": an event is missing")};
          break;
        }
        AGENTRT_ASSIGN_OR_RETURN(std::string expected, pages.Hash(tx, r, previous));
        const std::string& stored = r[StoredEventPages::kHashColumn];
        if (expected != stored) {
          report.broken = ChainBreak{seq, expected, stored,
                                     "the stored hash is not the one the event's fields and the "
                                     "previous event's hash give"};
          break;
        }
        ++report.checked;
        report.hash = stored;
        previous = stored;
        previous_seq = seq;
        next = seq + 1;
      }
    }
    if (whole && high_water_ && !report.broken) {
      AGENTRT_ASSIGN_OR_RETURN(
          std::vector<SqlRow> mark,
          tx.Query(
              "SELECT COALESCE((SELECT seq FROM event_log_high_water WHERE \"only\" = 1), 0)"));
      std::int64_t reached = ToInt(mark[0][0]);
      if (reached > previous_seq) {
        report.broken = ChainBreak{
            previous_seq + 1, "", "",
            absl::StrCat("the log once reached seq ", reached,
                         previous_seq == 0
                             ? ", but it holds no event"
                             : absl::StrCat(", but its newest event is seq ", previous_seq),
                         ": the events after it are missing")};
      }
    }
    return absl::OkStatus();
  }));
  return report;
}

}  // namespace agentrt::store
