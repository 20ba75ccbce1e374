#include "runtime/store/store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/file_util.h"
#include "runtime/json/intake.h"
#include "runtime/json/sha256.h"
#include "runtime/records/schema.h"
#include "runtime/store/event_chain.h"
#include "runtime/store/internal/sqlite.h"
#include "runtime/world/clock.h"
#include "runtime/world/timestamp.h"
#include "tests/support/largest_allocation.h"
#include "tests/support/old_database.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"

namespace agentrt::store {
namespace {

namespace fs = std::filesystem;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    path_ = (dir_ / "audit.db").string();
  }

  std::unique_ptr<Store> OpenOrDie(StoreOptions options = {}) {
    absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_, options);
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Writes a run row and `events` events for it in one transaction.
  static void WriteRun(Store& store, const std::string& run, int events) {
    ASSERT_OK(store.Write([&](Transaction& tx) -> absl::Status {
      absl::StatusOr<std::int64_t> inserted =
          test_support::TamperIn(tx, "a run and its events",
                                 "INSERT INTO runs (id, goal, status, limits_json, created_at) "
                                 "VALUES (?1, 'g', 'RUNNING', '{}', '')",
                                 {std::string_view(run)});
      if (!inserted.ok()) return inserted.status();
      for (int i = 0; i < events; ++i) {
        absl::StatusOr<Event> e = tx.AppendEvent(run, "", kStart + absl::Seconds(i), "test.event",
                                                 "{\"i\":" + std::to_string(i) + "}");
        if (!e.ok()) return e.status();
      }
      return absl::OkStatus();
    }));
  }

  absl::Status Tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path_.c_str(), &db);
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    sqlite3_free(error);
    sqlite3_close(db);
    return rc == SQLITE_OK ? absl::OkStatus() : absl::InternalError(sql);
  }

  fs::path dir_;
  std::string path_;
  world::ManualClock clock_{kStart};
};

TEST(EventChainTest, HashIsSha256OfSevenNetstrings) {
  std::string first = EventHash("", EventFields{1, "run1", "", "2026-11-29T21:45:00.000000000Z",
                                                "run.created", R"({"goal":"g"})"});
  EXPECT_EQ(first, "5bc350002a5afd6aeb5aa39d504e10641c4779f59312ee4a6120036ea0be0434");
  EXPECT_EQ(EventHash(first, EventFields{2, "run1", "s1", "2026-11-29T21:45:01.000000000Z",
                                         "step.started", R"({"index":0})"}),
            "1fff440a60c63d3afe8b545c57cef8cfb8e7dc2e01ca8d84e9a65ddd63481e8c");
  // Netstrings keep field boundaries: moving a byte between fields changes the hash.
  EXPECT_NE(EventHash("", EventFields{1, "ab", "c", "", "", ""}),
            EventHash("", EventFields{1, "a", "bc", "", "", ""}));
}

TEST_F(StoreTest, NewDatabaseFileIsCreatedOwnerOnly) {
  auto store = OpenOrDie();
  struct stat st;
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(store->schema_version(), 8);
}

TEST_F(StoreTest, EventsSurviveCloseAndReopenAndTheChainVerifies) {
  {
    auto store = OpenOrDie();
    WriteRun(*store, "run-a", 3);
    WriteRun(*store, "run-b", 2);
  }
  auto store = OpenOrDie();
  absl::StatusOr<std::vector<Event>> all = store->ListEvents("");
  ASSERT_OK(all);
  ASSERT_THAT(*all, SizeIs(5));
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*all)[i].seq, i + 1);
  EXPECT_THAT(*store->ListEvents("run-b"), SizeIs(2));
  EXPECT_EQ((*all)[0].at, "2027-01-15T08:00:00.000000000Z");
  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 5);
  EXPECT_EQ(report->hash, (*all)[4].hash);
  EXPECT_EQ(store->Head()->seq, 5);
  // One chain across runs: run-b's first event follows run-a's last.
  EXPECT_EQ((*all)[3].hash, EventHash((*all)[2].hash, EventFields{4, "run-b", "", (*all)[3].at,
                                                                  "test.event", R"({"i":0})"}));
}

TEST_F(StoreTest, ChangedPayloadBreaksTheChainAtThatEvent) {
  WriteRun(*OpenOrDie(), "run-a", 4);
  ASSERT_OK(Tamper("UPDATE events SET payload_json = '{\"i\":99}' WHERE seq = 3"));
  absl::StatusOr<ChainReport> report = OpenOrDie()->VerifyEvents();
  ASSERT_OK(report);
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 3);
  EXPECT_EQ(report->checked, 2);
  EXPECT_THAT(report->broken->detail, HasSubstr("stored hash is not the one"));
}

TEST_F(StoreTest, DeletedEventIsAGap) {
  WriteRun(*OpenOrDie(), "run-a", 4);
  ASSERT_OK(Tamper("DELETE FROM events WHERE seq = 2"));
  absl::StatusOr<ChainReport> report = OpenOrDie()->VerifyEvents();
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 3);
  EXPECT_EQ(report->broken->detail, "seq 3 follows 1: an event is missing");
  ASSERT_OK(Tamper("DELETE FROM events WHERE seq = 1"));
  EXPECT_EQ(OpenOrDie()->VerifyEvents()->broken->detail,
            "the first event is seq 3: an event is missing");
}

TEST_F(StoreTest, DeletingTheNewestEventNeverReusesItsSeq) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 2);
  ASSERT_OK(Tamper("DELETE FROM events WHERE seq = 2"));
  WriteRun(*store, "run-b", 1);
  EXPECT_EQ((*store->ListEvents("run-b"))[0].seq, 3);
  EXPECT_TRUE(store->VerifyEvents()->broken.has_value());
}

