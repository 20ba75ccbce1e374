// Migration 8 (integer row keys, the event log's high-water mark) on database files an older
// release wrote (fixtures/databases/): every run, step, event and approval reads back as it
// was, the chain verifies to the same head, `agentrt verify` passes, a paused run resumes, and a
// migration cut off by a power cut at any sync or a SIGKILL at any write leaves the old schema
// or the new one, never a mix. Also what the high-water mark buys: a log whose newest events
// were deleted is reported by a whole verification, and a deleted seq is never reused.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "tests/runtime/store/power_cut_vfs.h"
#include "tests/support/fixture_runs.h"
#include "tests/support/old_database.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int kFixtureVersion = 7;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path FixtureDir() { return fs::path(AGENTRT_SOURCE_DIR) / "fixtures" / "databases"; }

std::string FixtureFingerprint() {
  return ReadText(FixtureDir() / absl::StrCat("v", kFixtureVersion, ".fingerprint"));
}

// A copy of the released fixture, owner-only as the store requires, in `dir`.
std::string CopyFixture(const fs::path& dir) {
  fs::create_directories(dir);
  fs::path db = dir / "runs.db";
  fs::copy_file(FixtureDir() / absl::StrCat("v", kFixtureVersion, ".db"), db,
                fs::copy_options::overwrite_existing);
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write);
  return db.string();
}

// What the raw file holds, read without the store: its schema version, and whether its tables
// have the old shape or the new one (or a mix, which must never be).
struct Shape {
  int version = 0;
  bool runs_keyed = false;   // runs.run_key
  bool steps_keyed = false;  // steps.run_key
  bool approvals_keyed = false;
  bool high_water = false;     // event_log_high_water
  bool autoincrement = false;  // events numbered by AUTOINCREMENT
};

Shape ReadShape(const std::string& path) {
  Shape shape;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto count = [&](const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    int n = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      n = sqlite3_column_int(stmt, 0);
    }
    sqlite3_finalize(stmt);
    return n;
  };
  shape.version = count("SELECT MAX(version) FROM schema_migrations");
  shape.runs_keyed =
      count("SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'run_key'") == 1;
  shape.steps_keyed =
      count("SELECT COUNT(*) FROM pragma_table_info('steps') WHERE name = 'run_key'") == 1;
  shape.approvals_keyed =
      count("SELECT COUNT(*) FROM pragma_table_info('approvals') WHERE name = 'run_key'") == 1;
  shape.high_water =
      count("SELECT COUNT(*) FROM sqlite_master WHERE name = 'event_log_high_water'") == 1;
  shape.autoincrement = count(
                            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'events' AND sql LIKE "
                            "'%AUTOINCREMENT%'") == 1;
  sqlite3_close(db);
  return shape;
}

// The file is wholly at version 7 or wholly at version 8.
void ExpectOldOrNew(const std::string& path) {
  Shape s = ReadShape(path);
  if (s.version == kFixtureVersion) {
    EXPECT_FALSE(s.runs_keyed || s.steps_keyed || s.approvals_keyed || s.high_water);
    EXPECT_TRUE(s.autoincrement);
  } else {
    EXPECT_EQ(s.version, 8);
    EXPECT_TRUE(s.runs_keyed && s.steps_keyed && s.approvals_keyed && s.high_water);
    EXPECT_FALSE(s.autoincrement);
  }
}

// Opens (migrating) and checks that every row reads back as the fixture recorded it.
void ExpectMigratedWhole(const std::string& path) {
  world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(path, clock);
  ASSERT_OK(store);
  EXPECT_EQ((*store)->schema_version(), 8);
  absl::StatusOr<std::string> fingerprint = test_support::FixtureFingerprint(**store);
  ASSERT_OK(fingerprint);
  EXPECT_EQ(*fingerprint, FixtureFingerprint());
  absl::StatusOr<store::ChainReport> chain = (*store)->VerifyEvents();
  ASSERT_OK(chain);
  EXPECT_FALSE(chain->broken.has_value()) << chain->broken->detail;
  Shape shape = ReadShape(path);
  EXPECT_TRUE(shape.runs_keyed && shape.steps_keyed && shape.high_water);
}

