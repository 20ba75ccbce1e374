#include "mcp/auth/token.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/auth/metadata.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using ::testing::Field;

TEST(ParseTokenResponseTest, ReadsAFullAnswer) {
  absl::StatusOr<TokenResponse> token = ParseTokenResponse(
      R"({"access_token":"at-1","token_type":"Bearer","expires_in":3600,)"
      R"("refresh_token":"rt-1","scope":"mcp:read offline_access","id_token":"ignored"})");

  ASSERT_OK(token);
  EXPECT_EQ(token->access_token, "at-1");
  EXPECT_EQ(token->token_type, "Bearer");
  EXPECT_EQ(token->expires_in, 3600);
  EXPECT_EQ(token->refresh_token, "rt-1");
  EXPECT_EQ(token->scope, "mcp:read offline_access");
}

TEST(ParseTokenResponseTest, OptionalMembersMayBeAbsent) {
  absl::StatusOr<TokenResponse> token =
      ParseTokenResponse(R"({"access_token":"at-1","token_type":"Bearer"})");

  ASSERT_OK(token);
  EXPECT_EQ(token->expires_in, std::nullopt);
  EXPECT_EQ(token->refresh_token, "");
  EXPECT_EQ(token->scope, std::nullopt);
}

TEST(ParseTokenResponseTest, TheBearerTypeIsMatchedWithoutRegardToCase) {
  for (std::string type : {"Bearer", "bearer", "BEARER", "bEaReR"}) {
    SCOPED_TRACE(type);
    EXPECT_THAT(
        ParseTokenResponse(absl::StrCat(R"({"access_token":"t","token_type":")", type, R"("})")),
        IsOkAndHolds(Field(&TokenResponse::token_type, type)));
  }
}

TEST(ParseTokenResponseTest, ZeroSecondsAndAMaximalTokenAreAccepted) {
  std::string longest(kMaxTokenBytes, 'a');

  EXPECT_THAT(ParseTokenResponse(absl::StrCat(R"({"access_token":")", longest,
                                              R"(","token_type":"Bearer","expires_in":0})")),
              IsOkAndHolds(Field(&TokenResponse::expires_in, 0)));
}

TEST(ParseTokenResponseTest, RefusesWhatCannotBeUsedNamingWhy) {
  struct Row {
    std::string name;
    std::string body;
    std::string message;
  };
  const std::string kNotToken = "\"access_token\" is not 1 to 16384 visible ASCII characters";
  std::vector<Row> rows = {
      {"no token_type", R"({"access_token":"t"})", "\"token_type\" is required"},
      {"null token_type", R"({"access_token":"t","token_type":null})",
       "\"token_type\" is required"},
      {"token_type not a string", R"({"access_token":"t","token_type":1})",
       "\"token_type\" is not a string"},
      {"DPoP", R"({"access_token":"t","token_type":"DPoP"})", "token_type \"DPoP\" is not Bearer"},
      {"mac", R"({"access_token":"t","token_type":"mac"})", "token_type \"mac\" is not Bearer"},
      {"no access_token", R"({"token_type":"Bearer"})", "\"access_token\" is required"},
      {"empty access_token", R"({"access_token":"","token_type":"Bearer"})", kNotToken},
      {"a space in the token", R"({"access_token":"a b","token_type":"Bearer"})", kNotToken},
      // Nothing a server sends may become a second header line.
      {"CR LF in the token", R"({"access_token":"a\r\nSet-Cookie: x=1","token_type":"Bearer"})",
       kNotToken},
      {"a tab in the token", R"({"access_token":"a\tb","token_type":"Bearer"})", kNotToken},
      {"non-ASCII token", R"({"access_token":"caf\u00e9","token_type":"Bearer"})", kNotToken},
      {"token over 16 KiB",
       absl::StrCat(R"({"access_token":")", std::string(kMaxTokenBytes + 1, 'a'),
                    R"(","token_type":"Bearer"})"),
       kNotToken},
      {"refresh token with a newline",
       R"({"access_token":"t","token_type":"Bearer","refresh_token":"r\n"})",
       "\"refresh_token\" is not 1 to 16384 visible ASCII characters"},
      {"negative expires_in", R"({"access_token":"t","token_type":"Bearer","expires_in":-1})",
       "\"expires_in\" is not a non-negative integer"},
      {"fractional expires_in", R"({"access_token":"t","token_type":"Bearer","expires_in":1.5})",
       "\"expires_in\" is not a non-negative integer"},
      {"string expires_in", R"({"access_token":"t","token_type":"Bearer","expires_in":"3600"})",
       "\"expires_in\" is not a non-negative integer"},
      {"scope not a string", R"({"access_token":"t","token_type":"Bearer","scope":["a"]})",
       "\"scope\" is not a string"},
      {"a list", R"([{"access_token":"t","token_type":"Bearer"}])", "not a JSON object"},
      {"a string", R"("t")", "not a JSON object"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(ParseTokenResponse(row.body),
                StatusIs(absl::StatusCode::kInvalidArgument, row.message));
  }
}

