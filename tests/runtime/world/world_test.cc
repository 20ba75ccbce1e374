#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/timestamp.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

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

// The hand-written formatter agrees with the general one everywhere the form is fixed-width:
// both ends of the range, around the epoch, leap days and centuries, and a spread of instants
// with every nanosecond digit in play.
TEST(TimestampTest, AgreesWithTheGeneralFormatter) {
  auto general = [](absl::Time t) {
    return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E9SZ", t, absl::UTCTimeZone());
  };
  std::vector<absl::Time> times = {
      absl::FromUnixSeconds(-30'610'224'000),  // 1000-01-01
      absl::FromUnixSeconds(253'402'300'799) + absl::Nanoseconds(999'999'999),
      absl::FromUnixSeconds(0) - absl::Nanoseconds(1),
      absl::FromUnixSeconds(0),
      absl::FromCivil(absl::CivilSecond(2000, 2, 29, 23, 59, 59), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(1900, 3, 1, 0, 0, 0), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(2100, 2, 28, 12, 0, 0), absl::UTCTimeZone()),
      absl::FromCivil(absl::CivilSecond(1600, 12, 31, 1, 2, 3), absl::UTCTimeZone()),
  };
  std::uint64_t x = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 20'000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::int64_t seconds = -30'610'224'000 + static_cast<std::int64_t>(x % 284'012'524'800u);
    times.push_back(absl::FromUnixSeconds(seconds) +
                    absl::Nanoseconds(static_cast<std::int64_t>((x >> 20) % 1'000'000'000)));
  }
  for (absl::Time t : times) {
    ASSERT_EQ(FormatTimestamp(t), general(t)) << absl::ToUnixNanos(t);
    ASSERT_EQ(*ParseTimestamp(FormatTimestamp(t)), t);
  }
  // Outside 1000-9999 the general formatter answers (the form is no longer fixed-width).
  for (absl::Time far :
       {absl::FromUnixSeconds(253'402'300'800), absl::FromUnixSeconds(-30'610'224'001)}) {
    EXPECT_EQ(FormatTimestamp(far), general(far));
  }
}

// ParseTimestamp reads the engine's own texts by hand and hands anything else to the general
// parser: on texts at and past every edge of the hand-read form, it answers exactly as the
// general parser does (the same instant, or a refusal).
TEST(TimestampTest, ReadsAsTheGeneralParserDoes) {
  auto general = [](std::string_view text) -> std::optional<absl::Time> {
    absl::Time t;
    std::string error;
    if (text.size() != 30 ||
        !absl::ParseTime("%Y-%m-%d%ET%H:%M:%E9SZ", ToAbsl(text), absl::UTCTimeZone(), &t, &error)) {
      return std::nullopt;
    }
    return t;
  };
  for (const char* text : {
           "2024-02-29T12:00:00.000000000Z",  // a leap day
           "2023-02-29T12:00:00.000000000Z",  // not one
           "1900-02-29T00:00:00.000000000Z",  // a century is not, but for every 400th
           "2000-02-29T00:00:00.000000000Z",
           "2026-04-31T00:00:00.000000000Z",  // past the month's end
           "2026-13-01T00:00:00.000000000Z",  // past the year's
           "2026-00-10T00:00:00.000000000Z",  // before it
           "2026-11-00T00:00:00.000000000Z",
           "2026-11-29T24:00:00.000000000Z",  // past the day's end
           "2026-11-29T23:60:00.000000000Z",
           "2026-12-31T23:59:60.000000000Z",  // a leap second
           "2026-11-29T23:59:59.999999999Z",
           "1000-01-01T00:00:00.000000000Z",  // the first year of the form
           "0999-12-31T23:59:59.999999999Z",  // before it
           "9999-12-31T23:59:59.999999999Z",  // its last instant
           "+026-11-29T21:45:00.000000000Z",  // a sign where a digit goes
           "2026-11-29T21:45:00.00000000xZ",  // a letter
           "2026-11-29T21:45:00.000000000z",  // a lowercase zone
           "2026/11/29T21:45:00.000000000Z",  // other separators
           "2026-11-29t21:45:00.000000000Z", "2026-11-29T21-45:00.000000000Z",
           "2026-11-29T21:45:00,000000000Z",
       }) {
    SCOPED_TRACE(text);
    absl::StatusOr<absl::Time> ours = ParseTimestamp(text);
    std::optional<absl::Time> theirs = general(text);
    ASSERT_EQ(ours.ok(), theirs.has_value()) << ours.status();
    if (theirs) EXPECT_EQ(*ours, *theirs);
  }
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
    EXPECT_EQ(ParseTimestamp(text).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace agentrt::world
