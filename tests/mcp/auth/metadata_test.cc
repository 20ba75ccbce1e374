#include "mcp/auth/metadata.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

constexpr char kServerMetadata[] = R"({
  "issuer": "https://auth.example.com",
  "authorization_endpoint": "https://auth.example.com/authorize",
  "token_endpoint": "https://auth.example.com/token",
  "registration_endpoint": "https://auth.example.com/register",
  "scopes_supported": ["mcp:read", "offline_access"],
  "response_types_supported": ["code"],
  "grant_types_supported": ["authorization_code", "refresh_token"],
  "code_challenge_methods_supported": ["S256"],
  "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
  "client_id_metadata_document_supported": true,
  "jwks_uri": "https://auth.example.com/jwks",
  "service_documentation": {"any": ["shape"]}
})";

// kServerMetadata with `from` replaced by `to`.
std::string ServerMetadataWith(const std::string& from, const std::string& to) {
  std::string out = absl::StrReplaceAll(kServerMetadata, {{from, to}});
  EXPECT_NE(out, kServerMetadata) << "nothing replaced: " << from;
  return out;
}

TEST(ParseResourceMetadataTest, ReadsADocumentAndIgnoresUnknownMembers) {
  absl::StatusOr<ResourceMetadata> metadata = ParseResourceMetadata(R"({
    "resource": "https://mcp.example.com/mcp",
    "authorization_servers": ["https://auth.example.com", "https://backup.example.com"],
    "scopes_supported": ["mcp:read", "mcp:write"],
    "bearer_methods_supported": ["header"],
    "resource_name": {"not": "a string, and not ours to judge"}
  })");

  ASSERT_OK(metadata);
  EXPECT_EQ(metadata->resource, "https://mcp.example.com/mcp");
  EXPECT_THAT(metadata->authorization_servers,
              ElementsAre("https://auth.example.com", "https://backup.example.com"));
  EXPECT_THAT(metadata->scopes_supported, ElementsAre("mcp:read", "mcp:write"));
}

