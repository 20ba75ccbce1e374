// agentrt's tables as the records layer gives them to the store (runtime/records/schema.h).
#include "runtime/records/schema.h"

#include <cstddef>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/sha256.h"
#include "runtime/world/clock.h"
#include "tests/support/status_matchers.h"

namespace agentrt::records {
namespace {

TEST(MigrationsTest, ReleasedMigrationsAreUnchanged) {
  // A released migration is never edited: add a new one instead, and add its hash here.
  const char* kHashes[] = {
      "25707d3cf474e9baaeed7f48ade2c6abc83f30741fb5c2a6b1eecc9da7a67a20",
      "a91b821308f7d645d649e3a5df9112e3d54de4049e265f37a4f9200e574cb5ec",
      "80ed98e3768af38b2e4460c975ce38a902565b4816e2e2316e6417796d6dc1ff",
      "aa833a3c16f120f38ab8b7e06f98b25c1691a2627c9a2273c4d21aaacede8b5d",
      "e9d8fa271cb148687026633a9832135c56d0d7f3060572a40e865825ad6fd5a5",
      "e5997d82039c9cd4e9c7bdefba85d585aa2679ca7f9e0bd16f95d92588db81db",
      "52036f34aea12dbff53c9f2a7b71f6d8cacdb455a94da4e8f181e9f89849916e",
      "78a1f7f8f649d81d4f5fc1fb53aba973bdeee3b6b5e091c269d2c56a8138379a",
  };
  store::Schema migrations = Migrations();
  ASSERT_THAT(migrations, SizeIs(8));
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    SCOPED_TRACE(migrations[i].description);
    EXPECT_EQ(migrations[i].version, static_cast<int>(i + 1));
    EXPECT_EQ(json::Sha256Hex(migrations[i].sql), kHashes[i]);
  }
  // The two backfills of the released sequence: leases for runs of a build without them (5),
  // hashes for events written before the chain (6); the old-database tests show what each does.
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    EXPECT_EQ(migrations[i].backfill != nullptr, i == 4 || i == 5) << "migration " << i + 1;
    // Integer keys (8) rebuild tables, after refusing rows the copy would lose.
    EXPECT_EQ(migrations[i].rebuilds_tables, i == 7) << "migration " << i + 1;
    EXPECT_EQ(migrations[i].precheck != nullptr, i == 7) << "migration " << i + 1;
  }
}

TEST(MigrationsTest, AStoreOpenedThroughTheRecordsLayerHoldsEveryMigration) {
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenStoreInMemory(clock);
  ASSERT_OK(store);
  EXPECT_EQ((*store)->schema_version(), static_cast<int>(Migrations().size()));
}

}  // namespace
}  // namespace agentrt::records
