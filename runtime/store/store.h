// runtime/store/store.h
//
// The store: the state of every run (tables) and the append-only, hash-chained event log that
// explains it, in one SQLite file or, named by a postgres:// URL, one PostgreSQL database
// (its engine behind internal/connection.h; ADR 29, docs/scale-out.md). The core invariant: a state
// change and its events are written in ONE transaction (Store::Write); observers see a
// transaction's events only after it committed, in order.
//
// On a file, opening is careful with it: a new database is created 0600; a database, WAL or
// shared-memory file that is a symbolic link, readers and writers alike (never followed, not
// even in a race: SQLite opens every file O_NOFOLLOW), or is writable by group or
// others, or a sidecar that is not a regular file or belongs to another user, is refused; a
// writer tightens a file readable by others to 0600. A
// database from a newer schema version is refused by name; a corrupt one is refused with
// SQLite's reason and never rewritten; a schema holding triggers or views is refused.
//
// Durability is a setting (docs/formats/database.md): kNormal (synchronous=NORMAL in WAL: a
// committed transaction survives a crash of the process; the last commits may be lost on power
// loss or an OS crash, never corrupting the file) or kFull (synchronous=FULL: every commit is
// on disk before Write returns). Under kNormal a single write can still ask to be durable
// (WriteOptions::durable): its commit is synced, and in WAL mode every earlier commit with it.
//
// On a server the same holds by the server's means: durability per commit through
// synchronous_commit, every writer serialized by one lock of its schema, so processes on many
// hosts extend one chain (internal/postgres.h).
//
// Thread-safe: one connection, serialized by a mutex. Several processes may share one file;
// IMMEDIATE transactions make their writes extend one chain.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "runtime/store/chain_head.h"
#include "runtime/store/schema.h"
#include "runtime/world/clock.h"

namespace agentrt::store {

namespace internal {
class Connection;
class SqliteConnection;
}  // namespace internal

enum class Durability { kNormal, kFull };

struct StoreOptions {
  Durability durability = Durability::kNormal;
  // The SQLite VFS the file is opened through; "" for SQLite's default. Tests use a
  // fault-injecting one to prove what survives a power cut.
  std::string vfs;
  // The VFS keeps its files itself, in memory (the simulator's disk, sim/sim_disk.h): the path is
  // a name on it, not the operating system's, so none of the checks on the file's name and mode
  // is made, and the rollback journal is a file on that disk beside the database
  // (journal_mode=DELETE; WAL needs shared memory, which such a disk has not), so a write or sync
  // that fails mid-commit, or a power cut, is rolled back from it as on a real disk.
  bool files_on_vfs = false;
  // Open refuses a file that does not exist (NotFound naming it) instead of creating it: for a
  // caller that migrates a database an operator named.
  bool must_exist = false;
};

struct WriteOptions {
  // The commit is on disk before Write returns, whatever the store's durability — and in WAL
  // mode, so is every commit before it. For the record that a call whose effect cannot be taken
  // back has started: losing it to a power cut would let the call run again unnoticed.
  bool durable = false;
};

struct Event {
  std::int64_t seq = 0;
  std::string run_id;
  std::string step_id;  // "" for run-level events
  std::string at;       // stored timestamp text (runtime/world/timestamp.h)
  std::string type;
  std::string payload_json;
  std::string hash;
};

struct ChainBreak {
  std::int64_t seq = 0;
  std::string expected;
  std::string found;
  std::string detail;
};

struct ChainReport {
  std::int64_t from = 0;
  std::int64_t to = 0;
  std::int64_t checked = 0;
  std::string hash;  // stored hash of the last event checked
  std::optional<ChainBreak> broken;
};

using EventObserver = std::function<void(const Event&)>;

// A value bound to a statement parameter.
using SqlValue = std::variant<std::int64_t, std::string_view>;

// A row read by a query (runtime/store/internal/sql.h): columns as text (integers in decimal).
using SqlRow = std::vector<std::string>;

// ToInt reads an integer column of a SqlRow. A database is untrusted input: a column someone
// rewrote to text that is not an integer reads as 0 rather than ending the process.
std::int64_t ToInt(std::string_view column);

class Transaction {
 public:
  // AppendEvent assigns the next seq (head + 1, so a rolled-back write leaves no gap and a gap
  // means deletion), computes the chain hash, and inserts the event. An empty payload is "{}".
  absl::StatusOr<Event> AppendEvent(std::string_view run_id, std::string_view step_id,
                                    absl::Time at, std::string_view type,
                                    std::string_view payload_json);

