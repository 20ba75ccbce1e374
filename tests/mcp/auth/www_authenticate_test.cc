#include "mcp/auth/www_authenticate.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using ::testing::Field;
using ::testing::Optional;

// The headers the MCP TypeScript SDK's bearer middleware sends, byte for byte.
constexpr char kSdkMissingToken[] =
    R"(Bearer error="invalid_token", error_description="Missing Authorization header", )"
    R"(resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp")";
constexpr char kSdkInsufficientScope[] =
    R"(Bearer scope="mcp:basic mcp:write", )"
    R"(resource_metadata="http://localhost:41237/.well-known/oauth-protected-resource/mcp", )"
    R"(error="insufficient_scope")";

absl::StatusOr<Challenge> OnlyChallenge(std::string_view header) {
  absl::StatusOr<std::vector<Challenge>> challenges = ParseChallenges(header);
  if (!challenges.ok()) return challenges.status();
  if (challenges->size() != 1) return absl::InternalError("not exactly one challenge");
  return challenges->front();
}

TEST(ParseChallengesTest, ReadsTheSdksMissingTokenHeader) {
  absl::StatusOr<Challenge> challenge = OnlyChallenge(kSdkMissingToken);

  ASSERT_OK(challenge);
  EXPECT_EQ(challenge->scheme, "bearer");
  EXPECT_EQ(challenge->token68, "");
  EXPECT_THAT(challenge->params,
              ElementsAre(Pair("error", "invalid_token"),
                          Pair("error_description", "Missing Authorization header"),
                          Pair("resource_metadata",
                               "http://localhost:3000/.well-known/oauth-protected-resource/mcp")));
}

TEST(ParseChallengesTest, ReadsTheSdksInsufficientScopeHeaderWithErrorLast) {
  absl::StatusOr<Challenge> challenge = OnlyChallenge(kSdkInsufficientScope);

  ASSERT_OK(challenge);
  EXPECT_THAT(challenge->Param("scope"), Optional(std::string("mcp:basic mcp:write")));
  EXPECT_THAT(challenge->Param("error"), Optional(std::string("insufficient_scope")));
  EXPECT_THAT(
      challenge->Param("resource_metadata"),
      Optional(std::string("http://localhost:41237/.well-known/oauth-protected-resource/mcp")));
  EXPECT_EQ(challenge->Param("realm"), std::nullopt);
}

TEST(ParseChallengesTest, ParametersInAnyOrderAndSpacingReadTheSame) {
  absl::StatusOr<Challenge> a =
      OnlyChallenge(R"(Bearer realm="r", scope="s", error=invalid_token)");
  absl::StatusOr<Challenge> b =
      OnlyChallenge("Bearer error = invalid_token ,scope=\"s\",\t realm = \"r\"");

  ASSERT_OK(a);
  ASSERT_OK(b);
  for (const Challenge* c : {&*a, &*b}) {
    EXPECT_THAT(c->Param("realm"), Optional(std::string("r")));
    EXPECT_THAT(c->Param("scope"), Optional(std::string("s")));
    EXPECT_THAT(c->Param("error"), Optional(std::string("invalid_token")));
  }
}

TEST(ParseChallengesTest, QuotedStringsUnescapeQuotesAndBackslashes) {
  absl::StatusOr<Challenge> challenge =
      OnlyChallenge(R"(Bearer error_description="say \"hi\" \\ then, go", scope="a,b")");

  ASSERT_OK(challenge);
  EXPECT_THAT(challenge->Param("error_description"),
              Optional(std::string(R"(say "hi" \ then, go)")));
  // A comma inside a quoted string does not end the parameter.
  EXPECT_THAT(challenge->Param("scope"), Optional(std::string("a,b")));
}