// A store remembers the head its last write left rather than reading it again: another
// connection's commit in between is noticed, and the next event follows that one's.
TEST_F(StoreTest, AnotherConnectionsCommitIsSeenBeforeTheNextAppend) {
  auto a = OpenOrDie();
  auto b = OpenOrDie();
  WriteRun(*a, "run-a", 2);
  WriteRun(*b, "run-b", 2);
  WriteRun(*a, "run-c", 1);
  absl::StatusOr<std::vector<Event>> all = a->ListEvents("");
  ASSERT_OK(all);
  ASSERT_THAT(*all, SizeIs(5));
  EXPECT_EQ((*all)[4].seq, 5);
  EXPECT_EQ((*all)[4].hash, EventHash((*all)[3].hash, EventFields{5, "run-c", "", (*all)[4].at,
                                                                  "test.event", R"({"i":0})"}));
  EXPECT_FALSE(a->VerifyEvents()->broken.has_value());
}

// A statement of a write that changes the events table itself (not by AppendEvent) makes the
// store read the head again: the next event links to the newest event there is.
TEST_F(StoreTest, ARawChangeToEventsInAWriteIsNeverTakenForTheHead) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 2);
  ASSERT_OK(test_support::Tamper(*store, "the newest event deleted behind the store's back",
                                 "DELETE FROM events WHERE seq = 2"));
  WriteRun(*store, "run-b", 1);
  absl::StatusOr<std::vector<Event>> all = store->ListEvents("");
  ASSERT_OK(all);
  ASSERT_THAT(*all, SizeIs(2));
  EXPECT_EQ((*all)[1].seq, 3);  // never reused
  EXPECT_EQ((*all)[1].hash, EventHash((*all)[0].hash, EventFields{3, "run-b", "", (*all)[1].at,
                                                                  "test.event", R"({"i":0})"}));
}

TEST_F(StoreTest, RolledBackWriteLeavesNothingAndNoGap) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 1);
  std::vector<std::int64_t> seen;
  store->AddObserver([&](const Event& e) { seen.push_back(e.seq); });
  absl::Status failed = store->Write([&](Transaction& tx) -> absl::Status {
    if (absl::StatusOr<Event> e = tx.AppendEvent("run-a", "", kStart, "x", "{}"); !e.ok()) {
      return e.status();
    }
    return absl::AbortedError("the state change could not be made");
  });
  EXPECT_EQ(failed.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(seen, ::testing::IsEmpty());
  EXPECT_THAT(*store->ListEvents(""), SizeIs(1));
  WriteRun(*store, "run-b", 2);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{2, 3}));
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
}

TEST_F(StoreTest, ExceptionInsideATransactionRollsBackAndPropagates) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 1);
  EXPECT_THROW((void)store->Write([&](Transaction& tx) -> absl::Status {
    tx.AppendEvent("run-a", "", kStart, "x", "{}").IgnoreError();
    throw std::runtime_error("consumer bug");
  }),
               std::runtime_error);
  EXPECT_THAT(*store->ListEvents(""), SizeIs(1));
  WriteRun(*store, "run-b", 1);  // the connection is usable again
  EXPECT_EQ((*store->ListEvents("run-b"))[0].seq, 2);
}

TEST_F(StoreTest, PathsWithUriCharactersOpenTheNamedFile) {
  std::string odd = (dir_ / "a?b#c%d.db").string();
  ASSERT_OK(records::OpenStore(odd, clock_));
  EXPECT_TRUE(fs::exists(odd));
  EXPECT_FALSE(fs::exists(dir_ / "a"));
}

TEST_F(StoreTest, ConcurrentFirstOpensBothSucceedAndMigrateOnce) {
  absl::Status first, second;
  std::thread a([&] { first = records::OpenStore(path_, clock_).status(); });
  std::thread b([&] { second = records::OpenStore(path_, clock_).status(); });
  a.join();
  b.join();
  EXPECT_OK(first);
  EXPECT_OK(second);
  auto store = OpenOrDie();
  std::string count;
  ASSERT_OK(store->Read([&](Transaction& tx) -> absl::Status {
    count = (*test_support::PeekIn(tx, "the migrations' record",
                                   "SELECT COUNT(*) FROM schema_migrations"))[0][0];
    return absl::OkStatus();
  }));
  EXPECT_EQ(count, "8");
}

TEST_F(StoreTest, FilesAreOwnerOnlyUnderAPermissiveUmask) {
  mode_t old = ::umask(0);
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 1);
  ::umask(old);
  for (const std::string& file : {path_, path_ + "-wal", path_ + "-shm"}) {
    struct stat st;
    if (::stat(file.c_str(), &st) != 0) continue;
    SCOPED_TRACE(file);
    EXPECT_EQ(st.st_mode & 077, 0u);
  }
}

TEST_F(StoreTest, ReaderSeesALiveWritersCommits) {
  auto writer = OpenOrDie();
  WriteRun(*writer, "run-a", 2);
  absl::StatusOr<std::unique_ptr<Store>> reader = records::OpenExistingStore(path_, true);
  ASSERT_OK(reader);
  EXPECT_THAT(*(*reader)->ListEvents(""), SizeIs(2));
  WriteRun(*writer, "run-b", 1);
  EXPECT_THAT(*(*reader)->ListEvents(""), SizeIs(3));
}

TEST_F(StoreTest, VerifyingARangeStartsFromThePreviousStoredHash) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 6);
  absl::StatusOr<ChainReport> report = store->VerifyEvents(3, 5);
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 3);
  EXPECT_EQ(report->hash, (*store->ListEvents(""))[4].hash);
}

// SQLite's text functions stop at a NUL: a stored hash edited to the right hash, a NUL and
// anything after it must not read as the right hash (the chain's next write uses every byte).
TEST_F(StoreTest, AStoredHashWithANulAndMoreAfterTheRightHashIsABreak) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 3);
  std::string right = *store->StoredHash(3);
  ASSERT_OK(Tamper("UPDATE events SET hash = hash || char(0) || 'junk' WHERE seq = 3"));
  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  ASSERT_OK(report);
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 3);
  EXPECT_EQ(report->broken->expected, right);
  EXPECT_EQ(*store->StoredHash(3), right + std::string(1, '\0') + "junk");
}