TEST(MigrationTest, TheReleasedFixtureMigratesWithEveryRowAsItWas) {
  std::string db = CopyFixture(test_support::TestFolder());
  // Read-only commands never migrate: they name the version.
  EXPECT_THAT(records::OpenExistingStore(db, /*read_only=*/true),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is at schema version 7; this build reads version 8")));
  ExpectMigratedWhole(db);
  // The operator's verification, by the command, on the migrated file.
  testing::ProcessResult verified = testing::Agentrt({"verify", "--db", db});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  // Opening it again migrates nothing more.
  ExpectMigratedWhole(db);
}

TEST(MigrationTest, TheMigrateCommandBringsAnOlderDatabaseUpToDate) {
  std::string db = CopyFixture(test_support::TestFolder());
  testing::ProcessResult runs = testing::Agentrt({"runs", "--db", db});
  EXPECT_EQ(runs.exit_code, 1);
  EXPECT_THAT(runs.err, HasSubstr("is at schema version 7; this build reads version 8 (agentrt "
                                  "migrate --db brings it up to date)"));
  testing::ProcessResult migrated = testing::Agentrt({"migrate", "--db", db});
  EXPECT_EQ(migrated.exit_code, 0) << migrated.err;
  EXPECT_THAT(migrated.out, HasSubstr("migrated to schema version 8"));
  ExpectOldOrNew(db);
  EXPECT_EQ(ReadShape(db).version, 8);
  testing::ProcessResult again = testing::Agentrt({"migrate", "--db", db});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.out, HasSubstr("is at schema version 8 already"));
  EXPECT_EQ(testing::Agentrt({"runs", "--db", db}).exit_code, 0);
  // A name that is not a database is never created.
  std::string missing = test_support::TestFile("missing.db");
  testing::ProcessResult refused = testing::Agentrt({"migrate", "--db", missing});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("does not exist"));
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_EQ(testing::Agentrt({"migrate", "--help"}).exit_code, 0);
}

TEST(MigrationTest, APausedRunResumesAfterTheMigration) {
  std::string db = CopyFixture(test_support::TestFolder());
  world::ManualClock store_clock(absl::FromUnixSeconds(1'900'000'000));
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, store_clock);
  ASSERT_OK(store);
  absl::StatusOr<store::ChainHead> before = (*store)->Head();
  ASSERT_OK(before);
  test_support::FixtureWorld world(**store, /*seed=*/8);
  world.clock.Advance(absl::Seconds(100'000'000));  // the migration's time
  ASSERT_OK(world.Open());
  absl::StatusOr<Approval> pending = PendingApproval(**store, "waiting");
  ASSERT_OK(pending);
  ASSERT_OK(Approve(**store, world.clock, "waiting", pending->id, Decider{"ops", "after"}));
  absl::StatusOr<agentrt::Run> run = world.driver->Resume("waiting");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted) << run->reason_detail;
  EXPECT_EQ(world.post.calls, 1);  // exactly the approved call, once
  EXPECT_EQ(run->step_count, 3);
  // The chain goes on from the migrated head, and a new run starts beside the old ones.
  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents("waiting");
  ASSERT_OK(events);
  EXPECT_GT(events->back().seq, before->seq);
  absl::StatusOr<agentrt::Run> fresh = world.driver->StartWithId("fresh", "completed", Limits{});
  ASSERT_OK(fresh);
  EXPECT_EQ(fresh->status, RunStatus::kCompleted);
  absl::StatusOr<store::ChainReport> chain = (*store)->VerifyEvents();
  ASSERT_OK(chain);
  EXPECT_FALSE(chain->broken.has_value()) << chain->broken->detail;
}

TEST(MigrationTest, RowsNamingNoRunRefuseTheMigrationAndChangeNothing) {
  std::string db = CopyFixture(test_support::TestFolder());
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "INSERT INTO steps (id, run_id, idx, status, started_at) VALUES "
                           "('stray-step', 'no-such-run', 0, 'done', '')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
  EXPECT_THAT(records::OpenStore(db, clock),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("1 row(s) of steps name a run that does not exist"),
                             HasSubstr("stray-step"), HasSubstr("no-such-run"),
                             HasSubstr("nothing was changed"))));
  Shape shape = ReadShape(db);
  EXPECT_EQ(shape.version, kFixtureVersion);
  EXPECT_FALSE(shape.runs_keyed);
}

