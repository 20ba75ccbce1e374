// The simulator's disk (sim/sim_disk.h) under a real store: what a crash leaves, that reads go
// on and writes resume after it, a snapshot restored under an open connection, and that
// nothing of the machine (its files, its clock) reaches a database on it.
#include "sim/sim_disk.h"

#include <memory>
#include <string>
#include <vector>

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

TEST(SimDiskWithoutSnapshotTest, RestoreIsRefused) {
  absl::StatusOr<std::unique_ptr<SimDisk>> disk = SimDisk::Create();
  ASSERT_OK(disk);
  EXPECT_THAT((*disk)->Restore(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace agentrt::sim
