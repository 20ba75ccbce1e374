#include "mcp/auth/discovery.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/mcp/auth/fake_network.h"
#include "tests/support/largest_allocation.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using fakes::FakeNetwork;
using fakes::Json;
using fakes::Redirect;
using fakes::Reply;

constexpr char kServer[] = "https://mcp.example.com/mcp";
constexpr char kPathPrm[] = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
constexpr char kRootPrm[] = "https://mcp.example.com/.well-known/oauth-protected-resource";
constexpr char kIssuer[] = "https://auth.example.com";
constexpr char kAsMetadata[] = "https://auth.example.com/.well-known/oauth-authorization-server";
constexpr char kOidcMetadata[] = "https://auth.example.com/.well-known/openid-configuration";

const absl::Time kDeadline = absl::FromUnixSeconds(2'000'000'000);

std::string ResourceMetadataJson(const std::string& resource = kServer,
                                 const std::string& issuer = kIssuer) {
  return absl::StrCat(R"({"resource":")", resource, R"(","authorization_servers":[")", issuer,
                      R"("],"scopes_supported":["mcp:read","mcp:write"]})");
}

std::string ServerMetadataJson(
    const std::string& issuer = kIssuer,
    const std::string& token_endpoint = "https://auth.example.com/token") {
  return absl::StrCat(R"({"issuer":")", issuer,
                      R"(","authorization_endpoint":"https://auth.example.com/authorize",)",
                      R"("token_endpoint":")", token_endpoint,
                      R"(","code_challenge_methods_supported":["S256"]})");
}

// The GET of each URL, as FakeNetwork::Sent shows it.
std::vector<std::string> Gets(std::vector<std::string> urls) {
  for (std::string& url : urls) url = "GET " + url;
  return urls;
}