TEST_F(StoreTest, ConcurrentWritersOnOneFileExtendOneChain) {
  auto first = OpenOrDie();
  auto second = OpenOrDie();
  std::thread a([&] {
    for (int i = 0; i < 20; ++i) WriteRun(*first, "a" + std::to_string(i), 3);
  });
  std::thread b([&] {
    for (int i = 0; i < 20; ++i) WriteRun(*second, "b" + std::to_string(i), 3);
  });
  a.join();
  b.join();
  absl::StatusOr<ChainReport> report = first->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value()) << report->broken->detail;
  EXPECT_EQ(report->checked, 120);
}

// Every write transaction is IMMEDIATE: it holds the write lock from BEGIN, before it reads, so
// a transaction that reads then writes cannot find its snapshot overtaken by another writer's
// commit (SQLITE_BUSY_SNAPSHOT, which no busy handler retries). Another connection cannot
// even begin a write while it is open; a rival writer waits and then goes on from its commit.
TEST_F(StoreTest, ReadThenWriteTransactionsHoldTheWriteLockSoRivalsWait) {
  auto first = OpenOrDie();
  auto second = OpenOrDie();
  WriteRun(*first, "seed", 1);
  std::thread rival;
  absl::Status rival_write;
  ASSERT_OK(first->Write([&](Transaction& tx) -> absl::Status {
    // Read first, as the driver's guards do.
    absl::StatusOr<std::vector<SqlRow>> runs =
        test_support::PeekIn(tx, "the runs", "SELECT count(*) FROM runs");
    if (!runs.ok()) return runs.status();
    // A connection that will not wait cannot begin a write now.
    sqlite3* probe = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &probe), SQLITE_OK);
    sqlite3_busy_timeout(probe, 0);
    EXPECT_EQ(sqlite3_exec(probe, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_BUSY);
    sqlite3_close(probe);
    // A rival store's write waits for this one rather than fail.
    rival = std::thread([&] {
      rival_write = second->Write([](Transaction& tx) {
        return tx.AppendEvent("seed", "", kStart, "rival", "{}").status();
      });
    });
    return tx.AppendEvent("seed", "", kStart, "first", (*runs)[0][0]).status();
  }));
  rival.join();
  EXPECT_OK(rival_write);
  std::vector<Event> events = *first->ListEvents("seed");
  ASSERT_THAT(events, SizeIs(3));
  EXPECT_EQ(events[1].type, "first");  // the rival's write came after the commit it waited for
  EXPECT_EQ(events[2].type, "rival");
  EXPECT_FALSE(first->VerifyEvents()->broken.has_value());
}

TEST_F(StoreTest, NewerSchemaVersionIsRefusedByName) {
  OpenOrDie();
  ASSERT_OK(Tamper("INSERT INTO schema_migrations VALUES (9, '')"));
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_);
  ASSERT_THAT(store, StatusIs(absl::StatusCode::kFailedPrecondition,
                              HasSubstr("is at schema version 9, newer than this build")));
  EXPECT_THAT(records::OpenExistingStore(path_, true).status().message(),
              HasSubstr("is at schema version 9; this build reads version 8"));
}

TEST_F(StoreTest, CorruptFileIsRefusedWithSqlitesReasonAndLeftAlone) {
  std::string garbage(8192, 'x');
  { std::ofstream(path_, std::ios::binary) << garbage; }
  ::chmod(path_.c_str(), 0600);
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_);
  ASSERT_THAT(store, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("file is not a database")));
  EXPECT_THAT(store.status().message(), HasSubstr(path_));
  std::ifstream in(path_, std::ios::binary);
  std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, garbage);
}

TEST_F(StoreTest, GroupWritableFileIsRefusedAndOthersReadableIsTightened) {
  OpenOrDie();
  ::chmod(path_.c_str(), 0620);
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_);
  ASSERT_THAT(store, StatusIs(absl::StatusCode::kPermissionDenied,
                              HasSubstr("writable by group or others")));
  EXPECT_THAT(store.status().message(), HasSubstr("chmod 600"));
  ::chmod(path_.c_str(), 0644);
  OpenOrDie();
  struct stat st;
  ::stat(path_.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0600);
}

TEST_F(StoreTest, SidecarThatIsNotARegularFileIsRefused) {
  OpenOrDie();
  fs::remove(path_ + "-wal");
  fs::create_directory(path_ + "-wal");
  EXPECT_THAT(records::OpenStore(path_, clock_).status().message(),
              HasSubstr("not a regular file"));
}

// The name is the database's: it reaches the message escaped, so it cannot drive a terminal.
TEST_F(StoreTest, AHostileViewNameIsEscapedInTheRefusal) {
  OpenOrDie();
  ASSERT_OK(Tamper("CREATE VIEW \"\x1b]8;;https://evil.example/\x07v\" AS SELECT 1"));
  absl::Status refused = records::OpenExistingStore(path_, true).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(),
              HasSubstr("holds a view named \"\\x1b]8;;https://evil.example/\\x07v\""));
}

