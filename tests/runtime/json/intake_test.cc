#include "runtime/json/intake.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/canonical_json.h"
#include "tests/support/status_matchers.h"

namespace agentrt::json {
namespace {

struct Refusal {
  std::string input;
  std::string message;  // the whole "what at byte N" part
};

TEST(IntakeTest, RefusalsNameTheRuleAndTheByteOffset) {
  const Refusal rows[] = {
      {R"({"a":1,"a":2})", "duplicate object key \"a\" at byte 7"},
      {R"({"x":{"k":[{"id":1,"id":1}]}})", "duplicate object key \"id\" at byte 19"},
      {"[\"\xFF\"]", "invalid UTF-8 in string at byte 2"},
      {"[\"\xC0\xAF\"]", "invalid UTF-8 in string at byte 2"},
      {R"(["\uDC00"])", "lone low surrogate escape in string at byte 2"},
      {R"(["\uD800x"])", "high surrogate escape not followed by a low surrogate at byte 2"},
      {R"(["\uD800\u0041"])", "high surrogate escape not followed by a low surrogate at byte 2"},
      {"[1] x", "data after the JSON value at byte 4"},
      {"", "empty input, expected a value at byte 0"},
      {"  ", "empty input, expected a value at byte 2"},
      {"\xEF\xBB\xBF{}", "byte order mark before the value"},
      {"[01]", "number with a leading zero at byte 2"},
      {"[1e10001]", "number exponent beyond ±10000 at byte 3"},
      {"[1e-10001]", "number exponent beyond ±10000 at byte 4"},
      {"[\"a\tb\"]", "unescaped control character 0x09 in string at byte 3"},
      {R"(["\x"])", "invalid escape in string at byte 2"},
      {"[1,]", "unexpected ']', expected a value at byte 3"},
      {"{\"a\" 1}", "unexpected '1', expected ':' at byte 5"},
      {"[\"abc", "unterminated string at byte 1"},
      {"[true", "unexpected end of input, expected ',' or ']' at byte 5"},
      {"\x01", "unexpected byte 0x01, expected a value at byte 0"},
  };
  for (const Refusal& row : rows) {
    SCOPED_TRACE(row.input);
    absl::StatusOr<Document> doc = Parse(row.input);
    ASSERT_THAT(doc, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)));
  }
}

TEST(IntakeTest, DuplicateKeyInErrorIsEscapedForTerminals) {
  absl::StatusOr<Document> doc = Parse("{\"\\u001b[2J\":1,\"\\u001b[2J\":2}");
  ASSERT_THAT(doc, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"\\x1b[2J\"")));
  EXPECT_EQ(doc.status().message().find('\x1b'), std::string::npos);
}

TEST(IntakeTest, NestingUpTo256IsAcceptedAnd257IsRefused) {
  EXPECT_OK(Parse(std::string(256, '[') + std::string(256, ']')));
  absl::StatusOr<Document> deep = Parse(std::string(257, '[') + std::string(257, ']'));
  ASSERT_THAT(deep, StatusIs(absl::StatusCode::kInvalidArgument,
                             HasSubstr("nesting deeper than 256 levels at byte 256")));
  std::string objects;
  for (int i = 0; i < 257; ++i) objects += "{\"a\":";
  objects += "1" + std::string(257, '}');
  EXPECT_THAT(Parse(objects).status().message(), HasSubstr("nesting deeper than 256 levels"));
  // A deep hostile document is refused quickly, without recursion past the limit.
  EXPECT_THAT(Parse(std::string(1'000'000, '[')).status().message(),
              HasSubstr("nesting deeper than 256 levels at byte 256"));
}

TEST(IntakeTest, NumberLiteralLengthIsBoundedAt10000Characters) {
  std::string ok = "1" + std::string(9'999, '0');
  EXPECT_OK(Parse(ok));
  absl::StatusOr<Document> long_number = Parse(ok + "0");
  ASSERT_THAT(
      long_number,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("number literal of 10001 characters is longer than the limit of 10000")));
}

TEST(IntakeTest, ExponentsUpTo10000AreAccepted) {
  EXPECT_OK(Parse("1e10000"));
  EXPECT_OK(Parse("1e-10000"));
  EXPECT_OK(Parse("1e0000000000000000010000"));  // leading zeros do not count
  absl::Status huge = Parse("1e99999999999999999999999999").status();
  EXPECT_EQ(huge.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.message(), HasSubstr("exponent"));
}