TEST(ResourceMetadataUrlsTest, ThePathBasedPlaceThenTheRoot) {
  EXPECT_THAT(ResourceMetadataUrls("https://mcp.example.com/mcp"),
              ElementsAre("https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                          "https://mcp.example.com/.well-known/oauth-protected-resource"));
  EXPECT_THAT(ResourceMetadataUrls("https://mcp.example.com/a/b/"),
              ElementsAre("https://mcp.example.com/.well-known/oauth-protected-resource/a/b",
                          "https://mcp.example.com/.well-known/oauth-protected-resource"));
}

TEST(ResourceMetadataUrlsTest, OnlyTheRootForAServerWithoutAPath) {
  EXPECT_THAT(ResourceMetadataUrls("https://mcp.example.com"),
              ElementsAre("https://mcp.example.com/.well-known/oauth-protected-resource"));
  EXPECT_THAT(ResourceMetadataUrls("http://localhost:3000/"),
              ElementsAre("http://localhost:3000/.well-known/oauth-protected-resource"));
}

TEST(ResourceMetadataUrlsTest, QueryIsNotPartOfThePlace) {
  EXPECT_THAT(ResourceMetadataUrls("https://MCP.example.com:443/mcp?x=1"),
              ElementsAre("https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                          "https://mcp.example.com/.well-known/oauth-protected-resource"));
}

TEST(ServerMetadataUrlsTest, AnIssuerWithAPathHasThreePlaces) {
  EXPECT_THAT(ServerMetadataUrls("https://auth.example.com/tenant1"),
              ElementsAre("https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                          "https://auth.example.com/.well-known/openid-configuration/tenant1",
                          "https://auth.example.com/tenant1/.well-known/openid-configuration"));
}

TEST(ServerMetadataUrlsTest, AnIssuerWithoutAPathHasTwo) {
  std::vector<std::string> both = {
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration"};

  EXPECT_THAT(ServerMetadataUrls("https://auth.example.com"), ElementsAreArray(both));
  EXPECT_THAT(ServerMetadataUrls("https://auth.example.com/"), ElementsAreArray(both));
}

TEST(ServerMetadataUrlsTest, WhatIsNotAUrlHasNoPlaces) {
  EXPECT_THAT(ServerMetadataUrls("auth.example.com"), IsEmpty());
  EXPECT_THAT(ResourceMetadataUrls("file:///etc/passwd"), IsEmpty());
}

TEST(ResourceMatchesTest, TheSameOriginAndAPathOnASlashBoundary) {
  struct Row {
    std::string server;
    std::string resource;
    bool matches;
  };
  std::vector<Row> rows = {
      {"https://h.example.com/mcp", "https://h.example.com/mcp", true},
      {"https://h.example.com/mcp", "https://h.example.com/mcp/", true},
      {"https://h.example.com/mcp/x", "https://h.example.com/mcp", true},
      {"https://h.example.com/mcpx", "https://h.example.com/mcp", false},
      {"https://h.example.com/mcp", "https://h.example.com/mcp/x", false},
      {"https://h.example.com/mcp", "https://h.example.com/other", false},
      // A root resource covers every path of its origin.
      {"https://h.example.com/mcp", "https://h.example.com", true},
      {"https://h.example.com/mcp", "https://h.example.com/", true},
      {"https://h.example.com", "https://h.example.com", true},
      // The origin compares without case in the host and with the default port dropped.
      {"https://h.example.com/mcp", "https://H.EXAMPLE.COM:443/mcp", true},
      {"https://h.example.com/mcp", "https://evil.example.com/mcp", false},
      {"https://h.example.com/mcp", "http://h.example.com/mcp", false},
      {"https://h.example.com/mcp", "https://h.example.com:8443/mcp", false},
      {"http://localhost:3000/mcp", "http://localhost:3001/mcp", false},
      {"https://h.example.com/mcp", "https://h.example.com.evil.com/mcp", false},
      {"https://h.example.com/mcp", "https://h.example.com/mcp#x", false},
      {"https://h.example.com/mcp", "https://x@h.example.com/mcp", false},
      {"https://h.example.com/mcp", "h.example.com/mcp", false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(absl::StrCat(row.server, " / ", row.resource));
    EXPECT_EQ(ResourceMatches(row.server, row.resource), row.matches);
  }
}

TEST(DiscoverTest, TheHeadersResourceMetadataIsUsedAndNothingElseAsked) {
  FakeNetwork network;
  std::string named = "https://mcp.example.com/custom/prm";
  network.Answer(named, Json(ResourceMetadataJson()));
  network.Answer(kAsMetadata, Json(ServerMetadataJson()));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, named, kDeadline);

  ASSERT_OK(discovery);
  EXPECT_EQ(discovery->resource, kServer);
  EXPECT_THAT(discovery->resource_scopes, ElementsAre("mcp:read", "mcp:write"));
  EXPECT_EQ(discovery->authorization_server, kIssuer);
  EXPECT_EQ(discovery->server.token_endpoint, "https://auth.example.com/token");
  EXPECT_FALSE(discovery->legacy);
  EXPECT_FALSE(discovery->defaulted);
  EXPECT_THAT(network.Sent(), ElementsAreArray(Gets({named, kAsMetadata})));
  EXPECT_THAT(world::FindHeader(network.requests()[0].headers, "Accept"),
              Optional(std::string("application/json")));
}

TEST(DiscoverTest, TheHeadersPlaceAnswering404MovesOnToTheWellKnownOnes) {
  FakeNetwork network;
  network.Answer(kRootPrm, Json(ResourceMetadataJson()));
  network.Answer(kAsMetadata, Json(ServerMetadataJson()));

  absl::StatusOr<Discovery> discovery =
      Discover(network, kServer, "https://mcp.example.com/gone", kDeadline);

  ASSERT_OK(discovery);
  EXPECT_THAT(
      network.Sent(),
      ElementsAreArray(Gets({"https://mcp.example.com/gone", kPathPrm, kRootPrm, kAsMetadata})));
}

TEST(DiscoverTest, ThePathBasedPlaceFirst) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));
  network.Answer(kRootPrm, Json(ResourceMetadataJson(kServer, "https://wrong.example.com")));
  network.Answer(kAsMetadata, Json(ServerMetadataJson()));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);

  ASSERT_OK(discovery);
  EXPECT_EQ(discovery->authorization_server, kIssuer);
  EXPECT_THAT(network.Sent(), ElementsAreArray(Gets({kPathPrm, kAsMetadata})));
}

TEST(DiscoverTest, TheRootPlaceWhenThePathBasedOneIsNotThere) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(R"({"error":"not here"})", 404));
  network.Answer(kRootPrm, Json(ResourceMetadataJson("https://mcp.example.com")));
  network.Answer(kOidcMetadata, Json(ServerMetadataJson()));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);

  ASSERT_OK(discovery);
  // The resource indicator is the metadata's, as written.
  EXPECT_EQ(discovery->resource, "https://mcp.example.com");
  EXPECT_THAT(network.Sent(),
              ElementsAreArray(Gets({kPathPrm, kRootPrm, kAsMetadata, kOidcMetadata})));
}

