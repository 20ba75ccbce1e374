// Durations as the operator's files write them (docs/mcp.md, "The configuration"): parsed strictly,
// written back in the same short form.
#include "mcp/duration.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

TEST(DurationTextTest, ParsesTheFilesSyntax) {
  struct Row {
    const char* text;
    absl::Duration want;
  };
  for (const Row& row : {
           Row{"0", absl::ZeroDuration()},
           Row{"0s", absl::ZeroDuration()},
           Row{"5s", absl::Seconds(5)},
           Row{"10s", absl::Seconds(10)},
           Row{"1m30s", absl::Seconds(90)},
           Row{"1.5h", absl::Minutes(90)},
           Row{"250ms", absl::Milliseconds(250)},
           Row{"1.5ms", absl::Microseconds(1500)},
           Row{"3us", absl::Microseconds(3)},
           Row{"3\xC2\xB5s", absl::Microseconds(3)},  // µs, U+00B5
           Row{"3\xCE\xBCs", absl::Microseconds(3)},  // μs, U+03BC
           Row{"7ns", absl::Nanoseconds(7)},
           Row{".5s", absl::Milliseconds(500)},
           Row{"5.s", absl::Seconds(5)},
           Row{"+2h", absl::Hours(2)},
           Row{"-1s", absl::Seconds(-1)},
           Row{"1h2m3s4ms",
               absl::Hours(1) + absl::Minutes(2) + absl::Seconds(3) + absl::Milliseconds(4)},
           Row{"2562047h47m16.854775807s", absl::Nanoseconds(INT64_MAX)},
           Row{"-2562047h47m16.854775808s", absl::Nanoseconds(INT64_MIN)},
       }) {
    SCOPED_TRACE(row.text);
    absl::StatusOr<absl::Duration> d = ParseDurationText(row.text);
    ASSERT_OK(d);
    EXPECT_EQ(*d, row.want);
  }
}

TEST(DurationTextTest, RefusesWhatIsNotADuration) {
  struct Row {
    const char* text;
    const char* error;
  };
  for (const Row& row : {
           Row{"", "invalid duration \"\""},
           Row{"5", "missing unit in duration \"5\""},
           Row{"-", "invalid duration \"-\""},
           Row{"s", "invalid duration \"s\""},
           Row{".s", "invalid duration \".s\""},
           Row{"5x", "unknown unit \"x\" in duration \"5x\""},
           Row{"5 s", "unknown unit \" s\" in duration \"5 s\""},
           Row{"inf", "invalid duration \"inf\""},
           Row{"1d", "unknown unit \"d\" in duration \"1d\""},
           Row{"2562047h47m16.854775808s", "out of range"},
           Row{"9999999999999999999h", "out of range"},
       }) {
    SCOPED_TRACE(row.text);
    absl::StatusOr<absl::Duration> d = ParseDurationText(row.text);
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(d.status().message(), HasSubstr(row.error));
  }
}

TEST(DurationTextTest, WritesTheShortForm) {
  struct Row {
    absl::Duration d;
    const char* text;
  };
  for (const Row& row : {
           Row{absl::ZeroDuration(), "0s"},
           Row{absl::Nanoseconds(7), "7ns"},
           Row{absl::Microseconds(1), "1\xC2\xB5s"},
           Row{absl::Nanoseconds(1500), "1.5\xC2\xB5s"},
           Row{absl::Milliseconds(50), "50ms"},
           Row{absl::Milliseconds(300), "300ms"},
           Row{absl::Microseconds(1500), "1.5ms"},
           Row{absl::Seconds(5), "5s"},
           Row{absl::Seconds(30), "30s"},
           Row{absl::Seconds(90), "1m30s"},
           Row{absl::Minutes(10), "10m0s"},
           Row{absl::Hours(1), "1h0m0s"},
           Row{absl::Hours(24), "24h0m0s"},
           Row{absl::Milliseconds(2500), "2.5s"},
           Row{absl::Seconds(-3), "-3s"},
           Row{absl::Nanoseconds(INT64_MAX), "2562047h47m16.854775807s"},
           Row{absl::Nanoseconds(INT64_MIN), "-2562047h47m16.854775808s"},
       }) {
    SCOPED_TRACE(row.text);
    EXPECT_EQ(DurationText(row.d), row.text);
    absl::StatusOr<absl::Duration> back = ParseDurationText(row.text);
    ASSERT_OK(back);
    EXPECT_EQ(*back, row.d);
  }
}

}  // namespace
}  // namespace agentrt::mcp