TEST_F(StoreTest, TriggersViewsAndForeignDatabasesAreRefused) {
  OpenOrDie();
  ASSERT_OK(Tamper("CREATE TRIGGER t AFTER INSERT ON events BEGIN SELECT 1; END"));
  EXPECT_THAT(records::OpenStore(path_, clock_).status().message(),
              HasSubstr("holds a trigger named \"t\""));
  EXPECT_THAT(records::OpenExistingStore(path_, true).status().message(),
              HasSubstr("holds a trigger named \"t\""));
  // A view is refused as a trigger is, by writers and readers alike.
  ASSERT_OK(Tamper("DROP TRIGGER t"));
  ASSERT_OK(Tamper("CREATE VIEW v AS SELECT seq FROM events"));
  for (bool read_only : {false, true}) {
    absl::Status refused = read_only ? records::OpenExistingStore(path_, true).status()
                                     : records::OpenStore(path_, clock_).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
    EXPECT_THAT(refused.message(), HasSubstr("holds a view named \"v\""));
  }
  std::string other = (dir_ / "other.db").string();
  sqlite3* db = nullptr;
  sqlite3_open(other.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE mine (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ::chmod(other.c_str(), 0600);
  EXPECT_THAT(records::OpenStore(other, clock_).status().message(),
              HasSubstr("is not an agentrt database"));
}

TEST_F(StoreTest, OpenExistingNeverCreatesAndRefusesSymlinks) {
  EXPECT_EQ(records::OpenExistingStore(path_, true).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(path_));
  OpenOrDie();
  fs::create_symlink(path_, dir_ / "link.db");
  EXPECT_THAT(records::OpenExistingStore((dir_ / "link.db").string(), true).status().message(),
              HasSubstr("is a symbolic link; name the database file itself"));
}

// Whether a process other than this one finds a lock held on byte `offset` of `file` (F_GETLK
// never reports the asking process's own locks, so the question is asked from a child).
bool AnotherProcessSeesALock(const std::string& file, off_t offset) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    struct flock lock = {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = offset;
    lock.l_len = 1;
    if (fd < 0 || ::fcntl(fd, F_GETLK, &lock) != 0) ::_exit(2);
    ::_exit(lock.l_type == F_UNLCK ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

// Closing any descriptor of a file drops every POSIX lock the process holds on it. Opening the
// database again (a second store, a reader) must leave the first store's SQLite locks in place:
// without its shared lock on the -shm's dead-man byte, another process takes itself for the
// first connection, resets the WAL index and loses the first store's commits.
TEST_F(StoreTest, OpeningADatabaseAgainKeepsTheLocksOfTheStoreAlreadyOnIt) {
  std::unique_ptr<Store> first = OpenOrDie();
  // SQLite's unix VFS: every connection holds a read lock on byte 128 of the -shm (the 8 WAL
  // locks from byte 120, then the dead-man switch) while it has the WAL index open.
  constexpr off_t kDeadManSwitch = 128;
  ASSERT_TRUE(AnotherProcessSeesALock(path_ + "-shm", kDeadManSwitch));
  std::unique_ptr<Store> second = OpenOrDie();
  EXPECT_TRUE(AnotherProcessSeesALock(path_ + "-shm", kDeadManSwitch))
      << "opening a second store dropped the first one's lock";
  absl::StatusOr<std::unique_ptr<Store>> reader =
      records::OpenExistingStore(path_, /*read_only=*/true);
  ASSERT_OK(reader);
  second.reset();
  reader->reset();
  EXPECT_TRUE(AnotherProcessSeesALock(path_ + "-shm", kDeadManSwitch))
      << "closing a second store dropped the first one's lock";
}

// A writer given a symbolic link used to follow it and turn an empty target into a database
// (issue 22): it refuses the link as readers do, by name, and leaves the target alone.
TEST_F(StoreTest, OpenRefusesASymlinkAndNeverMakesItsTargetADatabase) {
  std::string target = (dir_ / "notes").string();
  { std::ofstream touch(target); }
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  std::string link = (dir_ / "link.db").string();
  fs::create_symlink(target, link);
  absl::Status refused = records::OpenStore(link, clock_).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << refused;
  EXPECT_THAT(refused.message(),
              HasSubstr("database " + link + " is a symbolic link; name the database file itself"));
  EXPECT_EQ(fs::file_size(target), 0u);
  EXPECT_FALSE(fs::exists(target + "-wal"));
  EXPECT_FALSE(fs::exists(link + "-wal"));
  // A link to a database is refused all the same.
  OpenOrDie();
  fs::remove(link);
  fs::create_symlink(path_, link);
  EXPECT_THAT(records::OpenStore(link, clock_).status().message(), HasSubstr("is a symbolic link"));
}

TEST_F(StoreTest, OpenRefusesADanglingSymlinkAndCreatesNothingWhereItPoints) {
  std::string nowhere = (dir_ / "nowhere.db").string();
  std::string link = (dir_ / "dangling.db").string();
  fs::create_symlink(nowhere, link);
  for (bool writer : {true, false}) {
    SCOPED_TRACE(writer ? "writer" : "reader");
    absl::Status refused = writer ? records::OpenStore(link, clock_).status()
                                  : records::OpenExistingStore(link, true).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << refused;
    EXPECT_THAT(refused.message(), HasSubstr("database " + link + " is a symbolic link"));
    EXPECT_FALSE(fs::exists(nowhere));
  }
}

TEST_F(StoreTest, ASidecarThatIsASymlinkIsRefusedAndNotFollowed) {
  OpenOrDie();  // closed again: the WAL was checkpointed and removed
  std::string target = (dir_ / "elsewhere").string();
  for (const char* sidecar : {"-wal", "-shm"}) {
    SCOPED_TRACE(sidecar);
    fs::create_symlink(target, path_ + sidecar);
    absl::Status refused = records::OpenStore(path_, clock_).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << refused;
    EXPECT_THAT(refused.message(), HasSubstr(path_ + sidecar + " is a symbolic link"));
    EXPECT_FALSE(fs::exists(target));
    fs::remove(path_ + sidecar);
  }
}

// The checks above open the name itself; SQLite then opens it again. A link swapped in between
// (here: put there before SQLite's own open, past the store's checks) is refused by SQLite's
// open too, never followed: for the database and for its WAL.
TEST_F(StoreTest, SqliteNeverFollowsALinkSwappedInAfterTheChecks) {
  OpenOrDie();
  std::string target = (dir_ / "elsewhere").string();
  { std::ofstream touch(target); }
  std::string link = (dir_ / "link.db").string();
  fs::create_symlink(target, link);
  absl::StatusOr<std::unique_ptr<internal::SqliteConnection>> linked =
      internal::SqliteConnection::Open(link, /*read_only=*/false);
  absl::Status refused = linked.ok() ? (*linked)->Exec("PRAGMA journal_mode=WAL") : linked.status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << refused;
  EXPECT_EQ(fs::file_size(target), 0u);

  std::string wal_target = (dir_ / "elsewhere-wal").string();
  { std::ofstream touch(wal_target); }
  fs::create_symlink(wal_target, path_ + "-wal");
  absl::StatusOr<std::unique_ptr<internal::SqliteConnection>> database =
      internal::SqliteConnection::Open(path_, /*read_only=*/false);
  ASSERT_OK(database);
  absl::Status wal = (*database)->Exec("PRAGMA journal_mode=WAL");
  if (wal.ok()) wal = (*database)->Exec("CREATE TABLE t (x)");
  EXPECT_EQ(wal.code(), absl::StatusCode::kPermissionDenied) << wal;
  EXPECT_EQ(fs::file_size(wal_target), 0u);
}

// Links among the folders are the operator's: only the database file itself must not be one.
TEST_F(StoreTest, ADatabaseInALinkedFolderOpens) {
  fs::create_directory_symlink(dir_, dir_ / "via");
  std::string through = (dir_ / "via" / "audit.db").string();
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(through, clock_);
  ASSERT_OK(store);
  WriteRun(**store, "run-a", 2);
  store->reset();
  absl::StatusOr<std::unique_ptr<Store>> reader = records::OpenExistingStore(through, true);
  ASSERT_OK(reader);
  EXPECT_THAT(*(*reader)->ListEvents(""), SizeIs(2));
}

TEST_F(StoreTest, ReadOnlyStoreReadsButNeverWrites) {
  WriteRun(*OpenOrDie(), "run-a", 2);
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenExistingStore(path_, true);
  ASSERT_OK(store);
  EXPECT_THAT(*(*store)->ListEvents(""), SizeIs(2));
  absl::Status write = (*store)->Write([](Transaction&) { return absl::OkStatus(); });
  EXPECT_EQ(write.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(write.message(), HasSubstr("opened read-only"));
}

// A reader in a directory it cannot write (an auditor's copy on a read-only share, say): SQLite
// cannot make the WAL index a reader needs there, so the store reads the file as one nothing
// changes while it is open. It reads every event, verifies the chain, and leaves the directory
// and the file exactly as they were. When the tests run as root, whom permissions do not stop,
// the reader is another user (nobody) and the database is that user's.
TEST_F(StoreTest, ReadOnlyOpensADatabaseInADirectoryItCannotWrite) {
  WriteRun(*OpenOrDie(), "run-a", 3);
  ASSERT_FALSE(fs::exists(path_ + "-wal"));  // the last writer's close checkpointed and removed
  ASSERT_FALSE(fs::exists(path_ + "-shm"));
  const bool root = ::geteuid() == 0;
  constexpr uid_t kNobody = 65534;
  if (root) {
    ASSERT_EQ(::chown(path_.c_str(), kNobody, kNobody), 0);
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);  // root's: nobody may enter, not write
  } else {
    ASSERT_EQ(::chmod(dir_.c_str(), 0555), 0);
  }
  auto listing = [&] {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.insert(entry.path().string());
    return names;
  };
  std::set<std::string> before = listing();
  std::string bytes_before = *ReadFile(path_);
  struct stat st_before;
  ASSERT_EQ(::stat(path_.c_str(), &st_before), 0);

  std::string command = absl::StrCat(AGENTRT_READ_ONLY_CHILD, " '", path_, "'",
                                     root ? absl::StrCat(" ", kNobody) : std::string());
  FILE* child = ::popen(command.c_str(), "r");
  ASSERT_NE(child, nullptr);
  char line[512] = {};
  std::string said = std::fgets(line, sizeof line, child) != nullptr ? line : "";
  int status = ::pclose(child);
  ::chmod(dir_.c_str(), 0755);  // so the folder can be removed
  EXPECT_EQ(said, "events 3, chain ok\n");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  EXPECT_EQ(listing(), before);  // no -shm, no -wal
  EXPECT_EQ(*ReadFile(path_), bytes_before);
  struct stat st_after;
  ASSERT_EQ(::stat(path_.c_str(), &st_after), 0);
  EXPECT_EQ(st_after.st_mode, st_before.st_mode);
}

TEST_F(StoreTest, ConnectionsDoNotTrustTheSchema) {
  auto store = OpenOrDie();
  std::string trusted;
  ASSERT_OK(store->Read([&](Transaction& tx) -> absl::Status {
    trusted =
        (*test_support::PeekIn(tx, "the trusted_schema setting", "PRAGMA trusted_schema"))[0][0];
    return absl::OkStatus();
  }));
  EXPECT_EQ(trusted, "0");
  // Defensive mode: the schema cannot be rewritten through writable_schema.
  absl::Status write = store->Write([](Transaction& tx) -> absl::Status {
    if (absl::StatusOr<std::int64_t> on =
            test_support::TamperIn(tx, "writable_schema on", "PRAGMA writable_schema = ON");
        !on.ok()) {
      return on.status();
    }
    return test_support::TamperIn(tx, "the events table's schema erased",
                                  "UPDATE sqlite_master SET sql = '' WHERE name = 'events'")
        .status();
  });
  EXPECT_THAT(write, StatusIs(absl::StatusCode::kInternal,
                              HasSubstr("table sqlite_master may not be modified")));
}

TEST_F(StoreTest, PagesReadOnlyThePageAndCapHugePayloads) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 5);
  std::string huge = "{\"x\":\"" + std::string(Store::kMaxPageText * 3, 'y') + "\"}";
  ASSERT_OK(store->Write(
      [&](Transaction& tx) { return tx.AppendEvent("run-a", "", kStart, "big", huge).status(); }));
  absl::StatusOr<Store::EventPage> page = store->ListEventsPage("run-a", 2, 1);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 6);
  ASSERT_THAT(page->events, SizeIs(2));
  EXPECT_EQ(page->events[0].seq, 2);
  page = store->ListEventsPage("run-a", 10, 5);
  ASSERT_THAT(page->events, SizeIs(1));
  const std::string& capped = page->events[0].payload_json;
  EXPECT_LT(capped.size(), huge.size());
  EXPECT_THAT(capped, HasSubstr(absl::StrCat("\"length\":", huge.size(), ",\"truncated\":true}")));
  EXPECT_OK(json::Parse(capped));
  EXPECT_THAT(store->ListEventsPage("run-a", 0, 0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(store->ListEventsPage("run-a", 1, -1), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(StoreTest, DurabilityIsASetting) {
  auto normal = OpenOrDie();
  std::string level;
  ASSERT_OK(normal->Read([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows =
        test_support::PeekIn(tx, "the synchronous setting", "PRAGMA synchronous");
    level = (*rows)[0][0];
    return absl::OkStatus();
  }));
  EXPECT_EQ(level, "1");  // NORMAL
  auto durable = OpenOrDie(StoreOptions{Durability::kFull});
  ASSERT_OK(durable->Read([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows =
        test_support::PeekIn(tx, "the synchronous setting", "PRAGMA synchronous");
    level = (*rows)[0][0];
    return absl::OkStatus();
  }));
  EXPECT_EQ(level, "2");  // FULL
}

TEST_F(StoreTest, ListEventsAfterFollowsSeqAcrossRuns) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 3);   // seq 1-3
  WriteRun(*store, "run-b", 2);   // seq 4-5
  WriteRun(*store, "run-a2", 1);  // seq 6
  ASSERT_OK(store->Write([&](Transaction& tx) {
    return tx.AppendEvent("run-a", "s1", kStart, "late", "{}").status();
  }));  // seq 7, run-a again
  auto seqs = [](const std::vector<Event>& events) {
    std::vector<std::int64_t> out;
    for (const Event& e : events) out.push_back(e.seq);
    return out;
  };
  EXPECT_THAT(seqs(*store->ListEventsAfter("", 0, 100)),
              ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(seqs(*store->ListEventsAfter("", 2, 3)), ::testing::ElementsAre(3, 4, 5));
  EXPECT_THAT(seqs(*store->ListEventsAfter("run-a", 2, 100)), ::testing::ElementsAre(3, 7));
  EXPECT_THAT(seqs(*store->ListEventsAfter("run-a", 7, 100)), ::testing::IsEmpty());
  EXPECT_THAT(*store->ListEventsAfter("nobody", 0, 100), ::testing::IsEmpty());
  std::vector<Event> all = *store->ListEvents("");
  std::vector<Event> after = *store->ListEventsAfter("", 6, 1);
  ASSERT_THAT(after, SizeIs(1));
  EXPECT_EQ(after[0].run_id, "run-a");
  EXPECT_EQ(after[0].step_id, "s1");
  EXPECT_EQ(after[0].type, "late");
  EXPECT_EQ(after[0].payload_json, "{}");
  EXPECT_EQ(after[0].hash, all[6].hash);
  absl::StatusOr<std::vector<Event>> bad = store->ListEventsAfter("", -1, 10);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("seq >= 0"));
  EXPECT_EQ(store->ListEventsAfter("", 0, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreTest, ListEventsAfterCapsTheLimitAndHugePayloads) {
  auto store = OpenOrDie();
  ASSERT_OK(store->Write([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<std::int64_t> inserted =
        test_support::TamperIn(tx, "a run",
                               "INSERT INTO runs (id, goal, status, limits_json, created_at) "
                               "VALUES ('r', 'g', 'RUNNING', '{}', '')");
    if (!inserted.ok()) return inserted.status();
    for (int i = 0; i < Store::kMaxEventsAfter + 5; ++i) {
      absl::StatusOr<Event> e = tx.AppendEvent("r", "", kStart, "e", "{}");
      if (!e.ok()) return e.status();
    }
    std::string huge = "{\"x\":\"" + std::string(Store::kMaxPageText * 2, 'y') + "\"}";
    return tx.AppendEvent("r", "", kStart, "big", huge).status();
  }));
  absl::StatusOr<std::vector<Event>> page = store->ListEventsAfter("", 0, 1'000'000);
  ASSERT_OK(page);
  EXPECT_THAT(*page, SizeIs(Store::kMaxEventsAfter));
  std::vector<Event> big = *store->ListEventsAfter("r", Store::kMaxEventsAfter + 5, 10);
  ASSERT_THAT(big, SizeIs(1));
  EXPECT_THAT(big[0].payload_json, HasSubstr("\"truncated\":true}"));
  EXPECT_OK(json::Parse(big[0].payload_json));
}

TEST_F(StoreTest, StoredHashReadsOneEventsHash) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 3);
  std::vector<Event> all = *store->ListEvents("");
  EXPECT_EQ(*store->StoredHash(2), all[1].hash);
  EXPECT_EQ(store->StoredHash(4).status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK(
      Tamper("UPDATE events SET hash = hash || '" + std::string(200, 'f') + "' WHERE seq = 3"));
  EXPECT_THAT(*store->StoredHash(3), SizeIs(128));
}

// Appends one event to `run` (which must exist) with the fields given; returns it as stored.
Event AppendOrDie(Store& store, std::string_view run, std::string_view step, std::string_view type,
                  std::string_view payload) {
  Event appended;
  absl::Status written = store.Write([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<Event> e = tx.AppendEvent(run, step, kStart, type, payload);
    if (!e.ok()) return e.status();
    appended = *e;
    return absl::OkStatus();
  });
  EXPECT_OK(written);
  return appended;
}

// A payload of `n` bytes or a little more, mixing one-, two- and three-byte characters so bytes
// and characters differ, and its bytes different at every chunk.
std::string LongPayload(std::size_t n) {
  std::string text;
  for (std::size_t i = 0; text.size() < n; ++i) {
    text += std::to_string(i);
    text += i % 3 == 0 ? "\xc3\xa9" : i % 3 == 1 ? "\xe2\x82\xac" : "y";
  }
  return "{\"x\":\"" + text + "\"}";
}

TEST_F(StoreTest, VerifyingMoreEventsThanAPageAndFieldsLongerThanThePageCap) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 150);  // seq 1-150: more than one page of 128
  std::string payload = LongPayload(3 * Store::kMaxPageText + 17);
  std::string step(5000, 's');  // past the inline 4096 bytes too
  Event long_one = AppendOrDie(*store, "run-a", step, "big", payload);  // seq 151
  WriteRun(*store, "run-b", 150);                                       // seq 152-301
  ASSERT_EQ(long_one.seq, 151);
  ASSERT_GT(payload.size(), static_cast<std::size_t>(3 * Store::kMaxPageText));

  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value()) << report->broken->detail;
  EXPECT_EQ(report->from, 1);
  EXPECT_EQ(report->to, 301);
  EXPECT_EQ(report->checked, 301);
  EXPECT_EQ(report->hash, *store->StoredHash(301));
  // The hash read in chunks is the one of the whole fields.
  EXPECT_EQ(long_one.hash, EventHash(*store->StoredHash(150),
                                     EventFields{151, "run-a", step, long_one.at, "big", payload}));
  // A range across the long event and the page boundary verifies on its own.
  report = store->VerifyEvents(140, 290);
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 151);
}