TEST(ParseTokenResponseTest, RefusesDuplicateKeys) {
  // Which token would the client believe?
  EXPECT_THAT(
      ParseTokenResponse(R"({"access_token":"a","token_type":"Bearer","access_token":"b"})"),
      StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("not usable JSON: ")));
}

TEST(ParseTokenResponseTest, RefusesWhatIsNotJson) {
  EXPECT_THAT(ParseTokenResponse("access_token=t&token_type=bearer"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("not usable JSON: ")));
}

TEST(ParseTokenResponseTest, RefusesAnAnswerOverTheMetadataLimit) {
  std::string body = absl::StrCat(R"({"access_token":"t","token_type":"Bearer","pad":")",
                                  std::string(kMaxMetadataBytes, 'x'), R"("})");

  EXPECT_THAT(ParseTokenResponse(body),
              StatusIs(absl::StatusCode::kInvalidArgument, "the answer is over 262144 bytes"));
}

TEST(ParseTokenErrorTest, ReadsTheErrorAndItsDescription) {
  std::optional<TokenError> error =
      ParseTokenError(R"({"error":"invalid_grant","error_description":"the code expired"})");

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->error, "invalid_grant");
  EXPECT_EQ(error->description, "the code expired");
}

TEST(ParseTokenErrorTest, SanitizesAndBoundsTheServersWords) {
  std::optional<TokenError> error = ParseTokenError(absl::StrCat(
      R"({"error":"bad\u001b[31mred","error_description":")", std::string(1000, 'd'), R"("})"));

  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(error->error, Not(HasSubstr("\x1b")));
  EXPECT_THAT(error->error, StartsWith("bad"));
  EXPECT_LE(error->description.size(), 200u);
}

TEST(ParseTokenErrorTest, WhatIsNotAnErrorAnswerIsNullopt) {
  EXPECT_EQ(ParseTokenError(""), std::nullopt);
  EXPECT_EQ(ParseTokenError("<html>500</html>"), std::nullopt);
  EXPECT_EQ(ParseTokenError(R"(["invalid_grant"])"), std::nullopt);
  EXPECT_EQ(ParseTokenError(R"({"access_token":"t","token_type":"Bearer"})"), std::nullopt);
  EXPECT_EQ(ParseTokenError(R"({"error":7})"), std::nullopt);
}

TEST(IsTokenTextTest, VisibleAsciiOfBoundedLength) {
  EXPECT_TRUE(IsTokenText("!~azAZ09"));
  EXPECT_FALSE(IsTokenText(""));
  EXPECT_FALSE(IsTokenText("a b"));
  EXPECT_FALSE(IsTokenText("a\x7f"));
  EXPECT_TRUE(IsTokenText(std::string(kMaxTokenBytes, 'x')));
  EXPECT_FALSE(IsTokenText(std::string(kMaxTokenBytes + 1, 'x')));
}

}  // namespace
}  // namespace agentrt::mcp::auth