 private:
  friend class Store;
  friend class Sql;  // runtime/store/internal/sql.h: raw statements, for runtime/records/ and tests
                     // only
  absl::StatusOr<std::int64_t> Exec(std::string_view sql, absl::Span<const SqlValue> params = {});
  absl::StatusOr<std::vector<SqlRow>> Query(std::string_view sql,
                                            absl::Span<const SqlValue> params = {});
  Transaction(internal::Connection& connection, bool high_water)
      : connection_(connection), high_water_(high_water) {}
  absl::Status LoadHead();
  // Writes the high-water mark when this transaction appended events (schema.h).
  absl::Status RaiseHighWater();

  internal::Connection& connection_;
  const bool high_water_;  // the schema keeps the event log's high-water mark (schema.h)
  bool appended_ = false;  // AppendEvent ran
  bool head_loaded_ = false;
  std::int64_t head_seq_ = 0;
  std::string head_hash_;
  bool events_changed_raw_ = false;  // a statement other than AppendEvent's wrote to events
  bool keep_events_ = false;         // the store has observers: they get the events once committed
  std::vector<Event> events_;
};

// Whether `path` names a database on a PostgreSQL server (a postgres:// or postgresql:// URL,
// libpq's form: docs/scale-out.md) rather than a SQLite file.
bool IsServerUrl(std::string_view path);

// RedactedUrl is `url` with any password in it replaced by "***": how a store names a server's
// database in its errors and in path().
std::string RedactedUrl(std::string_view url);

// CreateServerSchema creates the schema `schema` in the server database `url` names, and returns
// a URL naming it (`url` with the schema as its search_path): a store opened on that URL keeps
// its tables there. `schema` is [a-z_][a-z0-9_]* of at most 63 characters. Errors:
// InvalidArgument for another name, AlreadyExists when the schema exists, the connection's.
absl::StatusOr<std::string> CreateServerSchema(const std::string& url, std::string_view schema);

class Store {
 public:
  // Open opens the database at `path` for writing, creating it (0600) and applying the
  // migrations of `schema` it lacks (runtime/store/schema.h; agentrt's tables are
  // runtime/records/schema.h's, opened by records::OpenStore); never its folder. A server URL
  // (IsServerUrl) opens that database, and `schema` must then be written in PostgreSQL's words
  // (records::SchemaFor picks agentrt's). Refuses a
  // symlink (name the file itself), dangling or not, and a database at a later version than
  // `schema` knows. `clock` stamps migrations and must outlive the call.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path,
                                                     const world::Clock& clock, Schema schema,
                                                     StoreOptions options = {});
  // OpenExisting opens an existing database without creating or migrating it; a read-only
  // store never writes. Refuses a symlink (name the file itself) and a database at any other
  // version than the last of `schema`; the refusal of an older one ends with `older_hint` (how
  // the caller's users bring it up to date), when given.
  static absl::StatusOr<std::unique_ptr<Store>> OpenExisting(const std::string& path, Schema schema,
                                                             bool read_only,
                                                             std::string_view older_hint = "");
  // OpenInMemory is a private database holding `schema`, for tests.
  static absl::StatusOr<std::unique_ptr<Store>> OpenInMemory(const world::Clock& clock,
                                                             Schema schema);

  ~Store();

  // Write runs `fn` in one IMMEDIATE transaction: committed if it returns OK, rolled back
  // otherwise (its error returned) or if it throws (the exception propagates). After a
  // commit, observers receive its events in order.
  absl::Status Write(absl::FunctionRef<absl::Status(Transaction&)> fn, WriteOptions options = {});
  // Read runs `fn` in a read transaction (a consistent snapshot).
  absl::Status Read(absl::FunctionRef<absl::Status(Transaction&)> fn);

  void AddObserver(EventObserver observer);

  // ListEvents returns a run's events in seq order ("" for every run).
  absl::StatusOr<std::vector<Event>> ListEvents(std::string_view run_id);