TEST_F(StoreTest, BreakPastTheFirstPageIsNamedExactly) {
  std::string payload = LongPayload(2 * Store::kMaxPageText + 4096);
  {
    auto store = OpenOrDie();
    WriteRun(*store, "run-a", 200);                      // seq 1-200
    AppendOrDie(*store, "run-a", "s1", "big", payload);  // seq 201
    WriteRun(*store, "run-b", 10);                       // seq 202-211
  }
  ASSERT_OK(Tamper("UPDATE events SET payload_json = '{\"i\":1999}' WHERE seq = 170"));
  auto store = OpenOrDie();
  std::vector<Event> all = *store->ListEvents("");
  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  ASSERT_OK(report);
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 170);
  EXPECT_EQ(report->checked, 169);
  EXPECT_EQ(report->hash, all[168].hash);
  EXPECT_EQ(report->broken->expected,
            EventHash(all[168].hash,
                      EventFields{170, "run-a", "", all[169].at, "test.event", R"({"i":1999})"}));
  EXPECT_EQ(report->broken->found, all[169].hash);
  EXPECT_EQ(report->broken->detail,
            "the stored hash is not the one the event's fields and the previous event's hash "
            "give");

  // One byte changed deep inside the long payload, past its first chunk, is found there.
  report = store->VerifyEvents(171);
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  std::string changed = payload;
  std::size_t at = Store::kMaxPageText + 4096 + 100;
  changed[at] = changed[at] == 'y' ? 'z' : 'y';
  ASSERT_OK(Tamper("UPDATE events SET payload_json = '" + changed + "' WHERE seq = 201"));
  report = store->VerifyEvents(171);
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 201);
  EXPECT_EQ(report->checked, 30);
  EXPECT_EQ(report->broken->expected,
            EventHash(all[199].hash, EventFields{201, "run-a", "s1", all[200].at, "big", changed}));

  // A deleted event on a later page is a gap, named by the seq that follows it.
  ASSERT_OK(Tamper("DELETE FROM events WHERE seq = 205"));
  report = store->VerifyEvents(202);
  ASSERT_TRUE(report->broken.has_value());
  EXPECT_EQ(report->broken->seq, 206);
  EXPECT_EQ(report->broken->detail, "seq 206 follows 204: an event is missing");
  EXPECT_EQ(report->checked, 3);
}