TEST(DiscoverTest, AnIssuerWithAPathIsLookedUpInItsThreePlaces) {
  FakeNetwork network;
  std::string issuer = "https://auth.example.com/tenant1";
  std::string last = "https://auth.example.com/tenant1/.well-known/openid-configuration";
  network.Answer(kPathPrm, Json(ResourceMetadataJson(kServer, issuer)));
  network.Answer(last, Json(ServerMetadataJson(issuer + "/")));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);

  ASSERT_OK(discovery);
  EXPECT_EQ(discovery->server.issuer, issuer + "/");  // a trailing '/' aside, the same issuer
  EXPECT_THAT(
      network.Sent(),
      ElementsAreArray(
          Gets({kPathPrm, "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1", last})));
}

TEST(DiscoverTest, RefusesMetadataNamingAnotherResource) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson("https://evil.example.com/mcp")));
  network.Answer(kAsMetadata, Json(ServerMetadataJson()));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("names resource \"https://evil.example.com/mcp\""),
                             HasSubstr("not this server"))));
  EXPECT_EQ(network.CountTo(kIssuer), 0);
}

TEST(DiscoverTest, RefusesMetadataNamingASiblingPath) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson("https://mcp.example.com/mcpx")));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not this server")));
}

TEST(DiscoverTest, RefusesMetadataNamingNoAuthorizationServer) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(absl::StrCat(R"({"resource":")", kServer, R"("})")));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("protected resource metadata ", kPathPrm,
                                    ": names no authorization server")));
}

TEST(DiscoverTest, RefusesAnAuthorizationServerOnPlainHttpToAnotherHost) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson(kServer, "http://auth.example.com")));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("refusing plain http to auth.example.com")));
  EXPECT_EQ(network.CountTo("http://auth.example.com"), 0);
}

TEST(DiscoverTest, RefusesServerMetadataWhoseIssuerDiffers) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));
  network.Answer(kAsMetadata, Json(ServerMetadataJson("https://evil.example.com")));

  EXPECT_THAT(
      Discover(network, kServer, "", kDeadline),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               absl::StrCat("authorization server metadata ", kAsMetadata,
                            ": issuer \"https://evil.example.com\" is not \"", kIssuer, "\"")));
}

TEST(DiscoverTest, RefusesServerMetadataWithATokenEndpointOnPlainHttpToAnotherHost) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));
  network.Answer(kAsMetadata, Json(ServerMetadataJson(kIssuer, "http://tokens.example.com/token")));

  EXPECT_THAT(
      Discover(network, kServer, "", kDeadline),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr(kAsMetadata), HasSubstr("\"token_endpoint\": refusing plain http to "
                                                       "tokens.example.com"))));
  EXPECT_EQ(network.CountTo("http://tokens.example.com"), 0);
}

TEST(DiscoverTest, ARedirectIsRefusedNamingOnlyItsHostAndNotFollowed) {
  FakeNetwork network;
  network.Answer(kPathPrm, Redirect("https://evil.example.com/steal?session=s3cr3t"));
  network.Answer("https://evil.example.com/steal", Json(ResourceMetadataJson()));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);

  EXPECT_THAT(discovery, StatusIs(absl::StatusCode::kFailedPrecondition,
                                  AllOf(HasSubstr(kPathPrm), HasSubstr("answered HTTP 302"),
                                        HasSubstr("redirects are not followed"),
                                        HasSubstr("\"evil.example.com\""))));
  EXPECT_THAT(discovery.status().message(), Not(HasSubstr("steal")));
  EXPECT_THAT(discovery.status().message(), Not(HasSubstr("s3cr3t")));
  EXPECT_EQ(network.CountTo("https://evil.example.com"), 0);
}

TEST(DiscoverTest, ARedirectOfTheServerMetadataIsRefusedToo) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));
  network.Answer(kAsMetadata, Redirect("https://evil.example.com/as", 307));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("answered HTTP 307"), HasSubstr("evil.example.com"))));
  EXPECT_EQ(network.CountTo("https://evil.example.com"), 0);
}

TEST(DiscoverTest, AHugeDocumentIsRefusedBeforeItIsHeld) {
  struct Row {
    std::string name;
    bool declared_length;
  };
  for (const Row& row : {Row{"declared length", true}, Row{"streamed", false}}) {
    SCOPED_TRACE(row.name);
    FakeNetwork network;
    Reply huge;
    huge.generated_bytes = std::size_t{50} << 20;
    huge.declared_length = row.declared_length;
    network.Answer(kPathPrm, huge);

    test_support::StartTrackingAllocations();
    absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);
    std::size_t largest = test_support::StopTrackingAllocations();

    EXPECT_THAT(discovery, StatusIs(absl::StatusCode::kResourceExhausted,
                                    AllOf(HasSubstr(kPathPrm), HasSubstr("exceeds 262144 bytes"))));
    ASSERT_THAT(network.requests(), SizeIs(1));
    EXPECT_EQ(network.requests()[0].max_body_bytes, kMaxMetadataBytes);
    // What the client held of it: never more than the limit (and its doubling while appending).
    EXPECT_LT(largest, 2 * kMaxMetadataBytes);
  }
}

