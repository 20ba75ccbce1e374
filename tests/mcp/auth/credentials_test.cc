#include "mcp/auth/credentials.h"

#include <sstream>
#include <string>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using test_support::MemoryFilesystem;

constexpr char kPath[] = "/home/op/.agentrt/mcp-credentials.json";

Credentials Issued() {
  Credentials c;
  c.server = "https://mcp.example.com/mcp";
  c.resource = "https://mcp.example.com/mcp";
  c.issuer = "https://auth.example.com";
  c.token_endpoint = "https://auth.example.com/token";
  c.client_id = "client-7";
  c.client_secret = world::Secret("client-secret-value");
  c.token_endpoint_auth_method = "client_secret_basic";
  c.redirect_uri = "http://127.0.0.1:8765/callback";
  c.access_token = world::Secret("access-token-value");
  c.refresh_token = world::Secret("refresh-token-value");
  c.expires_at = absl::FromUnixSeconds(1'800'000'000) + absl::Milliseconds(250);
  c.scope = "mcp:read offline_access";
  return c;
}

void ExpectSame(const Credentials& got, const Credentials& want) {
  EXPECT_EQ(got.server, want.server);
  EXPECT_EQ(got.resource, want.resource);
  EXPECT_EQ(got.issuer, want.issuer);
  EXPECT_EQ(got.token_endpoint, want.token_endpoint);
  EXPECT_EQ(got.client_id, want.client_id);
  EXPECT_EQ(got.client_secret.Reveal(), want.client_secret.Reveal());
  EXPECT_EQ(got.token_endpoint_auth_method, want.token_endpoint_auth_method);
  EXPECT_EQ(got.redirect_uri, want.redirect_uri);
  EXPECT_EQ(got.access_token.Reveal(), want.access_token.Reveal());
  EXPECT_EQ(got.refresh_token.Reveal(), want.refresh_token.Reveal());
  EXPECT_EQ(got.expires_at, want.expires_at);
  EXPECT_EQ(got.scope, want.scope);
}

TEST(CredentialsJsonTest, RoundTripsEveryField) {
  absl::StatusOr<Credentials> back = ParseCredentials(CredentialsJson(Issued()));

  ASSERT_OK(back);
  ExpectSame(*back, Issued());
}

TEST(CredentialsJsonTest, NoExpiryStaysNoExpiry) {
  Credentials c = Issued();
  c.expires_at = absl::InfiniteFuture();
  c.refresh_token = world::Secret();

  std::string json = CredentialsJson(c);
  absl::StatusOr<Credentials> back = ParseCredentials(json);

  EXPECT_THAT(json, Not(HasSubstr("expires_at")));
  EXPECT_THAT(json, Not(HasSubstr("refresh_token")));
  ASSERT_OK(back);
  EXPECT_EQ(back->expires_at, absl::InfiniteFuture());
  EXPECT_TRUE(back->refresh_token.empty());
}

TEST(ParseCredentialsTest, RefusesAnUnknownFieldByName) {
  EXPECT_THAT(ParseCredentials(R"({"server":"https://s","acess_token":"t"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "unknown field \"acess_token\""));
}

TEST(ParseCredentialsTest, RefusesAFieldOfTheWrongKindAndABadTime) {
  EXPECT_THAT(ParseCredentials(R"({"access_token":7})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "\"access_token\" is not a string"));
  EXPECT_THAT(ParseCredentials(R"({"expires_at":"tomorrow"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("\"expires_at\": ")));
  EXPECT_THAT(ParseCredentials("[]"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a JSON object"));
  EXPECT_THAT(ParseCredentials(R"({"server":"a","server":"b"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("not usable JSON: ")));
}

TEST(CredentialsTest, MatchesOnlyTheServerTheyWereIssuedFor) {
  Credentials c = Issued();

  EXPECT_TRUE(c.Matches("https://mcp.example.com/mcp"));
  EXPECT_FALSE(c.Matches("https://mcp.example.com/mcp/"));
  EXPECT_FALSE(c.Matches("https://evil.example.com/mcp"));
}

TEST(CredentialsTest, SecretsPrintRedacted) {
  Credentials c = Issued();
  std::ostringstream streamed;
  streamed << c.access_token << " " << c.refresh_token << " " << c.client_secret;

  std::string formatted =
      absl::StrFormat("%s %s %s", c.access_token, c.refresh_token, c.client_secret);

  EXPECT_EQ(streamed.str(), "[redacted] [redacted] [redacted]");
  EXPECT_EQ(formatted, "[redacted] [redacted] [redacted]");
  EXPECT_EQ(::testing::PrintToString(c.access_token), "[redacted]");
  EXPECT_EQ(absl::StrFormat("%s", world::Secret()), "\"\"");
}

TEST(MemoryTokenStoreTest, LoadsWhatWasSaved) {
  MemoryTokenStore store;
  EXPECT_THAT(store.Load(), IsOkAndHolds(::testing::Eq(std::nullopt)));

  ASSERT_OK(store.Save(Issued()));
  absl::StatusOr<std::optional<Credentials>> loaded = store.Load();

  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  ExpectSame(**loaded, Issued());
}

TEST(FileTokenStoreTest, AMissingFileHoldsNothing) {
  MemoryFilesystem files;
  files.AddFolder("/home/op/.agentrt");
  FileTokenStore store(files, kPath);

  EXPECT_THAT(store.Load(), IsOkAndHolds(::testing::Eq(std::nullopt)));
}

TEST(FileTokenStoreTest, SavesOwnerOnlyAndLoadsItBack) {
  MemoryFilesystem files(1000);
  files.AddFolder("/home/op/.agentrt");
  FileTokenStore store(files, kPath);

  ASSERT_OK(store.Save(Issued()));
  absl::StatusOr<world::FileInfo> info = files.Stat(kPath);
  absl::StatusOr<std::optional<Credentials>> loaded = store.Load();

  ASSERT_OK(info);
  EXPECT_EQ(info->mode, 0600u);
  EXPECT_EQ(info->owner, 1000u);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  ExpectSame(**loaded, Issued());
}

TEST(FileTokenStoreTest, RefusesAFileOthersMayRead) {
  MemoryFilesystem files;
  files.AddFolder("/home/op/.agentrt");
  files.AddFile(kPath, CredentialsJson(Issued()), 0644);
  FileTokenStore store(files, kPath);

  absl::StatusOr<std::optional<Credentials>> loaded = store.Load();

  EXPECT_THAT(loaded, StatusIs(absl::StatusCode::kFailedPrecondition,
                               AllOf(HasSubstr(kPath), HasSubstr("0644"), HasSubstr("chmod 600"))));
  EXPECT_THAT(loaded.status().message(), Not(HasSubstr("access-token-value")));
}

TEST(FileTokenStoreTest, RefusesAFileItsGroupMayRead) {
  MemoryFilesystem files;
  files.AddFolder("/home/op/.agentrt");
  files.AddFile(kPath, CredentialsJson(Issued()), 0640);
  FileTokenStore store(files, kPath);

  EXPECT_THAT(store.Load(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("chmod 600")));
}

TEST(FileTokenStoreTest, RefusesAFileAnotherUserOwns) {
  MemoryFilesystem files(1000);
  files.AddFolder("/home/op/.agentrt");
  files.AddFile(kPath, CredentialsJson(Issued()), 0600, /*owner=*/1001);
  FileTokenStore store(files, kPath);

  EXPECT_THAT(store.Load(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("owned by uid 1001")));
}

TEST(FileTokenStoreTest, RefusesAFileThatDoesNotParseNamingIt) {
  MemoryFilesystem files;
  files.AddFolder("/home/op/.agentrt");
  files.AddFile(kPath, R"({"server":"https://s","tokens":[]})");
  FileTokenStore store(files, kPath);

  EXPECT_THAT(store.Load(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("credentials file \"", kPath, "\": unknown field \"tokens\"")));
}

TEST(FileTokenStoreTest, AFailedWriteIsReported) {
  MemoryFilesystem files;
  files.AddFolder("/home/op/.agentrt");
  files.Fail(kPath, absl::ResourceExhaustedError("disk full"));
  FileTokenStore store(files, kPath);

  EXPECT_THAT(store.Save(Issued()),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("disk full")));
}

}  // namespace
}  // namespace agentrt::mcp::auth
