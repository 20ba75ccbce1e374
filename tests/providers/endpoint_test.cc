// Where an adapter may send its requests (providers/endpoint.h): which hosts count as this
// machine, when an API key may travel over plain http, and how a base URL is split. Checked
// before anything is sent, so these are pure functions of their text.
#include "providers/endpoint.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::testing::Field;

TEST(EndpointTest, IsLoopbackHostTrustsLocalhostAndLiteralLoopbackAddresses) {
  for (const char* host : {"localhost", "127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"}) {
    SCOPED_TRACE(host);
    EXPECT_TRUE(IsLoopbackHost(host));
  }
}

TEST(EndpointTest, IsLoopbackHostRefusesNamesThatMerelyLookLocal) {
  for (const char* host :
       {"LOCALHOST", "localhost.", "foo.localhost", "127.1", "2130706433", "0177.0.0.1", "0.0.0.0",
        "127.0.0.1.nip.io", "", "fe80::1%lo0", "::", "::ffff:10.0.0.1", "192.0.2.7"}) {
    SCOPED_TRACE(host);
    EXPECT_FALSE(IsLoopbackHost(host));
  }
}

TEST(EndpointTest, CheckEndpointKeyOverPlainHttpOnlyToLoopback) {
  struct Row {
    std::string base;
    bool has_key;
    std::string error;  // "" when accepted
  };
  const std::vector<Row> rows = {
      {"https://api.anthropic.com/v1", true, ""},
      {"https://evil.example/v1", true, ""},
      {"http://127.0.0.1:11434", true, ""},
      {"http://localhost:8080/v1", true, ""},
      {"http://[::1]:8080/v1", true, ""},
      {"http://LOCALHOST:8080/v1", true,
       "anthropic: refusing to send an API key over plain http to LOCALHOST"},
      {"http://127.0.0.1.nip.io/v1", true,
       "anthropic: refusing to send an API key over plain http to 127.0.0.1.nip.io"},
      {"HTTP://evil.example/v1", true,
       "anthropic: refusing to send an API key over plain http to evil.example"},
      {"http://user:hunter2@evil.example/v1", true,
       "anthropic: base URL for evil.example carries user information"},
      {"ftp://api.anthropic.com/v1", true,
       "anthropic: base URL \"ftp://api.anthropic.com/v1\" is not an http or https URL"},
      {"http:///v1", true, "anthropic: base URL \"http:///v1\" is not an http or https URL"},
      {"http://evil.example/v1", false, ""},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.base);
    absl::StatusOr<BaseUrl> url = CheckEndpoint("anthropic", row.base, row.has_key);
    if (row.error.empty()) {
      EXPECT_OK(url);
    } else {
      EXPECT_THAT(url, StatusIs(absl::StatusCode::kInvalidArgument, row.error));
    }
  }
}

TEST(EndpointTest, CheckEndpointRefusesUserInformationEvenWithoutAKey) {
  EXPECT_THAT(CheckEndpoint("openai", "https://user:hunter2@api.example.com/v1", false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "openai: base URL for api.example.com carries user information"));
}

TEST(EndpointTest, CheckEndpointNeverNamesAPasswordHoldingAnAtSign) {
  absl::StatusOr<BaseUrl> url = CheckEndpoint("openai", "http://user:s3cr@t@evil.example/v1", true);

  EXPECT_THAT(url, StatusIs(absl::StatusCode::kInvalidArgument,
                            AllOf(HasSubstr("carries user information"), Not(HasSubstr("s3cr")),
                                  Not(HasSubstr("t@")))));
}

TEST(EndpointTest, CheckEndpointReturnsTheSplitUrl) {
  absl::StatusOr<BaseUrl> url = CheckEndpoint("ollama", "http://localhost:11434/", true);

  ASSERT_OK(url);
  EXPECT_EQ(url->scheme, "http");
  EXPECT_EQ(url->host, "localhost");
  EXPECT_EQ(url->port, "11434");
  EXPECT_EQ(url->text, "http://localhost:11434");
}

TEST(EndpointTest, ParseBaseUrlSplitsSchemeHostPortAndPathWithoutTheTrailingSlash) {
  absl::StatusOr<BaseUrl> url = ParseBaseUrl("https://api.anthropic.com:8443/v1/");

  ASSERT_OK(url);
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->host, "api.anthropic.com");
  EXPECT_EQ(url->port, "8443");
  EXPECT_EQ(url->path, "/v1");
  EXPECT_EQ(url->text, "https://api.anthropic.com:8443/v1");
}

TEST(EndpointTest, ParseBaseUrlLowercasesTheSchemeAndLeavesAbsentPartsEmpty) {
  absl::StatusOr<BaseUrl> url = ParseBaseUrl("HTTPS://Api.Example.com");

  ASSERT_OK(url);
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->host, "Api.Example.com");
  EXPECT_EQ(url->port, "");
  EXPECT_EQ(url->path, "");
  EXPECT_EQ(url->text, "HTTPS://Api.Example.com");
}

TEST(EndpointTest, ParseBaseUrlTakesAnIpv6LiteralWithoutItsBrackets) {
  EXPECT_THAT(ParseBaseUrl("http://[::1]:8080/api"),
              IsOkAndHolds(AllOf(Field(&BaseUrl::host, "::1"), Field(&BaseUrl::port, "8080"),
                                 Field(&BaseUrl::path, "/api"))));
}

TEST(EndpointTest, ParseBaseUrlRefusesWhatAnEndpointCannotBe) {
  for (const char* url :
       {"api.example.com/v1", "ftp://api.example.com", "http://", "http:///v1", "https://:443/v1",
        "http://user@api.example.com", "http://api.example.com/v1?key=1",
        "http://api.example.com/v1#top", "http://api.example.com:http/v1", ""}) {
    SCOPED_TRACE(url);
    EXPECT_THAT(ParseBaseUrl(url), StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST(EndpointTest, UrlHostNamesTheHostAloneWhateverElseTheUrlCarries) {
  EXPECT_EQ(UrlHost("https://user:pw@evil.example:8443/p?token=abc#f"), "evil.example");
  EXPECT_EQ(UrlHost("http://[::1]:9/x"), "::1");
  EXPECT_EQ(UrlHost("HTTP://Box"), "Box");
  EXPECT_EQ(UrlHost("ftp://evil.example/"), std::nullopt);
  EXPECT_EQ(UrlHost("/relative/path"), std::nullopt);
  EXPECT_EQ(UrlHost("http://evil.example:port/"), std::nullopt);
  EXPECT_EQ(UrlHost("http:///no-host"), std::nullopt);
}

}  // namespace
}  // namespace agentrt::providers
