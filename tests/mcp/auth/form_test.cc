#include "mcp/auth/form.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

TEST(FormEscapeTest, KeepsOnlyTheUnreservedSetAndWritesASpaceAsPlus) {
  EXPECT_EQ(FormEscape("AZaz09-._*"), "AZaz09-._*");
  EXPECT_EQ(FormEscape("a b"), "a+b");
  // '+' itself must be escaped, or it would come back as a space.
  EXPECT_EQ(FormEscape("a+b"), "a%2Bb");
  EXPECT_EQ(FormEscape("&=?#/:%~"), "%26%3D%3F%23%2F%3A%25%7E");
}

TEST(FormEscapeTest, EscapesControlAndUtf8BytesInUppercaseHex) {
  EXPECT_EQ(FormEscape("\r\n"), "%0D%0A");
  EXPECT_EQ(FormEscape(std::string("\0", 1)), "%00");
  EXPECT_EQ(FormEscape("caf\xC3\xA9"), "caf%C3%A9");  // "café"
  EXPECT_EQ(FormEscape("\xFF"), "%FF");
}

TEST(FormEncodeTest, JoinsPairsInOrder) {
  world::HttpFields fields = {{"grant_type", "authorization_code"},
                              {"redirect_uri", "http://127.0.0.1:8765/callback"},
                              {"scope", "mcp:read offline_access"},
                              {"empty", ""}};

  EXPECT_EQ(FormEncode(fields),
            "grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback"
            "&scope=mcp%3Aread+offline_access&empty=");
  EXPECT_EQ(FormEncode({}), "");
}

TEST(FormDecodeTest, RoundTripsWhatFormEncodeWrites) {
  world::HttpFields fields = {{"a b", "c+d"}, {"amp&eq=", "100% sure?"}, {"utf8", "caf\xC3\xA9"},
                              {"empty", ""},  {"repeated", "1"},         {"repeated", "2"}};

  EXPECT_THAT(FormDecode(FormEncode(fields)), IsOkAndHolds(fields));
}

TEST(FormDecodeTest, ReadsPlusAsSpaceAndEscapesInEitherCase) {
  EXPECT_THAT(FormDecode("q=a+b%2fc%2Fd"), IsOkAndHolds(ElementsAre(Pair("q", "a b/c/d"))));
}

TEST(FormDecodeTest, ANameWithoutValueAndEmptyPairs) {
  EXPECT_THAT(FormDecode("flag&&x=1&"),
              IsOkAndHolds(ElementsAre(Pair("flag", ""), Pair("x", "1"))));
  EXPECT_THAT(FormDecode("x=a=b"), IsOkAndHolds(ElementsAre(Pair("x", "a=b"))));
  EXPECT_THAT(FormDecode(""), IsOkAndHolds(IsEmpty()));
}

TEST(FormDecodeTest, RefusesAMalformedEscapeNamingItsByte) {
  struct Row {
    std::string text;
    std::string message;
  };
  std::vector<Row> rows = {
      {"a=%2", "a malformed escape at byte 2"},
      {"a=%", "a malformed escape at byte 2"},
      {"x=1&y=%zz", "a malformed escape at byte 6"},
      {"x=1&%G1=v", "a malformed escape at byte 4"},
      {"code=abc&state=ok%", "a malformed escape at byte 17"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.text);
    EXPECT_THAT(FormDecode(row.text), StatusIs(absl::StatusCode::kInvalidArgument, row.message));
  }
}

TEST(WithQueryTest, StartsAQueryOrAddsToIt) {
  world::HttpFields fields = {{"state", "s t"}, {"code", "c"}};

  EXPECT_EQ(WithQuery("https://as.example.com/authorize", fields),
            "https://as.example.com/authorize?state=s+t&code=c");
  EXPECT_EQ(WithQuery("https://as.example.com/authorize?tenant=x", fields),
            "https://as.example.com/authorize?tenant=x&state=s+t&code=c");
  EXPECT_EQ(WithQuery("https://as.example.com/authorize?", fields),
            "https://as.example.com/authorize?state=s+t&code=c");
}

TEST(WithQueryTest, KeepsTheFragmentLast) {
  EXPECT_EQ(WithQuery("https://as.example.com/authorize#top", {{"a", "1"}}),
            "https://as.example.com/authorize?a=1#top");
  EXPECT_EQ(WithQuery("https://as.example.com/authorize?t=x#top", {{"a", "1"}}),
            "https://as.example.com/authorize?t=x&a=1#top");
}

TEST(WithQueryTest, NoFieldsLeavesTheUrlAlone) {
  EXPECT_EQ(WithQuery("https://as.example.com/authorize#top", {}),
            "https://as.example.com/authorize#top");
}

}  // namespace
}  // namespace agentrt::mcp::auth