// A power cut at any moment of the migration: each durable state the disk went through (one per
// sync) is reopened. It is the old schema or the new one, and opening it migrates (or finds
// migrated) every row as it was.
TEST(MigrationTest, APowerCutDuringTheMigrationLeavesTheOldSchemaOrTheNew) {
  fs::path dir = test_support::TestFolder();
  std::string db = CopyFixture(dir / "original");
  absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
      testing::PowerCutVfs::Register("agentrt-migration-cut");
  ASSERT_OK(vfs);
  int generation = 0;
  ASSERT_OK((*vfs)->SaveDurable((dir / "gen-0").string()));
  // The fixture as released: durable before the open touches it.
  fs::copy_file(db, dir / "gen-0" / "runs.db", fs::copy_options::overwrite_existing);
  (*vfs)->OnSync([&](const std::string&) {
    ++generation;
    EXPECT_OK((*vfs)->SaveDurable((dir / ("gen-" + std::to_string(generation))).string()));
  });
  {
    world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
    absl::StatusOr<std::unique_ptr<store::Store>> store =
        records::OpenStore(db, clock, {.vfs = (*vfs)->name()});
    ASSERT_OK(store);
  }
  (*vfs)->OnSync(nullptr);
  ASSERT_GT(generation, 0) << "the migration never synced";
  std::set<int> versions;
  for (int g = 0; g <= generation; ++g) {
    SCOPED_TRACE(absl::StrCat("the disk after sync ", g));
    fs::path disk = dir / ("gen-" + std::to_string(g));
    if (!fs::exists(disk / "runs.db")) continue;
    fs::permissions(disk / "runs.db", fs::perms::owner_read | fs::perms::owner_write);
    std::string path = (disk / "runs.db").string();
    versions.insert(ReadShape(path).version);
    ExpectOldOrNew(path);
    ExpectMigratedWhole(path);
  }
  // Both outcomes were reached: cuts before the migration was durable, and after.
  EXPECT_THAT(versions, ::testing::ElementsAre(kFixtureVersion, 8));
}

// A SIGKILL at every write the migration makes: a child opens the fixture through a VFS that
// kills it just before write N reaches the file; the parent reopens what is left.
TEST(MigrationTest, ASigkillAtAnyWriteOfTheMigrationLeavesTheOldSchemaOrTheNew) {
  fs::path dir = test_support::TestFolder();
  // How many writes an uninterrupted migration makes.
  int writes = 0;
  {
    std::string db = CopyFixture(dir / "count");
    absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
        testing::PowerCutVfs::Register("agentrt-migration-count");
    ASSERT_OK(vfs);
    world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
    {
      absl::StatusOr<std::unique_ptr<store::Store>> store =
          records::OpenStore(db, clock, {.vfs = (*vfs)->name()});
      ASSERT_OK(store);
    }
    writes = (*vfs)->writes();
  }
  ASSERT_GT(writes, 0);
  ::testing::Test::RecordProperty("migration_writes", writes);
  std::set<int> versions;
  for (int n = 1; n <= writes; ++n) {
    SCOPED_TRACE(absl::StrCat("killed before write ", n, " of ", writes));
    std::string db = CopyFixture(dir / ("kill-" + std::to_string(n)));
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      absl::StatusOr<std::unique_ptr<testing::PowerCutVfs>> vfs =
          testing::PowerCutVfs::Register("agentrt-migration-kill");
      if (!vfs.ok()) _exit(3);
      (*vfs)->OnWrite([n](int index) {
        if (index == n) ::kill(::getpid(), SIGKILL);
      });
      world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
      absl::StatusOr<std::unique_ptr<store::Store>> store =
          records::OpenStore(db, clock, {.vfs = (*vfs)->name()});
      if (!store.ok()) _exit(4);
      store->reset();  // its close writes too (the checkpoint)
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child was not killed: " << status;
    versions.insert(ReadShape(db).version);
    ExpectOldOrNew(db);
    ExpectMigratedWhole(db);
    fs::remove_all(dir / ("kill-" + std::to_string(n)));
  }
  // Kills before the migration's commit and after it.
  EXPECT_THAT(versions, ::testing::ElementsAre(kFixtureVersion, 8));
}