TEST_F(StoreTest, VerifyingNeverHoldsALongFieldWhole) {
  auto store = OpenOrDie();
  WriteRun(*store, "run-a", 3);
  std::string payload = LongPayload(16 * Store::kMaxPageText);
  AppendOrDie(*store, "run-a", "", "big", payload);
  WriteRun(*store, "run-b", 3);
  payload = std::string();  // the test's own copy is not what is measured
  test_support::StartTrackingAllocations();
  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  std::size_t largest = test_support::StopTrackingAllocations();
  EXPECT_GT(largest, 0u);  // the tracker saw the work
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 7);
  // A chunk of kMaxPageText bytes is the most ever held of the 1 MiB payload.
  EXPECT_LE(largest, static_cast<std::size_t>(Store::kMaxPageText + 1024));
}

// A database written by a build before migration 6 (schema version 5: no tool_specs, no
// steps.spec_hash/policy_id, no events.hash), made by hand from the released migrations.
TEST_F(StoreTest, Version5DatabaseMigratesWithChainedEventsInSeqOrder) {
  std::string long_payload = LongPayload(Store::kMaxPageText + 10);
  // Inserted out of seq order, runs interleaved, timestamps as an older writer spelled them:
  // the backfill chains by seq across runs and hashes the stored text exactly.
  ASSERT_OK(test_support::MakeDatabaseAtVersion(
      path_, 5,
      {"INSERT INTO runs (id, goal, status, limits_json, created_at) VALUES "
       "('old-a', 'g', 'COMPLETED', '{}', ''), ('old-b', 'g', 'RUNNING', '{}', '')",
       "INSERT INTO events (seq, run_id, step_id, at, type, payload_json) VALUES "
       "(3, 'old-a', 's1', '2026-11-29T21:45:01.5Z', 'step.started', "
       "'{\"index\":0}'), "
       "(1, 'old-a', '', '2026-11-29T21:45:00Z', 'run.created', '{\"goal\":\"g\"}'), "
       "(2, 'old-b', '', '2026-11-29T21:45:00Z', 'run.created', '{\"goal\":\"g\"}'), "
       "(5, 'old-b', '', '2026-11-29T21:45:02Z', 'run.started', '{}'), "
       "(4, 'old-a', 's1', '2026-11-29T21:45:02Z', 'big', '" +
           long_payload + "')"}));
  std::string copy = (dir_ / "copy.db").string();
  fs::copy_file(path_, copy);

  absl::StatusOr<std::unique_ptr<Store>> unmigrated = records::OpenExistingStore(path_, true);
  ASSERT_THAT(unmigrated,
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is at schema version 5; this build reads version 8")));

  auto store = OpenOrDie();
  EXPECT_EQ(store->schema_version(), 8);
  std::vector<Event> events = *store->ListEvents("");
  ASSERT_THAT(events, SizeIs(5));
  std::string previous;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    SCOPED_TRACE(e.seq);
    EXPECT_EQ(e.seq, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(e.hash, EventHash(previous, EventFields{e.seq, e.run_id, e.step_id, e.at, e.type,
                                                      e.payload_json}));
    previous = e.hash;
  }
  EXPECT_EQ(events[3].payload_json, long_payload);
  absl::StatusOr<ChainReport> report = store->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 5);
  // Migration 6's table and columns exist.
  ASSERT_OK(store->Read([&](Transaction& tx) -> absl::Status {
    EXPECT_OK(test_support::PeekIn(tx, "migration 6's step columns",
                                   "SELECT spec_hash, policy_id FROM steps"));
    EXPECT_OK(
        test_support::PeekIn(tx, "migration 6's table", "SELECT hash, spec_json FROM tool_specs"));
    return absl::OkStatus();
  }));
  // New writes extend the backfilled chain.
  WriteRun(*store, "new", 2);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  EXPECT_EQ(store->VerifyEvents()->checked, 7);

  // The same events always get the same hashes: the copy migrates to the identical chain.
  absl::StatusOr<std::unique_ptr<Store>> second = records::OpenStore(copy, clock_);
  ASSERT_OK(second);
  std::vector<Event> again = *(*second)->ListEvents("");
  ASSERT_THAT(again, SizeIs(5));
  for (std::size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i].hash, events[i].hash);
}

