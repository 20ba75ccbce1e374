// The simulator's disk (sim/sim_disk.h) under a real store: what a crash leaves, that reads go
// on and writes resume after it, a snapshot restored under an open connection, that nothing of
// the machine (its files, its clock) reaches a database on it, and its faults: a failed write,
// a full disk, a failed sync, a crash at a commit, a power cut.
#include "sim/sim_disk.h"

#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/records/schema.h"
#include "runtime/store/event_chain.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"

namespace agentrt::sim {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
constexpr char kName[] = "play.db";

class SimDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SimDisk>> disk = SimDisk::Create();
    ASSERT_OK(disk);
    disk_ = *std::move(disk);
    absl::StatusOr<std::unique_ptr<store::Store>> store =
        records::OpenStore(kName, clock_, {.vfs = disk_->name(), .files_on_vfs = true});
    ASSERT_OK(store);
    store_ = *std::move(store);
  }
  void TearDown() override { store_.reset(); }  // every connection closed before the disk

  // Appends `n` events of run `run` (its row made when missing) in one write.
  absl::Status Append(const std::string& run, int n) {
    return store_->Write([&](store::Transaction& tx) -> absl::Status {
      if (absl::Status row = test_support::PlantRunIn(tx, run); !row.ok()) return row;
      for (int i = 0; i < n; ++i) {
        absl::StatusOr<store::Event> e =
            tx.AppendEvent(run, "", kStart + absl::Seconds(i), "test.event", R"({"i":1})");
        if (!e.ok()) return e.status();
      }
      return absl::OkStatus();
    });
  }

  world::ManualClock clock_{kStart};
  std::unique_ptr<SimDisk> disk_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(SimDiskTest, TheDatabaseLivesOnTheDiskAndNotOnTheMachine) {
  ASSERT_OK(Append("run-a", 2));
  EXPECT_THAT(disk_->Contents(kName), StartsWith(std::string("SQLite format 3\0", 16)));
  EXPECT_EQ(disk_->Contents("no-such-file"), "");
  // SQLite's own clock reads the simulation's start, never the machine's.
  absl::StatusOr<std::vector<store::SqlRow>> now =
      test_support::Peek(*store_, "SQLite's clock", "SELECT datetime('now')");
  ASSERT_OK(now);
  EXPECT_EQ((*now)[0][0], "2026-01-01 00:00:00");
}

// What a process that died at that moment leaves: no write even begins, reads go on, and after
// the restart the chain goes on from the last event committed before the crash.
TEST_F(SimDiskTest, ACrashedDiskRefusesEveryWriteAndKeepsWhatWasCommitted) {
  ASSERT_OK(Append("run-a", 2));
  store::ChainHead before = *store_->Head();
  std::string bytes = disk_->Contents(kName);

  disk_->Crash();
  // SQLite's I/O error, the write lock refused before the transaction began.
  EXPECT_THAT(Append("run-a", 1), StatusIs(absl::StatusCode::kInternal, HasSubstr("I/O error")));
  EXPECT_THAT(Append("run-b", 3), StatusIs(absl::StatusCode::kInternal, HasSubstr("I/O error")));
  EXPECT_EQ(disk_->Contents(kName), bytes);
  absl::StatusOr<std::vector<store::Event>> read = store_->ListEvents("");
  ASSERT_OK(read);
  EXPECT_THAT(*read, SizeIs(2));
  EXPECT_EQ(*store_->Head(), before);

  disk_->Recover();
  ASSERT_OK(Append("run-b", 1));
  absl::StatusOr<std::vector<store::Event>> after = store_->ListEvents("");
  ASSERT_OK(after);
  ASSERT_THAT(*after, SizeIs(3));
  EXPECT_EQ((*after)[2].seq, 3);
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
}

// A restore under the open connection: the store reads the restored file at its next
// transaction, the chain starts again from its first event, and no transaction can be cut.
TEST_F(SimDiskTest, ARestoredSnapshotIsWhatTheNextTransactionSees) {
  disk_->Snapshot();
  ASSERT_OK(Append("run-a", 3));
  ASSERT_OK(disk_->Restore());
  absl::StatusOr<std::vector<store::Event>> emptied = store_->ListEvents("");
  ASSERT_OK(emptied);
  EXPECT_THAT(*emptied, SizeIs(0));
  EXPECT_EQ(store_->Head()->seq, 0);

  ASSERT_OK(Append("run-b", 1));
  absl::StatusOr<std::vector<store::Event>> again = store_->ListEvents("");
  ASSERT_OK(again);
  ASSERT_THAT(*again, SizeIs(1));
  EXPECT_EQ((*again)[0].seq, 1);
  EXPECT_EQ((*again)[0].run_id, "run-b");
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());

  absl::Status inside;
  ASSERT_OK(store_->Write([&](store::Transaction& tx) -> absl::Status {
    inside = disk_->Restore();
    return absl::OkStatus();
  }));
  EXPECT_THAT(inside, StatusIs(absl::StatusCode::kFailedPrecondition));
}

std::size_t EventCount(store::Store& store) {
  absl::StatusOr<std::vector<store::Event>> events = store.ListEvents("");
  EXPECT_OK(events);
  return events.ok() ? events->size() : 0;
}