TEST(DiscoverTest, TheNetworksOwnErrorKeepsItsCodeAndNamesThePlace) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));
  network.Fail(kAsMetadata, absl::DeadlineExceededError("no answer by the deadline"));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       absl::StrCat("authorization server metadata ", kAsMetadata,
                                    ": no answer by the deadline")));
}

TEST(DiscoverTest, AServerErrorIsRefusedByName) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(R"({"error":"boom"})", 500));

  EXPECT_THAT(
      Discover(network, kServer, "", kDeadline),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               absl::StrCat("protected resource metadata ", kPathPrm, ": answered HTTP 500")));
  EXPECT_THAT(network.Sent(), ElementsAre("GET " + std::string(kPathPrm)));
}

TEST(DiscoverTest, ADocumentThatIsNotUsableIsRefusedByName) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json("<html>hello</html>"));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       StartsWith(absl::StrCat("protected resource metadata ", kPathPrm,
                                               ": not usable JSON"))));
}

TEST(DiscoverTest, NoServerMetadataForANamedIssuerIsRefused) {
  FakeNetwork network;
  network.Answer(kPathPrm, Json(ResourceMetadataJson()));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "no authorization server metadata found for \"https://auth.example.com\" "
                       "(tried 2 places)"));
}

TEST(DiscoverTest, LegacyWithoutResourceMetadataTheAuthorizationServerIsTheOrigin) {
  FakeNetwork network;
  network.Answer("https://mcp.example.com/.well-known/oauth-authorization-server",
                 Json(R"({"issuer":"https://mcp.example.com/tenant",)"
                      R"("authorization_endpoint":"https://mcp.example.com/tenant/authorize",)"
                      R"("token_endpoint":"https://mcp.example.com/tenant/token"})"));

  absl::StatusOr<Discovery> discovery = Discover(network, kServer, "", kDeadline);

  ASSERT_OK(discovery);
  EXPECT_TRUE(discovery->legacy);
  EXPECT_FALSE(discovery->defaulted);
  EXPECT_EQ(discovery->resource, kServer);
  EXPECT_EQ(discovery->authorization_server, "https://mcp.example.com");
  EXPECT_EQ(discovery->server.token_endpoint, "https://mcp.example.com/tenant/token");
  EXPECT_THAT(
      network.Sent(),
      ElementsAreArray(Gets(
          {kPathPrm, kRootPrm, "https://mcp.example.com/.well-known/oauth-authorization-server"})));
}

TEST(DiscoverTest, LegacyRefusesAnIssuerOfAnotherOrigin) {
  FakeNetwork network;
  network.Answer("https://mcp.example.com/.well-known/openid-configuration",
                 Json(ServerMetadataJson("https://auth.example.com")));

  EXPECT_THAT(Discover(network, kServer, "", kDeadline),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("issuer \"https://auth.example.com\""),
                             HasSubstr("not of the MCP server's origin"))));
}

TEST(DiscoverTest, LegacyWithNoMetadataAtAllUsesTheDefaultEndpoints) {
  FakeNetwork network;

  absl::StatusOr<Discovery> discovery =
      Discover(network, "http://localhost:3000/mcp", "", kDeadline);

  ASSERT_OK(discovery);
  EXPECT_TRUE(discovery->legacy);
  EXPECT_TRUE(discovery->defaulted);
  EXPECT_EQ(discovery->resource, "http://localhost:3000/mcp");
  EXPECT_EQ(discovery->server.issuer, "http://localhost:3000");
  EXPECT_EQ(discovery->server.authorization_endpoint, "http://localhost:3000/authorize");
  EXPECT_EQ(discovery->server.token_endpoint, "http://localhost:3000/token");
  EXPECT_EQ(discovery->server.registration_endpoint, "http://localhost:3000/register");
  EXPECT_THAT(
      network.Sent(),
      ElementsAreArray(Gets({"http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                             "http://localhost:3000/.well-known/oauth-protected-resource",
                             "http://localhost:3000/.well-known/oauth-authorization-server",
                             "http://localhost:3000/.well-known/openid-configuration"})));
}

TEST(DiscoverTest, RefusesAResourceMetadataPlaceThatIsNotAUrl) {
  FakeNetwork network;

  EXPECT_THAT(
      Discover(network, kServer, "file:///etc/passwd", kDeadline),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("the 401's resource_metadata")));
  EXPECT_THAT(network.requests(), IsEmpty());
}

}  // namespace
}  // namespace agentrt::mcp::auth