TEST(ParseResourceMetadataTest, ListsMayBeAbsent) {
  absl::StatusOr<ResourceMetadata> metadata =
      ParseResourceMetadata(R"({"resource":"https://mcp.example.com"})");

  ASSERT_OK(metadata);
  EXPECT_THAT(metadata->authorization_servers, IsEmpty());
  EXPECT_THAT(metadata->scopes_supported, IsEmpty());
}

TEST(ParseResourceMetadataTest, RefusesNamingTheMemberOrTheRule) {
  struct Row {
    std::string name;
    std::string body;
    std::string message;
  };
  std::vector<Row> rows = {
      {"no resource", R"({"authorization_servers":["https://a"]})", "\"resource\" is required"},
      {"empty resource", R"({"resource":""})", "\"resource\" is required"},
      {"resource a number", R"({"resource":5})", "\"resource\" is not a string"},
      {"servers a string", R"({"resource":"https://r","authorization_servers":"https://a"})",
       "\"authorization_servers\" is not a list of strings"},
      {"servers holding a number", R"({"resource":"https://r","authorization_servers":[1]})",
       "\"authorization_servers\" is not a list of strings"},
      {"scopes a string", R"({"resource":"https://r","scopes_supported":"a b"})",
       "\"scopes_supported\" is not a list of strings"},
      {"a list", R"(["https://r"])", "not a JSON object"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(ParseResourceMetadata(row.body),
                StatusIs(absl::StatusCode::kInvalidArgument, row.message));
  }
}

TEST(ParseResourceMetadataTest, RefusesDuplicateKeysAndBrokenJson) {
  EXPECT_THAT(ParseResourceMetadata(R"({"resource":"https://a","resource":"https://b"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("not usable JSON: ")));
  EXPECT_THAT(ParseResourceMetadata(R"({"resource":)"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("not usable JSON: ")));
}

TEST(ParseResourceMetadataTest, RefusesADocumentOverTheLimit) {
  std::string body = absl::StrCat(R"({"resource":"https://r","pad":")",
                                  std::string(kMaxMetadataBytes, 'x'), R"("})");

  EXPECT_THAT(ParseResourceMetadata(body),
              StatusIs(absl::StatusCode::kInvalidArgument, "the document is over 262144 bytes"));
}

TEST(ParseServerMetadataTest, ReadsADocumentAndIgnoresUnknownMembers) {
  absl::StatusOr<ServerMetadata> metadata = ParseServerMetadata(kServerMetadata);

  ASSERT_OK(metadata);
  EXPECT_EQ(metadata->issuer, "https://auth.example.com");
  EXPECT_EQ(metadata->authorization_endpoint, "https://auth.example.com/authorize");
  EXPECT_EQ(metadata->token_endpoint, "https://auth.example.com/token");
  EXPECT_EQ(metadata->registration_endpoint, "https://auth.example.com/register");
  EXPECT_THAT(metadata->scopes_supported, ElementsAre("mcp:read", "offline_access"));
  EXPECT_THAT(metadata->response_types_supported, ElementsAre("code"));
  EXPECT_THAT(metadata->grant_types_supported, ElementsAre("authorization_code", "refresh_token"));
  EXPECT_THAT(metadata->code_challenge_methods_supported, ElementsAre("S256"));
  EXPECT_THAT(metadata->token_endpoint_auth_methods_supported,
              ElementsAre("client_secret_basic", "none"));
  EXPECT_TRUE(metadata->client_id_metadata_document_supported);
}

TEST(ParseServerMetadataTest, OnlyIssuerAndTokenEndpointAreRequired) {
  absl::StatusOr<ServerMetadata> metadata = ParseServerMetadata(
      R"({"issuer":"https://auth.example.com","token_endpoint":"https://auth.example.com/t"})");

  ASSERT_OK(metadata);
  EXPECT_EQ(metadata->authorization_endpoint, "");
  EXPECT_EQ(metadata->registration_endpoint, "");
  EXPECT_FALSE(metadata->client_id_metadata_document_supported);
}

TEST(ParseServerMetadataTest, RefusesNamingTheMemberOrTheRule) {
  struct Row {
    std::string name;
    std::string body;
    std::string message;
  };
  std::vector<Row> rows = {
      {"no issuer", ServerMetadataWith(R"("issuer": "https://auth.example.com",)", ""),
       "\"issuer\" is required"},
      {"no token endpoint",
       ServerMetadataWith(R"("token_endpoint": "https://auth.example.com/token",)", ""),
       "\"token_endpoint\" is required"},
      {"issuer a list",
       ServerMetadataWith(R"("issuer": "https://auth.example.com")",
                          R"("issuer": ["https://auth.example.com"])"),
       "\"issuer\" is not a string"},
      {"methods a string", ServerMetadataWith(R"(["S256"])", R"("S256")"),
       "\"code_challenge_methods_supported\" is not a list of strings"},
      {"cimd a string",
       ServerMetadataWith(R"("client_id_metadata_document_supported": true)",
                          R"("client_id_metadata_document_supported": "yes")"),
       "\"client_id_metadata_document_supported\" is not a boolean"},
      {"registration endpoint a number",
       ServerMetadataWith(R"("https://auth.example.com/register")", "7"),
       "\"registration_endpoint\" is not a string"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(ParseServerMetadata(row.body),
                StatusIs(absl::StatusCode::kInvalidArgument, row.message));
  }
}

TEST(ParseServerMetadataTest, RefusesAnEndpointOnPlainHttpToAnotherHost) {
  struct Row {
    std::string field;
    std::string from;
  };
  std::vector<Row> rows = {
      {"authorization_endpoint", "https://auth.example.com/authorize"},
      {"token_endpoint", "https://auth.example.com/token"},
      {"registration_endpoint", "https://auth.example.com/register"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.field);
    std::string plain = absl::StrReplaceAll(row.from, {{"https://", "http://"}});
    EXPECT_THAT(ParseServerMetadata(ServerMetadataWith(absl::StrCat("\"", row.from, "\""),
                                                       absl::StrCat("\"", plain, "\""))),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         absl::StrCat("\"", row.field,
                                      "\": refusing plain http to auth.example.com, which is not "
                                      "this machine")));
  }
}

TEST(ParseServerMetadataTest, AcceptsPlainHttpToThisMachine) {
  for (std::string host : {"127.0.0.1:9000", "localhost:9000", "[::1]:9000", "127.0.0.1"}) {
    SCOPED_TRACE(host);
    absl::StatusOr<ServerMetadata> metadata = ParseServerMetadata(absl::StrCat(
        R"({"issuer":"http://)", host, R"(","token_endpoint":"http://)", host, R"(/token",)",
        R"("authorization_endpoint":"http://)", host, R"(/authorize"})"));

    ASSERT_OK(metadata);
    EXPECT_EQ(metadata->token_endpoint, absl::StrCat("http://", host, "/token"));
  }
}

TEST(ParseServerMetadataTest, RefusesUserInformationWithoutShowingIt) {
  absl::StatusOr<ServerMetadata> metadata = ParseServerMetadata(ServerMetadataWith(
      "https://auth.example.com/token", "https://client:hunter2@auth.example.com/token"));

  EXPECT_THAT(metadata, StatusIs(absl::StatusCode::kInvalidArgument,
                                 AllOf(HasSubstr("\"token_endpoint\""),
                                       HasSubstr("carries user information"))));
  EXPECT_THAT(metadata.status().message(), Not(HasSubstr("hunter2")));
}

TEST(ParseServerMetadataTest, RefusesAFragment) {
  EXPECT_THAT(ParseServerMetadata(ServerMetadataWith("https://auth.example.com/authorize",
                                                     "https://auth.example.com/authorize#x")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "\"authorization_endpoint\": \"https://auth.example.com/authorize#x\" has "
                       "a fragment"));
}

TEST(ParseServerMetadataTest, RefusesADocumentOverTheLimit) {
  std::string body = ServerMetadataWith(
      R"("jwks_uri")",
      absl::StrCat(R"("pad": ")", std::string(kMaxMetadataBytes, 'x'), R"(", "jwks_uri")"));

  EXPECT_THAT(ParseServerMetadata(body),
              StatusIs(absl::StatusCode::kInvalidArgument, "the document is over 262144 bytes"));
}

TEST(CheckEndpointTest, AcceptsHttpsAnywhereAndHttpOnlyToThisMachine) {
  EXPECT_OK(CheckEndpoint("https://auth.example.com/token"));
  EXPECT_OK(CheckEndpoint("HTTPS://auth.example.com:8443/token?tenant=a"));
  EXPECT_OK(CheckEndpoint("http://localhost:8080/token"));
  EXPECT_OK(CheckEndpoint("http://127.0.0.1/token"));
  EXPECT_OK(CheckEndpoint("http://127.8.9.10/token"));
  EXPECT_OK(CheckEndpoint("http://[::1]:8080/token"));
}

TEST(CheckEndpointTest, RefusesPlainHttpToNamesThatMerelyLookLocal) {
  for (std::string host : {"auth.example.com", "LOCALHOST", "localhost.", "evil.localhost", "127.1",
                           "0177.0.0.1", "127.0.0.1.nip.io", "10.0.0.1", "[::2]"}) {
    SCOPED_TRACE(host);
    EXPECT_THAT(CheckEndpoint(absl::StrCat("http://", host, "/token")),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(StartsWith("refusing plain http to "),
                               EndsWith(", which is not this machine"))));
  }
}

TEST(CheckEndpointTest, RefusesOtherSchemesUserInformationAndFragments) {
  EXPECT_THAT(CheckEndpoint("ftp://auth.example.com/token"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "\"ftp://auth.example.com/token\" is not an http or https URL"));
  EXPECT_THAT(CheckEndpoint("/token"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an http or https URL")));
  EXPECT_THAT(CheckEndpoint("https://user@auth.example.com/token"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "\"auth.example.com/token\" carries user information"));
  EXPECT_THAT(CheckEndpoint("https://auth.example.com/token#frag"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has a fragment")));
}

}  // namespace
}  // namespace agentrt::mcp::auth