// A failed write, a full disk and a failed sync each fail the transaction they come in, and
// nothing of it lands: SQLite rolls it back from the journal on the disk. The next one works,
// and the chain goes on. Faults fire only in armed transactions, and the count says which.
TEST_F(SimDiskTest, AStorageFaultFailsItsTransactionAndNothingOfItLands) {
  using Kind = SimDisk::Fault::Kind;
  for (Kind kind : {Kind::kWriteFails, Kind::kDiskFull, Kind::kSyncFails}) {
    ASSERT_OK(Append("run-a", 1));
    std::size_t before = EventCount(*store_);
    disk_->SetFaults({{kind, 2}}, {});
    disk_->Arm(true);
    ASSERT_OK(Append("run-a", 1));  // the first armed transaction: no fault
    absl::Status failed = Append("run-a", 40);
    EXPECT_THAT(failed, StatusIs(absl::StatusCode::kInternal,
                                 kind == Kind::kDiskFull ? HasSubstr("full") : HasSubstr("I/O")))
        << static_cast<int>(kind);
    EXPECT_EQ(disk_->faults_fired(), 1);
    EXPECT_EQ(EventCount(*store_), before + 1);
    ASSERT_OK(Append("run-a", 2));
    EXPECT_EQ(disk_->commits(), 3u);
    disk_->Arm(false);
    EXPECT_EQ(EventCount(*store_), before + 3);
    EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
  }
  // Disarmed, nothing is counted and nothing fires.
  disk_->SetFaults({{Kind::kWriteFails, 1}}, {});
  ASSERT_OK(Append("run-b", 1));
  EXPECT_EQ(disk_->commits(), 0u);
  EXPECT_EQ(disk_->faults_fired(), 0);
}

// A crash at a commit: the callback runs as the transaction would begin, which is refused, and
// the disk stays crashed until recovered.
TEST_F(SimDiskTest, ACrashAtACommitRefusesThatTransactionAndEveryLaterOne) {
  int crashes = 0;
  disk_->SetFaults({{SimDisk::Fault::Kind::kCrash, 2}}, [&] { ++crashes; });
  disk_->Arm(true);
  ASSERT_OK(Append("run-a", 1));
  EXPECT_THAT(Append("run-a", 1), StatusIs(absl::StatusCode::kInternal, HasSubstr("I/O error")));
  EXPECT_EQ(crashes, 1);
  EXPECT_TRUE(disk_->crashed());
  EXPECT_THAT(Append("run-a", 1), StatusIs(absl::StatusCode::kInternal));
  disk_->Recover();
  ASSERT_OK(Append("run-a", 1));
  EXPECT_EQ(EventCount(*store_), 2u);
  EXPECT_EQ(crashes, 1);
}

// A power cut loses exactly what was written and never synced. Through SQLite itself, on a raw
// connection: with synchronous=OFF a committed table is not synced and is gone after the cut;
// with synchronous=NORMAL (the store's) it was synced at its commit and stays.
TEST(SimDiskPowerCutTest, APowerCutLosesWhatWasNeverSynced) {
  for (const char* synchronous : {"OFF", "NORMAL"}) {
    absl::StatusOr<std::unique_ptr<SimDisk>> made = SimDisk::Create();
    ASSERT_OK(made);
    SimDisk& disk = **made;
    auto exec = [](sqlite3* db, const char* sql) {
      return sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    };
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2("raw.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                              disk.name().c_str()),
              SQLITE_OK);
    ASSERT_EQ(exec(db, "PRAGMA journal_mode=DELETE"), SQLITE_OK);
    ASSERT_EQ(exec(db, absl::StrCat("PRAGMA synchronous=", synchronous).c_str()), SQLITE_OK);
    ASSERT_EQ(exec(db, "CREATE TABLE kept(x)"), SQLITE_OK);
    int crashes = 0;
    disk.SetFaults({{SimDisk::Fault::Kind::kPowerCut, 2}}, [&] { ++crashes; });
    disk.Arm(true);
    ASSERT_EQ(exec(db, "CREATE TABLE t(x)"), SQLITE_OK);
    EXPECT_NE(exec(db, "CREATE TABLE u(x)"), SQLITE_OK);  // the power goes
    EXPECT_EQ(crashes, 1);
    sqlite3_close(db);
    disk.Recover();
    disk.Arm(false);
    ASSERT_EQ(sqlite3_open_v2("raw.db", &db, SQLITE_OPEN_READWRITE, disk.name().c_str()),
              SQLITE_OK);
    bool has_t = exec(db, "SELECT x FROM t") == SQLITE_OK;
    bool has_kept = exec(db, "SELECT x FROM kept") == SQLITE_OK;
    sqlite3_close(db);
    EXPECT_TRUE(has_kept) << synchronous;  // there when the faults were set: synced
    EXPECT_EQ(has_t, std::string(synchronous) == "NORMAL") << synchronous;
  }
}

TEST(SimDiskWithoutSnapshotTest, RestoreIsRefused) {
  absl::StatusOr<std::unique_ptr<SimDisk>> disk = SimDisk::Create();
  ASSERT_OK(disk);
  EXPECT_THAT((*disk)->Restore(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace agentrt::sim
