#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/timestamp.h"

namespace agentrt::world {
namespace {

using ::testing::MatchesRegex;

TEST(ManualClockTest, ReadingsChangeOnlyWhenTheOwnerMovesTheClock) {
  ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(clock.Now(), clock.Now());
  clock.Advance(absl::Milliseconds(1500));
  EXPECT_EQ(clock.Now(), absl::FromUnixMillis(1'800'000'001'500));
  clock.Set(absl::FromUnixSeconds(5));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(5));
}

TEST(EntropyTest, SeededEntropyIsReproducibleAndSeedsDiffer) {
  SeededEntropy a(42), b(42), c(43);
  std::string first = a.NewId();
  EXPECT_EQ(first, b.NewId());
  EXPECT_NE(first, c.NewId());
  EXPECT_NE(first, a.NewId());  // the stream moves on
  EXPECT_THAT(first, MatchesRegex("[0-9a-f]{32}"));
}

TEST(EntropyTest, OsEntropyIdsAreDistinct) {
  OsEntropy entropy;
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(entropy.NewId());
  EXPECT_EQ(ids.size(), 1000u);
}

TEST(TimestampTest, FixedWidthUtcWithNineFractionalDigits) {
  absl::Time t = absl::FromUnixNanos(1'796'074'700'120'000'000);
  EXPECT_EQ(FormatTimestamp(t), "2026-11-30T21:38:20.120000000Z");
  EXPECT_EQ(FormatTimestamp(absl::FromUnixSeconds(0)), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(FormatTimestamp(ZeroTime()), "");
  EXPECT_EQ(*ParseTimestamp(FormatTimestamp(t)), t);
  EXPECT_EQ(*ParseTimestamp(""), ZeroTime());
}

TEST(TimestampTest, TextOrderIsTimeOrder) {
  absl::Time base = absl::FromUnixSeconds(1'800'000'000);
  std::string earlier = FormatTimestamp(base + absl::Nanoseconds(900'000'000));
  std::string later = FormatTimestamp(base + absl::Seconds(1));
  EXPECT_LT(earlier, later);
}

TEST(TimestampTest, AnythingElseIsRefused) {
  for (const char* text : {"2026-11-29T21:45:00Z", "2026-11-29 21:45:00.000000000Z",
                           "2026-11-29T21:45:00.000000000+01:00", "yesterday"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(ParseTimestamp(text).ok());
  }
}

}  // namespace
}  // namespace agentrt::world