TEST(IntakeTest, MagnitudeIsBoundedLikeTheExponentSoCanonicalFormStaysAccepted) {
  EXPECT_OK(Parse("9.99e10000"));
  EXPECT_OK(Parse("99e9999"));      // 9.9e+10000
  EXPECT_OK(Parse("0.001e-9997"));  // 1e-10000
  EXPECT_OK(Parse("0e99"));         // zero has no magnitude
  const Refusal rows[] = {
      {"[123e10000]", "number magnitude beyond 1e±10000 at byte 1"},
      {"[-4444e+9999]", "number magnitude beyond 1e±10000 at byte 1"},
      {"[0.01e-9999]", "number magnitude beyond 1e±10000 at byte 1"},
      {"[" + std::string(10'001, '1') + "]", "longer than the limit"},
  };
  for (const Refusal& row : rows) {
    SCOPED_TRACE(row.input.substr(0, 20));
    absl::StatusOr<Document> doc = Parse(row.input);
    ASSERT_THAT(doc, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)));
  }
  std::string at_limit = "1" + std::string(9'999, '0');  // 1e+9999 written in full
  absl::StatusOr<std::string> canonical = Canonicalize(at_limit);
  ASSERT_OK(canonical);
  EXPECT_EQ(*canonical, "1e+9999");
  EXPECT_OK(Canonicalize(*canonical));
}

TEST(IntakeTest, LimitsAreSettable) {
  IntakeLimits limits;
  limits.max_depth = 2;
  limits.max_bytes = 16;
  EXPECT_OK(Parse("[[1]]", limits));
  EXPECT_THAT(Parse("[[[1]]]", limits), StatusIs(absl::StatusCode::kInvalidArgument));
  absl::StatusOr<Document> big = Parse("[" + std::string(20, ' ') + "]", limits);
  ASSERT_THAT(
      big, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("larger than the limit of 16")));
}

TEST(IntakeTest, DocumentKeepsLiteralsDecodedStringsAndSortedMembers) {
  absl::StatusOr<Document> doc =
      Parse(R"({"zeta":[true,false,null],"alpha":"a\u00e9\n","n":1.50E+3,"nul":"\u0000"})");
  ASSERT_OK(doc);
  Value root = doc->root();
  ASSERT_TRUE(root.is_object());
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root.key(0), "alpha");
  EXPECT_EQ(root.key(1), "n");
  EXPECT_EQ(root.key(2), "nul");
  EXPECT_EQ(root.key(3), "zeta");
  EXPECT_EQ(root.Find("alpha")->string_value(), "a\xC3\xA9\n");
  EXPECT_EQ(root.Find("n")->number_literal(), "1.50E+3");
  EXPECT_EQ(root.Find("nul")->string_value(), std::string_view("\0", 1));
  Value zeta = *root.Find("zeta");
  ASSERT_TRUE(zeta.is_array());
  ASSERT_EQ(zeta.size(), 3u);
  EXPECT_TRUE(zeta.element(0).bool_value());
  EXPECT_FALSE(zeta.element(1).bool_value());
  EXPECT_TRUE(zeta.element(2).is_null());
  EXPECT_FALSE(root.Find("missing").has_value());
  EXPECT_FALSE(zeta.Find("alpha").has_value());
  EXPECT_EQ(KindName(zeta.kind()), "array");
}

TEST(IntakeTest, SurrogatePairEscapesDecodeToOneCharacter) {
  absl::StatusOr<Document> doc = Parse(R"("\ud83d\ude02")");
  ASSERT_OK(doc);
  EXPECT_EQ(doc->root().string_value(), "\xF0\x9F\x98\x82");
}

TEST(IntakeTest, CompareUtf16OrdersSupplementaryBeforeHighBmp) {
  EXPECT_LT(CompareUtf16("\xF0\x9F\x98\x82", "\xEF\xAC\xB3"), 0);
  EXPECT_GT(CompareUtf16("\xEE\x80\x80", "\xF0\x90\x80\x80"), 0);
  EXPECT_LT(CompareUtf16("a", "b"), 0);
  EXPECT_LT(CompareUtf16("a", "ab"), 0);
  EXPECT_EQ(CompareUtf16("", ""), 0);
  EXPECT_LT(CompareUtf16("\xED\x9F\xBF", "\xF0\x90\x80\x80"), 0);  // U+D7FF < U+10000
}

}  // namespace
}  // namespace agentrt::json
