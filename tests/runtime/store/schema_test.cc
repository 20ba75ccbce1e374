// The store applies the schema its caller gives (runtime/store/schema.h) and knows no table
// but the events its chain is written to: these tests hold it to that with schemas of their
// own, none of them agentrt's.
#include "runtime/store/schema.h"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/timestamp.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"

namespace agentrt::store {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

constexpr std::string_view kEventsOnly = R"sql(
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL DEFAULT '',
  at TEXT NOT NULL,
  type TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  hash TEXT NOT NULL DEFAULT ''
);
)sql";

// Writes what it was told of the open into the table its migration made, for the test to read.
absl::Status NoteContext(Transaction& tx, const MigrationContext& context) {
  std::string now = world::FormatTimestamp(context.now);
  return test_support::TamperIn(tx, "what the backfill was told",
                                "INSERT INTO notes (path, now) VALUES (?1, ?2)",
                                {context.path, std::string_view(now)})
      .status();
}

absl::Status Refuse(Transaction&, const MigrationContext&) {
  return absl::DataLossError("the backfill found rows it cannot mend");
}

constexpr Migration kEventsSchema[] = {{1, "events", kEventsOnly}};
constexpr Migration kTwoSchema[] = {
    {1, "events", kEventsOnly},
    {2, "notes", "CREATE TABLE notes (path TEXT, now TEXT);", &NoteContext}};
constexpr Migration kRefusingSchema[] = {
    {1, "events", kEventsOnly}, {2, "notes", "CREATE TABLE notes (path TEXT, now TEXT);", &Refuse}};

class StoreSchemaTest : public ::testing::Test {
 protected:
  std::vector<std::vector<std::string>> Notes(Store& store) {
    absl::StatusOr<std::vector<SqlRow>> rows = test_support::Peek(
        store, "what the backfills noted", "SELECT path, now FROM notes ORDER BY rowid");
    EXPECT_OK(rows);
    return rows.ok() ? *rows : std::vector<SqlRow>{};
  }

  std::string path_ = test_support::TestFile("own.db");
  world::ManualClock clock_{kStart};
};

TEST_F(StoreSchemaTest, TheStoreChainsEventsUnderASchemaThatHasOnlyTheEventsTable) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_, clock_, kEventsSchema);
  ASSERT_OK(store);
  EXPECT_EQ((*store)->schema_version(), 1);
  ASSERT_OK((*store)->Write([](Transaction& tx) -> absl::Status {
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<Event> e = tx.AppendEvent("anything", "", kStart, "test.event", "{}");
      if (!e.ok()) return e.status();
    }
    return absl::OkStatus();
  }));
  absl::StatusOr<ChainReport> report = (*store)->VerifyEvents();
  ASSERT_OK(report);
  EXPECT_EQ(report->checked, 3);
  EXPECT_FALSE(report->broken.has_value());
}

TEST_F(StoreSchemaTest, AMigrationsBackfillRunsOnceWithTheOpensPathAndClock) {
  ASSERT_OK(Store::Open(path_, clock_, kEventsSchema));
  clock_.Advance(absl::Minutes(5));
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_, clock_, kTwoSchema);
  ASSERT_OK(store);
  EXPECT_EQ((*store)->schema_version(), 2);
  const std::vector<std::vector<std::string>> once = {
      {path_, world::FormatTimestamp(kStart + absl::Minutes(5))}};
  EXPECT_EQ(Notes(**store), once);
  store->reset();
  clock_.Advance(absl::Minutes(5));
  store = Store::Open(path_, clock_, kTwoSchema);
  ASSERT_OK(store);
  EXPECT_EQ(Notes(**store), once) << "a migration applied is not applied again";
}

TEST_F(StoreSchemaTest, AFailedBackfillLeavesTheDatabaseAsTheOpenFoundIt) {
  ASSERT_OK(Store::Open(path_, clock_, kEventsSchema));
  EXPECT_THAT(Store::Open(path_, clock_, kRefusingSchema),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("cannot mend")));
  // Migration 2's table went with its failed backfill: the file is still at version 1, and
  // the schema that numbers 2 differently applies cleanly.
  absl::StatusOr<std::unique_ptr<Store>> store = Store::OpenExisting(path_, kEventsSchema, true);
  ASSERT_OK(store);
  EXPECT_EQ((*store)->schema_version(), 1);
  store->reset();
  ASSERT_OK(Store::Open(path_, clock_, kTwoSchema));
}

TEST_F(StoreSchemaTest, ADatabaseAtALaterVersionThanTheSchemaIsRefused) {
  ASSERT_OK(Store::Open(path_, clock_, kTwoSchema));
  EXPECT_THAT(Store::Open(path_, clock_, kEventsSchema),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is at schema version 2, newer than this build knows (1)")));
  // The caller's hint is for an older database only.
  absl::StatusOr<std::unique_ptr<Store>> newer =
      Store::OpenExisting(path_, kEventsSchema, true, " (migrate it first)");
  EXPECT_THAT(newer, StatusIs(absl::StatusCode::kFailedPrecondition,
                              HasSubstr("is at schema version 2; this build reads version 1")));
  EXPECT_THAT(newer.status().message(), ::testing::Not(::testing::HasSubstr("migrate it first")));
}

TEST_F(StoreSchemaTest, AnOlderDatabaseIsRefusedByReadersWithTheCallersHint) {
  ASSERT_OK(Store::Open(path_, clock_, kEventsSchema));
  EXPECT_THAT(Store::OpenExisting(path_, kTwoSchema, true, " (migrate it first)"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("is at schema version 1; this build reads version 2 (migrate "
                                 "it first)")));
}

TEST_F(StoreSchemaTest, ASchemaNumberedOutOfOrderIsRefusedBeforeAnyFileIsMade) {
  constexpr Migration kGap[] = {{1, "events", kEventsOnly}, {3, "notes", "SELECT 1;"}};
  EXPECT_THAT(Store::Open(path_, clock_, kGap),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("migration 2 (\"notes\") is numbered 3")));
  EXPECT_THAT(Store::Open(path_, clock_, Schema{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no migration")));
  EXPECT_THAT(Store::OpenInMemory(clock_, Schema{}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_FALSE(std::filesystem::exists(path_));
}

}  // namespace
}  // namespace agentrt::store
