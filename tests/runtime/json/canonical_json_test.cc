#include "runtime/json/canonical_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sha256.h"
#include "tests/support/status_matchers.h"

namespace agentrt::json {
namespace {

namespace fs = std::filesystem;

const fs::path kJcsDir = fs::path(AGENTRT_SHARED_DIR) / "testdata/jcs/testdata";

std::string ReadFileOrDie(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string CanonicalOrDie(std::string_view json) {
  absl::StatusOr<std::string> out = Canonicalize(json);
  EXPECT_OK(out) << "for " << json;
  return out.ok() ? *out : std::string();
}

// The one vector whose number a double cannot hold: 333333333.33333329 needs 17 significant
// digits that round to 333333333.3333333; we keep the literal (docs/formats/json.md).
constexpr std::string_view kJcsRounded = "333333333.3333333";
constexpr std::string_view kOurLiteral = "333333333.33333329";

TEST(CanonicalJsonTest, EveryRfc8785VectorMatchesByteForByte) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kJcsDir / "input")) {
    std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    std::string expected = ReadFileOrDie(kJcsDir / "output" / name);
    if (name == "values.json") {
      ASSERT_THAT(expected, HasSubstr(kJcsRounded));
      expected.replace(expected.find(kJcsRounded), kJcsRounded.size(), kOurLiteral);
    }
    EXPECT_EQ(CanonicalOrDie(ReadFileOrDie(entry.path())), expected);
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(CanonicalJsonTest, KeysSortByUtf16CodeUnitsNotBytes) {
  // U+1F602 is the surrogate pair D83D DE02 in UTF-16, before U+FB33 (FB33); in UTF-8 bytes
  // it would sort after (F0 > EF).
  EXPECT_EQ(CanonicalOrDie(R"({"\ufb33":1,"\ud83d\ude02":2,"\u00f6":3,"a":4})"),
            "{\"a\":4,\"\xC3\xB6\":3,\"\xF0\x9F\x98\x82\":2,\"\xEF\xAC\xB3\":1}");
}

TEST(CanonicalJsonTest, KeyOrderAndWhitespaceDoNotChangeTheBytes) {
  EXPECT_EQ(CanonicalOrDie(R"({ "b" : [1, {"y":2,"x":1}], "a" : null })"),
            R"({"a":null,"b":[1,{"x":1,"y":2}]})");
}

TEST(CanonicalJsonTest, StringsEscapeOnlyWhatJsonRequires) {
  struct Row {
    std::string input;
    std::string expected;
  } rows[] = {
      {R"("<a href='x'>&</a>")", R"("<a href='x'>&</a>")"},   // no HTML escaping
      {R"("\u0000\u001f\u007f")", "\"\\u0000\\u001f\x7F\""},  // DEL raw
      {R"("\b\f\n\r\t")", R"("\b\f\n\r\t")"},
      {R"("\u2028\u2029")", "\"\xE2\x80\xA8\xE2\x80\xA9\""},  // raw, unlike Go's encoder
      {R"("\/")", R"("/")"},
      {R"("\u00e9")", "\"\xC3\xA9\""},
      {R"("\"\\")", R"("\"\\")"},
      {R"("\u000B")", R"("\u000b")"},  // lowercase hex
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.input);
    EXPECT_EQ(CanonicalOrDie(row.input), row.expected);
  }
}

TEST(CanonicalJsonTest, NumbersADoubleCannotHoldStayDistinct) {
  EXPECT_EQ(CanonicalOrDie("9007199254740993"), "9007199254740993");
  EXPECT_EQ(CanonicalOrDie("9007199254740992"), "9007199254740992");
  EXPECT_NE(*HashCanonical("[9007199254740993]"), *HashCanonical("[9007199254740992]"));
}

TEST(CanonicalJsonTest, SpellingsOfTheSameNumberCanonicalizeAlike) {
  for (std::string_view spelling : {"1", "1.0", "1e0", "1E+0", "10e-1", "0.1e1", "1.000"}) {
    SCOPED_TRACE(spelling);
    EXPECT_EQ(CanonicalOrDie(spelling), "1");
  }
}

TEST(CanonicalJsonTest, CanonicalFormIsAFixedPoint) {
  const char* inputs[] = {
      R"({"z":[1.50,2e-7,-0.0,1e400],"a":{"\u0001":"\ud83d\ude02"}})",
      R"([123456789012345678901234567890, 0.10000000000000000000010, "x\ty"])",
      R"({"":{"":{"":[]}}})",
  };
  for (const char* input : inputs) {
    SCOPED_TRACE(input);
    std::string once = CanonicalOrDie(input);
    EXPECT_EQ(CanonicalOrDie(once), once);
  }
}

TEST(CanonicalJsonTest, HashIsSha256OfTheCanonicalBytes) {
  absl::StatusOr<std::string> hash = HashCanonical(R"({ "b":1, "a":2 })");
  ASSERT_OK(hash);
  EXPECT_EQ(*hash, Sha256Hex(R"({"a":2,"b":1})"));
  EXPECT_EQ(*hash, *HashCanonical(R"({"a":2.0,"b":1e0})"));
}

TEST(CanonicalJsonTest, RefusedInputGivesTheIntakeError) {
  absl::StatusOr<std::string> out = Canonicalize(R"({"a":1,"a":2})");
  ASSERT_THAT(out, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr("duplicate object key \"a\" at byte 7")));
  EXPECT_EQ(HashCanonical("[1,]").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(HashCanonical("[1,]").status().message(), HasSubstr("at byte 3"));
}

}  // namespace
TEST(MembersTest, TypedMembersSayWhereAndWhatTheyShouldHaveBeen) {
  absl::StatusOr<Document> doc = Parse(R"({"n":1,"s":"x","z":null,"a":[]})");
  ASSERT_OK(doc);
  EXPECT_THAT(StringMember(doc->root(), "s", "reply.s"), IsOkAndHolds("x"));
  EXPECT_THAT(StringMember(doc->root(), "z", "reply.z"), IsOkAndHolds(""));  // null: absent
  EXPECT_THAT(StringMember(doc->root(), "gone", "reply.gone"), IsOkAndHolds(""));
  EXPECT_THAT(StringMember(doc->root(), "n", "reply.n"),
              StatusIs(absl::StatusCode::kInvalidArgument, "reply.n is a number, not a string"));
  EXPECT_THAT(TypedMember(doc->root(), "s", Kind::kArray, "reply.s"),
              StatusIs(absl::StatusCode::kInvalidArgument, "reply.s is a string, not an array"));
  absl::StatusOr<std::optional<Value>> a = TypedMember(doc->root(), "a", Kind::kArray, "reply.a");
  ASSERT_OK(a);
  EXPECT_TRUE(a->has_value());
}

TEST(JsonObjectTest, ObjectsAndArraysAreBuiltCanonical) {
  // Members sorted whatever order they were added in; an array keeps its items' order.
  std::string items = JsonArray({JsonObject().Int("b", 2).String("a", "x").Build(), "[]", "3"});
  EXPECT_EQ(items, R"([{"a":"x","b":2},[],3])");
  EXPECT_EQ(JsonArray({}), "[]");
  absl::StatusOr<std::string> canonical = Canonicalize(items);
  ASSERT_OK(canonical);
  EXPECT_EQ(*canonical, items);
}

}  // namespace agentrt::json
