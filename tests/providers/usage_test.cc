// A provider's token counts are untrusted input (providers/usage.h): only a plain non-negative
// integer that fits 64 bits is a count, the counts must agree, and anything else is unusable
// usage (the model caller then charges the estimate). Also the ids made up for tool uses a
// provider sent without one.
#include "providers/usage.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/model.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::testing::_;

// UsageCount of `literal` parsed as one JSON value; the document lives through the call.
absl::StatusOr<std::int64_t> CountOf(std::string_view field, std::string_view literal) {
  absl::StatusOr<json::Document> doc = json::Parse(literal);
  if (!doc.ok()) return doc.status();
  return UsageCount(field, doc->root());
}

TEST(UsageTest, UsageCountAbsentOrNullIsZero) {
  EXPECT_THAT(UsageCount("input_tokens", std::nullopt), IsOkAndHolds(0));
  EXPECT_THAT(CountOf("input_tokens", "null"), IsOkAndHolds(0));
}

TEST(UsageTest, UsageCountAcceptsAPlainNonNegativeIntegerThatFits) {
  EXPECT_THAT(CountOf("input_tokens", "0"), IsOkAndHolds(0));
  EXPECT_THAT(CountOf("input_tokens", "42"), IsOkAndHolds(42));
  EXPECT_THAT(CountOf("input_tokens", "-0"), IsOkAndHolds(0));
  EXPECT_THAT(CountOf("input_tokens", "9223372036854775807"),
              IsOkAndHolds(std::numeric_limits<std::int64_t>::max()));
}

TEST(UsageTest, UsageCountRefusesAnythingElseNamingTheField) {
  for (const char* literal : {"-1", "9223372036854775808", "-9223372036854775809", "1e3", "1E3",
                              "1.5", "1.0", "\"12\"", "true", "{}", "[]"}) {
    SCOPED_TRACE(literal);
    absl::StatusOr<std::int64_t> count = CountOf("output_tokens", literal);
    ASSERT_FALSE(count.ok());
    EXPECT_EQ(ClassifyModelError(count.status()).kind, ModelErrorKind::kUnusableUsage);
    EXPECT_THAT(std::string(count.status().message()),
                AllOf(StartsWith("unusable usage: output_tokens is "), EndsWith(", not a count")));
  }
}

TEST(UsageTest, UsageCountRefusalShowsTheValue) {
  absl::StatusOr<std::int64_t> count = CountOf("cache_read_input_tokens", "-1");

  EXPECT_THAT(count, StatusIs(_, "unusable usage: cache_read_input_tokens is -1, not a count"));
}

TEST(UsageTest, UsageCountRefusalShowsAtMost64BytesOfAHostileValue) {
  const std::string hostile = std::string(500, 'A') + "\x1b[2J";
  absl::StatusOr<std::int64_t> count = CountOf("input_tokens", absl::StrCat("\"", hostile, "\""));

  ASSERT_FALSE(count.ok());
  std::string message(count.status().message());
  const std::size_t frame =
      std::string_view("unusable usage: input_tokens is , not a count").size();
  EXPECT_LE(message.size(), frame + 64);
  EXPECT_THAT(message, Not(HasSubstr("\x1b")));
}

TEST(UsageTest, CheckUsageAcceptsCachedEqualToInput) {
  EXPECT_OK(CheckUsage(Usage{.input_tokens = 10, .output_tokens = 5, .cached_input_tokens = 10}));
  EXPECT_OK(CheckUsage(Usage{}));
}

TEST(UsageTest, CheckUsageNegativeOrMoreCachedThanInputIsUnusable) {
  struct Row {
    Usage usage;
    std::string reason;
  };
  const std::vector<Row> rows = {
      {{.input_tokens = -1, .output_tokens = 0, .cached_input_tokens = 0}, "input tokens -1"},
      {{.input_tokens = 0, .output_tokens = -1, .cached_input_tokens = 0}, "output tokens -1"},
      {{.input_tokens = 10, .output_tokens = 0, .cached_input_tokens = -1},
       "cached input tokens -1"},
      {{.input_tokens = 10, .output_tokens = 0, .cached_input_tokens = 11},
       "cached input tokens 11 exceed input tokens 10"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.reason);
    absl::Status status = CheckUsage(row.usage);
    EXPECT_THAT(status, StatusIs(_, HasSubstr(row.reason)));
    EXPECT_EQ(ClassifyModelError(status).kind, ModelErrorKind::kUnusableUsage);
  }
}

TEST(UsageTest, SynthesizeToolUseIdHasThePrefixRandomHexAndTheIndex) {
  world::SeededEntropy entropy(1);

  EXPECT_THAT(SynthesizeToolUseId(entropy, 0), MatchesRegex("call_[0-9a-f]{16}_0"));
  EXPECT_THAT(SynthesizeToolUseId(entropy, 17), MatchesRegex("call_[0-9a-f]{16}_17"));
}

TEST(UsageTest, SynthesizeToolUseIdIsUniqueAcrossIndicesAndCalls) {
  world::SeededEntropy entropy(3);
  std::set<std::string> ids;
  for (int call = 0; call < 2; ++call) {
    for (std::size_t i = 0; i < 50; ++i) ids.insert(SynthesizeToolUseId(entropy, i));
  }
  EXPECT_THAT(ids, SizeIs(100));
}

TEST(UsageTest, SynthesizeToolUseIdReplaysTheSameSequenceFromTheSameSeed) {
  world::SeededEntropy first(42);
  world::SeededEntropy second(42);
  world::SeededEntropy other(43);
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    std::string id = SynthesizeToolUseId(first, i);
    EXPECT_EQ(SynthesizeToolUseId(second, i), id);
    EXPECT_NE(SynthesizeToolUseId(other, i), id);
  }
}

}  // namespace
}  // namespace agentrt::providers