  // A page of a run's events for showing to a person: at most `limit` events from `offset`,
  // the total from COUNT, and any payload longer than kMaxPageText characters replaced by
  // {"truncated":true,"length":N,"head":"<first kMaxPageText characters>"} (still JSON; the
  // hash is the stored one). Only the page is read. Errors: InvalidArgument for limit < 1 or
  // offset < 0.
  static constexpr std::int64_t kMaxPageText = 65536;
  // CheckPage: InvalidArgument unless limit >= 1 and offset >= 0.
  static absl::Status CheckPage(std::int64_t limit, std::int64_t offset);
  struct EventPage {
    std::vector<Event> events;
    std::int64_t total = 0;
  };
  absl::StatusOr<EventPage> ListEventsPage(std::string_view run_id, std::int64_t limit,
                                           std::int64_t offset);
  // ListEventsAfter is the follower's read (runtime/observe/export/follower.h): the events with
  // seq > `after_seq`, of one run or of every run (`run_id` ""), in seq order — commit order —
  // at most `limit` of them, and never more than kMaxEventsAfter (a larger limit is cut to it).
  // Payloads over kMaxPageText characters are capped as ListEventsPage caps them; the hash is
  // the stored one. Errors: InvalidArgument for limit < 1 or after_seq < 0.
  static constexpr std::int64_t kMaxEventsAfter = 10000;
  absl::StatusOr<std::vector<Event>> ListEventsAfter(std::string_view run_id,
                                                     std::int64_t after_seq, std::int64_t limit);
  // StoredHash is the stored hash of event `seq` (at most 128 characters of it, as a
  // ChainBreak's `found`). Errors: NotFound when no event has that seq.
  absl::StatusOr<std::string> StoredHash(std::int64_t seq);
  // VerifyEvents walks the chain over [from, to] (from < 1 means 1, to < 1 the current head)
  // and reports the first break: a missing seq, or a stored hash that is not the one the
  // fields and the previous hash give (`found` is the stored hash cut to 128 characters). For a
  // range not starting at 1 the chain starts from the stored hash of the event before `from`.
  // A whole walk (from 1 to the head) also reports a log whose newest events are gone: a
  // high-water mark (schema.h) past the newest seq. Writes nothing. Runs in bounded memory on a
  // database of any size: events are read 128 at a time, and a field longer than 4096 bytes is read
  // and hashed in chunks of at most kMaxPageText bytes, never whole.
  absl::StatusOr<ChainReport> VerifyEvents(std::int64_t from = 1, std::int64_t to = 0);
  // Head is the seq and hash of the newest event, (0, "") when there is none.
  absl::StatusOr<ChainHead> Head();

  int schema_version() const { return schema_version_; }
  const std::string& path() const { return path_; }

 private:
  // A write the server gave up to let another go first is run again, at most this many times in
  // all.
  static constexpr int kWriteAttempts = 8;

  Store(std::unique_ptr<internal::Connection> connection, std::string path, bool read_only);
  Store(std::unique_ptr<internal::SqliteConnection> connection, std::string path, bool read_only);
  // Opens the database at a server URL (runtime/store/postgres/open.cc): `clock` null opens an
  // existing one without migrating it.
  static absl::StatusOr<std::unique_ptr<Store>> OpenOnServer(const std::string& url,
                                                             const world::Clock* clock,
                                                             Schema schema,
                                                             const StoreOptions& options,
                                                             bool read_only);
  // One attempt of Write.
  absl::Status WriteOnce(absl::FunctionRef<absl::Status(Transaction&)> fn, WriteOptions options,
                         std::vector<Event>& committed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // OK when the database is at `schema`'s last version; FailedPrecondition naming both
  // otherwise, ending with `older_hint` when it is older.
  absl::Status CheckVersion(Schema schema, std::string_view older_hint) const;
  absl::Status Migrate(const world::Clock& clock, Schema schema);
  absl::Status MigrateInOneTransaction(const world::Clock& clock, Schema schema,
                                       bool check_foreign_keys);
  absl::Status CheckSchema();
  // Reads whether the schema keeps the event log's high-water mark.
  absl::Status NoteHighWater();

  absl::Mutex mu_;
  // The connection as a SQLite one, for what only a file has (pragmas, its journal); null on a
  // server.
  internal::SqliteConnection* sqlite_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::unique_ptr<internal::Connection> connection_ ABSL_GUARDED_BY(mu_);
  // The chain's head as this store's last write left it, and SQLite's data_version then: while
  // no other connection has committed since (data_version unchanged) and no statement of ours
  // wrote to events other than by AppendEvent, a write starts from it instead of reading it.
  struct RememberedHead {
    bool valid = false;
    std::int64_t data_version = 0;
    std::int64_t seq = 0;
    std::string hash;
  };
  RememberedHead head_ ABSL_GUARDED_BY(mu_);
  std::vector<EventObserver> observers_ ABSL_GUARDED_BY(mu_);
  std::string path_;
  bool read_only_;
  int schema_version_ = 0;
  bool high_water_ = false;  // NoteHighWater
};

}  // namespace agentrt::store