// Migration 6 backfills the chain as VerifyEvents reads it: a page of events at a time, a long
// field in chunks, so a database of any size migrates in bounded memory, to the chain a
// verification then accepts.
TEST_F(StoreTest, TheBackfillNeverHoldsALongFieldWhole) {
  std::vector<std::string> sql = {
      "INSERT INTO runs (id, goal, status, limits_json, created_at) VALUES "
      "('old', 'g', 'COMPLETED', '{}', '')"};
  for (int seq = 1; seq <= 300; ++seq) {
    std::string payload = seq == 150 ? LongPayload(16 * Store::kMaxPageText) : "{}";
    sql.push_back(
        absl::StrCat("INSERT INTO events (seq, run_id, step_id, at, type, payload_json) "
                     "VALUES (",
                     seq, ", 'old', '', '2026-11-29T21:45:00Z', 'e', '", payload, "')"));
  }
  ASSERT_OK(test_support::MakeDatabaseAtVersion(path_, 5, sql));
  sql.clear();
  sql.shrink_to_fit();  // the test's own copy is not what is measured
  test_support::StartTrackingAllocations();
  absl::StatusOr<std::unique_ptr<Store>> store = records::OpenStore(path_, clock_);
  std::size_t largest = test_support::StopTrackingAllocations();
  EXPECT_GT(largest, 0u);  // the tracker saw the work
  ASSERT_OK(store);
  EXPECT_LE(largest, static_cast<std::size_t>(Store::kMaxPageText + 1024));
  absl::StatusOr<ChainReport> report = (*store)->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_FALSE(report->broken.has_value());
  EXPECT_EQ(report->checked, 300);
}