// Everything a file's schema says, as text to compare: each table's and index's normalized SQL
// (identifiers unquoted, whitespace collapsed: ALTER TABLE RENAME quotes the new name), each
// table's columns, foreign keys and indexes with their columns, and the rows of the tables
// the schema fills itself.
std::string DescribeSchema(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string out;
  auto rows = [&](const std::string& sql) {
    std::vector<std::string> lines;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::string line;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        absl::StrAppend(&line, i == 0 ? "" : "|", text == nullptr ? "NULL" : (const char*)text);
      }
      lines.push_back(line);
    }
    sqlite3_finalize(stmt);
    return lines;
  };
  for (const std::string& object :
       rows("SELECT type || ' ' || name || ' ' || tbl_name FROM sqlite_master WHERE name NOT "
            "LIKE 'sqlite_%' ORDER BY type, name")) {
    absl::StrAppend(&out, object, "\n");
  }
  for (const std::string& sql :
       rows("SELECT trim(replace(replace(replace(replace(sql, '\"', ''), char(10), ' '), "
            "'  ', ' '), '  ', ' ')) FROM sqlite_master WHERE sql IS NOT NULL AND name NOT "
            "LIKE 'sqlite_%' ORDER BY name")) {
    absl::StrAppend(&out, "  ", sql, "\n");
  }
  for (const std::string& table :
       rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")) {
    for (const std::string& pragma : {"table_info", "foreign_key_list", "index_list"}) {
      for (const std::string& line :
           rows(absl::StrCat("SELECT * FROM pragma_", pragma, "('", table, "')"))) {
        absl::StrAppend(&out, table, " ", pragma, ": ", line, "\n");
      }
    }
  }
  for (const std::string& index :
       rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY tbl_name, sql")) {
    std::vector<std::string> columns =
        rows(absl::StrCat("SELECT * FROM pragma_index_xinfo('", index, "')"));
    for (const std::string& line : columns) absl::StrAppend(&out, "  index column: ", line, "\n");
  }
  for (const std::string& line : rows("SELECT * FROM event_log_high_water")) {
    absl::StrAppend(&out, "high water: ", line, "\n");
  }
  for (const std::string& line : rows("SELECT version FROM schema_migrations ORDER BY version")) {
    absl::StrAppend(&out, "migration ", line, "\n");
  }
  sqlite3_close(db);
  return out;
}

// A new database is made at once from the last migration's baseline; one a release left at
// version 7 is migrated. Both must be the same schema, or the baseline has drifted.
TEST(MigrationTest, ANewDatabaseIsWhatTheMigrationsMake) {
  world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
  std::string fresh = test_support::TestFile("fresh.db");
  ASSERT_OK(records::OpenStore(fresh, clock).status());
  std::string migrated = test_support::TestFile("migrated.db");
  ASSERT_OK(test_support::MakeDatabaseAtVersion(migrated, 1, {}));
  ASSERT_OK(records::OpenStore(migrated, clock).status());
  std::string described = DescribeSchema(fresh);
  EXPECT_THAT(described, HasSubstr("table runs runs"));
  EXPECT_THAT(described, HasSubstr("high water: 1|0"));
  EXPECT_THAT(described, HasSubstr("migration 8"));
  EXPECT_EQ(described, DescribeSchema(migrated));
}

TEST(HighWaterTest, AWholeVerificationReportsANewestEventDeleted) {
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  std::string db = test_support::TestFile("runs.db");
  absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db, clock);
  ASSERT_OK(store);
  test_support::FixtureWorld world(**store);
  ASSERT_OK(test_support::WriteFixtureRuns(world));
  absl::StatusOr<store::ChainHead> head = (*store)->Head();
  ASSERT_OK(head);
  ASSERT_OK(test_support::Tamper(**store, "the newest event deleted",
                                 absl::StrCat("DELETE FROM events WHERE seq = ", head->seq)));
  absl::StatusOr<store::ChainReport> chain = (*store)->VerifyEvents();
  ASSERT_OK(chain);
  ASSERT_TRUE(chain->broken.has_value());
  EXPECT_EQ(chain->broken->seq, head->seq);
  EXPECT_THAT(chain->broken->detail,
              HasSubstr(absl::StrCat("the log once reached seq ", head->seq)));
  // A range short of the end is still whole as far as it goes.
  absl::StatusOr<store::ChainReport> part = (*store)->VerifyEvents(1, head->seq - 1);
  ASSERT_OK(part);
  EXPECT_FALSE(part->broken.has_value());
  // The deleted seq is never given again.
  absl::StatusOr<agentrt::Run> run = world.driver->StartWithId("after", "failed", Limits{});
  ASSERT_OK(run);
  absl::StatusOr<std::vector<store::Event>> events = (*store)->ListEvents("after");
  ASSERT_OK(events);
  EXPECT_EQ(events->front().seq, head->seq + 1);
}

}  // namespace
}  // namespace agentrt