TEST(ParseChallengesTest, SchemeAndParameterNamesAreCaseInsensitive) {
  absl::StatusOr<Challenge> challenge = OnlyChallenge(R"(BEARER Resource_Metadata="https://h/p")");

  ASSERT_OK(challenge);
  EXPECT_EQ(challenge->scheme, "bearer");
  EXPECT_THAT(challenge->Param("resource_metadata"), Optional(std::string("https://h/p")));
}

TEST(ParseChallengesTest, ReadsAToken68) {
  absl::StatusOr<std::vector<Challenge>> challenges =
      ParseChallenges("Negotiate dXNlcjpwYXNz==, Bearer realm=\"x\"");

  ASSERT_OK(challenges);
  ASSERT_THAT(*challenges, SizeIs(2));
  EXPECT_EQ((*challenges)[0].scheme, "negotiate");
  EXPECT_EQ((*challenges)[0].token68, "dXNlcjpwYXNz==");
  EXPECT_THAT((*challenges)[0].params, IsEmpty());
  EXPECT_EQ((*challenges)[1].scheme, "bearer");
  EXPECT_THAT((*challenges)[1].Param("realm"), Optional(std::string("x")));
}

TEST(ParseChallengesTest, SeveralChallengesInOneHeaderEachKeepTheirParameters) {
  absl::StatusOr<std::vector<Challenge>> challenges =
      ParseChallenges(R"(Basic realm="x", Bearer scope="a b", resource_metadata="https://h/p")");

  ASSERT_OK(challenges);
  ASSERT_THAT(*challenges, SizeIs(2));
  EXPECT_EQ((*challenges)[0].scheme, "basic");
  EXPECT_THAT((*challenges)[0].params, ElementsAre(Pair("realm", "x")));
  EXPECT_EQ((*challenges)[1].scheme, "bearer");
  EXPECT_THAT((*challenges)[1].params,
              ElementsAre(Pair("scope", "a b"), Pair("resource_metadata", "https://h/p")));
}

TEST(ParseChallengesTest, ASchemeWithNothingAfterItIsAChallenge) {
  absl::StatusOr<std::vector<Challenge>> challenges = ParseChallenges("Bearer, Basic");

  ASSERT_OK(challenges);
  EXPECT_THAT(*challenges,
              ElementsAre(Field(&Challenge::scheme, "bearer"), Field(&Challenge::scheme, "basic")));
}

TEST(ParseChallengesTest, AnEmptyHeaderHasNoChallenges) {
  EXPECT_THAT(ParseChallenges(""), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(ParseChallenges(" , "), IsOkAndHolds(IsEmpty()));
}

TEST(ParseChallengesTest, RefusesWhatTheGrammarDoesNotAllowWithTheByteOffset) {
  struct Row {
    std::string name;
    std::string header;
    std::string message;
  };
  std::vector<Row> rows = {
      // Which value would a client believe? The offset is the second name's.
      {"parameter twice", R"(Bearer realm="a", realm="b")",
       R"(WWW-Authenticate: the parameter "realm" is given twice at byte 18)"},
      {"parameter twice in other case", R"(Bearer scope="a", SCOPE="b")",
       R"(WWW-Authenticate: the parameter "scope" is given twice at byte 18)"},
      {"unterminated quote", R"(Bearer realm="abc)",
       "WWW-Authenticate: a quoted string is not closed at byte 17"},
      {"escape at the end", "Bearer realm=\"abc\\",
       "WWW-Authenticate: a quoted string is not closed at byte 18"},
      {"newline", "Bearer realm=\"a\nb\"", "WWW-Authenticate: a control character at byte 15"},
      {"carriage return", "Bearer realm=\"a\"\r\nSet-Cookie: x",
       "WWW-Authenticate: a control character at byte 16"},
      {"delete", "Bearer realm=\"a\x7f\"", "WWW-Authenticate: a control character at byte 15"},
      {"no space after the scheme", R"(Bearer"x")",
       "WWW-Authenticate: expected a space after the scheme at byte 6"},
      {"parameter without a value", R"(Bearer realm="a", scope=)",
       "WWW-Authenticate: expected a token or a quoted string at byte 24"},
      {"junk after a value", R"(Bearer realm="a" scope="b")",
       "WWW-Authenticate: expected a comma at byte 17"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(ParseChallenges(row.header),
                StatusIs(absl::StatusCode::kInvalidArgument, row.message));
  }
}

TEST(ParseChallengesTest, RefusesAHeaderOverTheLimitAndTakesOneAtIt) {
  std::string at_limit = "Bearer realm=\"" + std::string(kMaxChallengeBytes - 15, 'a') + "\"";
  ASSERT_EQ(at_limit.size(), kMaxChallengeBytes);

  EXPECT_OK(ParseChallenges(at_limit));
  EXPECT_THAT(ParseChallenges(at_limit + " "),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "WWW-Authenticate: the header is over 16384 bytes at byte 0"));
}

TEST(FindBearerTest, ReadsTheBearerChallengeAmongOthers) {
  world::HttpFields headers = {
      {"Content-Type", "application/json"},
      {"WWW-Authenticate",
       R"(Basic realm="x", Bearer scope="a b", resource_metadata="https://h/p")"},
  };

  BearerChallenge bearer = FindBearer(headers);

  EXPECT_TRUE(bearer.present);
  EXPECT_EQ(bearer.scope, "a b");
  EXPECT_EQ(bearer.resource_metadata, "https://h/p");
  EXPECT_EQ(bearer.error, "");
  EXPECT_EQ(bearer.error_description, "");
}

TEST(FindBearerTest, ReadsEveryFieldOfTheSdksHeaders) {
  BearerChallenge missing = FindBearer({{"WWW-Authenticate", kSdkMissingToken}});
  BearerChallenge scope = FindBearer({{"www-authenticate", kSdkInsufficientScope}});

  EXPECT_TRUE(missing.present);
  EXPECT_EQ(missing.error, "invalid_token");
  EXPECT_EQ(missing.error_description, "Missing Authorization header");
  EXPECT_EQ(missing.resource_metadata,
            "http://localhost:3000/.well-known/oauth-protected-resource/mcp");
  EXPECT_EQ(missing.scope, "");
  EXPECT_TRUE(scope.present);
  EXPECT_EQ(scope.error, "insufficient_scope");
  EXPECT_EQ(scope.scope, "mcp:basic mcp:write");
}

TEST(FindBearerTest, SkipsFieldsThatDoNotParseAndFieldsOfOtherSchemes) {
  world::HttpFields headers = {
      // A forged second value for the same parameter: the whole field is not believed.
      {"WWW-Authenticate", R"(Bearer resource_metadata="https://evil/p", resource_metadata="x")"},
      {"WWW-Authenticate", R"(Basic realm="only basic here")"},
      {"WWW-Authenticate", R"(Bearer scope="unterminated)"},
      {"WWW-Authenticate", R"(Bearer scope="files:read", error="insufficient_scope")"},
      {"WWW-Authenticate", R"(Bearer scope="later")"},
  };

  BearerChallenge bearer = FindBearer(headers);

  EXPECT_TRUE(bearer.present);
  EXPECT_EQ(bearer.scope, "files:read");
  EXPECT_EQ(bearer.error, "insufficient_scope");
  EXPECT_EQ(bearer.resource_metadata, "");
}

TEST(FindBearerTest, NoBearerChallengeIsNotPresent) {
  EXPECT_FALSE(FindBearer({}).present);
  EXPECT_FALSE(FindBearer({{"WWW-Authenticate", R"(Basic realm="x")"}}).present);
  EXPECT_FALSE(FindBearer({{"Authorization", R"(Bearer scope="x")"}}).present);
  EXPECT_FALSE(FindBearer({{"WWW-Authenticate", "Bearer realm=\"a\nb\""}}).present);
}

}  // namespace
}  // namespace agentrt::mcp::auth