// Migration 5 brought leases: a run RUNNING under a build without them gets one short lease
// (owner agentrt:pre-lease-version, one default TTL from the migration), so a loop of the old
// build still inside a call has that long before another owner may take it over. Runs in any
// other state get none.
TEST_F(StoreTest, ARunRunningBeforeLeasesGetsAPlaceholderLease) {
  ASSERT_OK(test_support::MakeDatabaseAtVersion(
      path_, 4,
      {"INSERT INTO runs (id, goal, status, limits_json, created_at) VALUES "
       "('live', 'g', 'RUNNING', '{}', ''), ('done', 'g', 'COMPLETED', '{}', ''), "
       "('paused', 'g', 'WAITING_FOR_APPROVAL', '{}', '')"}));
  absl::StatusOr<std::unique_ptr<Store>> unmigrated = records::OpenExistingStore(path_, true);
  EXPECT_EQ(unmigrated.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unmigrated.status().message(),
              HasSubstr("is at schema version 4; this build reads version 8"));
  auto store = OpenOrDie();
  std::vector<SqlRow> leases;
  ASSERT_OK(store->Read([&](Transaction& tx) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows =
        test_support::PeekIn(tx, "the leases",
                             "SELECT id, COALESCE(lease_owner, ''), COALESCE(lease_expires_at, '') "
                             "FROM runs ORDER BY id");
    if (rows.ok()) leases = *std::move(rows);
    return rows.status();
  }));
  ASSERT_THAT(leases, SizeIs(3));
  EXPECT_EQ(leases[0], (SqlRow{"done", "", ""}));
  EXPECT_EQ(leases[1], (SqlRow{"live", "agentrt:pre-lease-version",
                               world::FormatTimestamp(kStart + absl::Seconds(30))}));
  EXPECT_EQ(leases[2], (SqlRow{"paused", "", ""}));
}

}  // namespace
}  // namespace agentrt::store
