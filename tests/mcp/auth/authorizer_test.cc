#include "mcp/auth/authorizer.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/auth/form.h"
#include "mcp/auth/pkce.h"
#include "mcp/http_transport.h"
#include "runtime/json/intake.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/url.h"
#include "tests/mcp/auth/fake_network.h"
#include "tests/mcp/auth/test_keys.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::auth {
namespace {

using fakes::FakeNetwork;
using fakes::Json;
using fakes::Reply;

constexpr char kServer[] = "https://mcp.example.com/mcp";
constexpr char kPrm[] = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
constexpr char kIssuer[] = "https://auth.example.com";
constexpr char kAsMetadata[] = "https://auth.example.com/.well-known/oauth-authorization-server";
constexpr char kAuthorize[] = "https://auth.example.com/authorize";
constexpr char kToken[] = "https://auth.example.com/token";
constexpr char kRegister[] = "https://auth.example.com/register";
constexpr char kRedirect[] = "http://127.0.0.1:8765/callback";
constexpr char kCimd[] = "https://app.example.com/agentrt/client.json";
constexpr char kListTools[] = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";
constexpr char kToolsResult[] = R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})";

std::string Field(const world::HttpFields& fields, std::string_view name) {
  return world::FindHeader(fields, name).value_or("<absent>");
}

world::HttpFields QueryOf(std::string_view url) {
  absl::StatusOr<world::Url> parts = world::ParseUrl(url);
  if (!parts.ok()) return {};
  absl::StatusOr<world::HttpFields> fields = FormDecode(parts->query);
  return fields.ok() ? *std::move(fields) : world::HttpFields();
}

std::string FormValue(const std::string& escaped) {
  absl::StatusOr<world::HttpFields> fields = FormDecode(absl::StrCat("v=", escaped));
  return fields.ok() && !fields->empty() ? fields->front().second : "<malformed>";
}

std::set<std::string> Scopes(std::string_view scope) {
  std::set<std::string> out;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(scope.data(), scope.size()), ' ', absl::SkipEmpty())) {
    out.emplace(part);
  }
  return out;
}

std::string JsonList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& item : items) quoted.push_back(absl::StrCat("\"", item, "\""));
  return absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
}

// An authorization server and the MCP server it protects, answering through a FakeNetwork as the
// MCP SDK's example servers do. What they say is set by the test before the flow; what they were
// sent is recorded. The authorization endpoint is reached only through the FakeBrowser.
class FakeAuthServer {
 public:
  explicit FakeAuthServer(FakeNetwork& network) {
    network.Route(kPrm, [this](const world::HttpRequest&) { return Json(ResourceMetadata()); });
    network.Route(kAsMetadata, [this](const world::HttpRequest&) { return Json(Metadata()); });
    network.Route(kRegister, [this](const world::HttpRequest& r) { return Register(r); });
    network.Route(kToken, [this](const world::HttpRequest& r) { return Token(r); });
    network.Route(kServer, [this](const world::HttpRequest& r) { return Mcp(r); });
  }

  // What the servers say.
  std::vector<std::string> resource_scopes;  // the resource metadata's scopes_supported
  std::vector<std::string> server_scopes;    // the authorization server's scopes_supported
  std::vector<std::string> auth_methods;     // token_endpoint_auth_methods_supported
  std::vector<std::string> pkce_methods = {"S256"};
  bool cimd_supported = false;
  bool iss_supported = false;  // authorization_response_iss_parameter_supported (RFC 9207)
  std::string token_endpoint = kToken;
  std::string challenge_scope;  // the 401's scope parameter ("" for none)
  std::string required_scope;   // what tools/list needs: a 403 insufficient_scope without it
  std::set<std::string> withheld_scopes;  // asked for, never granted
  std::optional<std::int64_t> expires_in;
  bool issue_refresh_tokens = false;
  bool refuse_refresh = false;
  bool refuse_every_token = false;   // the MCP server answers 401 whatever it is sent
  std::optional<Reply> token_reply;  // replaces every answer of the token endpoint
  std::string registered_method = "client_secret_basic";
  std::map<std::string, std::string> clients;  // pre-registered: id -> secret

  // What they were sent.
  std::vector<std::string> registrations;         // the registration requests' bodies
  std::vector<world::HttpFields> token_forms;     // each token request's form
  std::vector<std::string> token_authorizations;  // its Authorization header, "" for none
  std::vector<std::string> mcp_authorizations;    // each MCP request's, "" for none

  // The 401 the MCP server sends without a usable token.
  world::HttpFields Unauthorized() const {
    std::string challenge = absl::StrCat(R"(Bearer resource_metadata=")", kPrm, "\"");
    if (!challenge_scope.empty())
      absl::StrAppend(&challenge, R"(, scope=")", challenge_scope, "\"");
    return {{"WWW-Authenticate", challenge}, {"Content-Type", "application/json"}};
  }
  // The 403 for a token without `scope`.
  static world::HttpFields InsufficientScope(const std::string& scope) {
    return {{"WWW-Authenticate", absl::StrCat(R"(Bearer error="insufficient_scope", scope=")",
                                              scope, R"(", resource_metadata=")", kPrm, "\"")}};
  }

  // The authorization endpoint, as the operator's browser reaches it: a code for the request.
  std::string Authorize(const world::HttpFields& query) {
    std::string code = absl::StrCat("code-", ++codes_issued_);
    codes_[code] = {Field(query, "code_challenge"), Field(query, "client_id"),
                    Field(query, "redirect_uri"), Field(query, "scope"), Field(query, "resource")};
    return code;
  }

  void Revoke(const std::string& access_token) { access_.erase(access_token); }

 private:
  struct Code {
    std::string challenge, client_id, redirect_uri, scope, resource;
  };

  std::string ResourceMetadata() const {
    return absl::StrCat(R"({"resource":")", kServer, R"(","authorization_servers":[")", kIssuer,
                        R"("],"scopes_supported":)", JsonList(resource_scopes), "}");
  }

  std::string Metadata() const {
    std::string out = absl::StrCat(
        R"({"issuer":")", kIssuer, R"(","authorization_endpoint":")", kAuthorize,
        R"(","token_endpoint":")", token_endpoint, R"(","registration_endpoint":")", kRegister,
        R"(","response_types_supported":["code"],"code_challenge_methods_supported":)",
        JsonList(pkce_methods), R"(,"client_id_metadata_document_supported":)",
        cimd_supported ? "true" : "false");
    if (!server_scopes.empty())
      absl::StrAppend(&out, R"(,"scopes_supported":)", JsonList(server_scopes));
    if (iss_supported) {
      absl::StrAppend(&out, R"(,"authorization_response_iss_parameter_supported":true)");
    }
    if (!auth_methods.empty()) {
      absl::StrAppend(&out, R"(,"token_endpoint_auth_methods_supported":)", JsonList(auth_methods));
    }
    return out + "}";
  }

  Reply Register(const world::HttpRequest& request) {
    registrations.push_back(request.body);
    int n = static_cast<int>(registrations.size());
    std::string id = absl::StrCat("dyn-client-", n);
    std::string secret = absl::StrCat("dyn-secret-", n);
    clients[id] = secret;
    return Json(absl::StrCat(R"({"client_id":")", id, R"(","client_secret":")", secret,
                             R"(","token_endpoint_auth_method":")", registered_method, R"("})"),
                201);
  }

  static Reply Error(const std::string& error, int status = 400) {
    return Json(absl::StrCat(R"({"error":")", error, R"("})"), status);
  }

  Reply Token(const world::HttpRequest& request) {
    absl::StatusOr<world::HttpFields> form = FormDecode(request.body);
    token_forms.push_back(form.ok() ? *form : world::HttpFields());
    std::string authorization = world::FindHeader(request.headers, "Authorization").value_or("");
    token_authorizations.push_back(authorization);
    if (token_reply.has_value()) return *token_reply;
    if (!form.ok()) return Error("invalid_request");
    // The client authenticates as RFC 6749 §2.3.1 says: id and secret form-encoded, then Basic.
    std::string client_id = Field(*form, "client_id");
    std::string secret = Field(*form, "client_secret");
    if (authorization.starts_with("Basic ")) {
      std::string pair;
      if (!absl::Base64Unescape(authorization.substr(6), &pair))
        return Error("invalid_client", 401);
      std::size_t colon = pair.find(':');
      if (colon == std::string::npos) return Error("invalid_client", 401);
      client_id = FormValue(pair.substr(0, colon));
      secret = FormValue(pair.substr(colon + 1));
    }
    bool cimd = client_id == kCimd && cimd_supported;
    bool assertion = Field(*form, "client_assertion_type") != "<absent>";
    auto known = clients.find(client_id);
    if (!cimd && (known == clients.end() || (!assertion && known->second != secret &&
                                             !(known->second.empty() && secret == "<absent>")))) {
      return Error("invalid_client", 401);
    }
    std::string grant = Field(*form, "grant_type");
    if (grant == "authorization_code") {
      auto code = codes_.find(Field(*form, "code"));
      if (code == codes_.end()) return Error("invalid_grant");
      Code issued = code->second;
      codes_.erase(code);  // a code is good once
      if (S256Challenge(Field(*form, "code_verifier")) != issued.challenge ||
          Field(*form, "redirect_uri") != issued.redirect_uri || client_id != issued.client_id ||
          Field(*form, "resource") != issued.resource) {
        return Error("invalid_grant");
      }
      return Issue(issued.scope == "<absent>" ? "" : issued.scope);
    }
    if (grant == "refresh_token") {
      auto refresh = refresh_.find(Field(*form, "refresh_token"));
      if (refuse_refresh || refresh == refresh_.end()) return Error("invalid_grant");
      return Issue(refresh->second);
    }
    if (grant == "client_credentials") {
      std::string scope = Field(*form, "scope");
      return Issue(scope == "<absent>" ? "" : scope);
    }
    if (grant == "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      // The identity assertion the identity provider issued for this server, and nothing else.
      if (Field(*form, "assertion") != "id-jag-for-auth.example.com") return Error("invalid_grant");
      std::string scope = Field(*form, "scope");
      return Issue(scope == "<absent>" ? "" : scope);
    }
    return Error("unsupported_grant_type");
  }

  Reply Issue(const std::string& asked) {
    std::set<std::string> granted = Scopes(asked);
    for (const std::string& scope : withheld_scopes) granted.erase(scope);
    std::string scope = absl::StrJoin(granted, " ");
    int n = ++tokens_issued_;
    std::string access = absl::StrCat("at-", n);
    access_[access] = scope;
    std::string body = absl::StrCat(R"({"access_token":")", access, R"(","token_type":"Bearer")");
    if (expires_in.has_value()) absl::StrAppend(&body, R"(,"expires_in":)", *expires_in);
    if (issue_refresh_tokens) {
      std::string refresh = absl::StrCat("rt-", n);
      refresh_[refresh] = scope;
      absl::StrAppend(&body, R"(,"refresh_token":")", refresh, "\"");
    }
    return Json(body + "}");
  }

  Reply Mcp(const world::HttpRequest& request) {
    std::string authorization = world::FindHeader(request.headers, "Authorization").value_or("");
    mcp_authorizations.push_back(authorization);
    auto token = authorization.starts_with("Bearer ") ? access_.find(authorization.substr(7))
                                                      : access_.end();
    if (token == access_.end() || refuse_every_token) {
      Reply reply = Json(R"({"error":"invalid_token"})", 401);
      reply.headers = Unauthorized();
      return reply;
    }
    std::set<std::string> granted = Scopes(token->second);
    for (const std::string& needed : Scopes(required_scope)) {
      if (!granted.contains(needed)) {
        Reply reply = Json(R"({"error":"insufficient_scope"})", 403);
        reply.headers = InsufficientScope(required_scope);
        return reply;
      }
    }
    return Json(kToolsResult);
  }

  int codes_issued_ = 0;
  int tokens_issued_ = 0;
  std::map<std::string, Code> codes_;
  std::map<std::string, std::string> access_;   // token -> scope granted
  std::map<std::string, std::string> refresh_;  // token -> scope granted
};

// The operator's browser: it takes the authorization URL to the authorization server and comes
// back with the redirect the server answered, or with what `answer` makes of it (a hostile
// server or a forged redirect).
class FakeBrowser final : public Browser {
 public:
  explicit FakeBrowser(FakeAuthServer& server) : server_(server) {}

  std::string redirect_uri() const override { return kRedirect; }

  absl::StatusOr<std::string> Visit(std::string_view authorization_url, absl::Time) override {
    visited.emplace_back(authorization_url);
    if (!authorization_url.starts_with(absl::StrCat(authorization_endpoint, "?"))) {
      return absl::NotFoundError("the browser was sent somewhere else");
    }
    world::HttpFields query = QueryOf(authorization_url);
    std::string code = server_.Authorize(query);
    std::string honest =
        WithQuery(Field(query, "redirect_uri"), {{"code", code}, {"state", Field(query, "state")}});
    return answer ? answer(query, code, honest) : honest;
  }

  // The query of the i-th visit.
  world::HttpFields Query(std::size_t i) const {
    return i < visited.size() ? QueryOf(visited[i]) : world::HttpFields();
  }

  std::string authorization_endpoint = kAuthorize;  // where the server is
  std::function<std::string(const world::HttpFields& query, const std::string& code,
                            const std::string& honest)>
      answer;
  std::vector<std::string> visited;

 private:
  FakeAuthServer& server_;
};

class AuthorizerTest : public ::testing::Test {
 protected:
  absl::Time Deadline() const { return clock_.Now() + absl::Minutes(5); }

  std::unique_ptr<Authorizer> Make(AuthSettings settings = {}, bool with_browser = true) {
    absl::StatusOr<std::unique_ptr<Authorizer>> made =
        Authorizer::Create(kServer, std::move(settings), store_,
                           {.network = &network_,
                            .clock = &clock_,
                            .entropy = &entropy_,
                            .browser = with_browser ? &browser_ : nullptr});
    EXPECT_OK(made);
    return made.ok() ? *std::move(made) : nullptr;
  }

  // An HTTP transport to the MCP server that authorizes with `authorization`.
  std::unique_ptr<HttpTransport> Transport(std::shared_ptr<Authorization> authorization) {
    return std::make_unique<HttpTransport>(
        network_, clock_,
        HttpTransportOptions{.endpoint = kServer, .authorization = std::move(authorization)});
  }

  // Sends tools/list and returns its answer.
  absl::StatusOr<std::string> ListTools(HttpTransport& transport) {
    if (absl::Status sent = transport.Send(kListTools, Deadline()); !sent.ok()) return sent;
    return transport.Receive(Deadline());
  }

  // The flow up to a token: the 401 handed over, then the header asked for.
  absl::StatusOr<std::string> Authorized(Authorizer& authorizer) {
    if (absl::Status refused = authorizer.Refused(401, server_.Unauthorized(), Deadline());
        !refused.ok()) {
      return refused;
    }
    return authorizer.Header(Deadline());
  }

  std::optional<Credentials> Saved() {
    absl::StatusOr<std::optional<Credentials>> saved = store_->Load();
    EXPECT_OK(saved);
    return saved.ok() ? *saved : std::nullopt;
  }

  // Every request that carried a bearer token went to the MCP server.
  void ExpectBearerOnlyToTheServer() const {
    for (const world::HttpRequest& request : network_.requests()) {
      std::string authorization = world::FindHeader(request.headers, "Authorization").value_or("");
      if (authorization.starts_with("Bearer ")) {
        EXPECT_EQ(request.url, kServer) << "a token went to " << request.url;
      }
    }
  }

  FakeNetwork network_;
  FakeAuthServer server_{network_};
  FakeBrowser browser_{server_};
  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{11};
  std::shared_ptr<MemoryTokenStore> store_ = std::make_shared<MemoryTokenStore>();
};

TEST_F(AuthorizerTest, NoTokenIsSentBeforeAnyAuthorization) {
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds(""));
  EXPECT_THAT(network_.requests(), IsEmpty());
  EXPECT_EQ(authorizer->current(), std::nullopt);
}

TEST_F(AuthorizerTest, TheFullFlowRegistersLogsInWithPkceAndExchangesTheCode) {
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(Authorized(*authorizer), IsOkAndHolds("Bearer at-1"));

  EXPECT_THAT(network_.Sent(),
              ElementsAre(absl::StrCat("GET ", kPrm), absl::StrCat("GET ", kAsMetadata),
                          absl::StrCat("POST ", kRegister), absl::StrCat("POST ", kToken)));
  // Registered for the browser's redirect URI.
  ASSERT_THAT(server_.registrations, SizeIs(1));
  absl::StatusOr<json::Document> registration = json::Parse(server_.registrations[0]);
  ASSERT_OK(registration);
  std::optional<json::Value> uris = registration->root().Find("redirect_uris");
  ASSERT_TRUE(uris.has_value() && uris->is_array() && uris->size() == 1);
  EXPECT_EQ(uris->element(0).string_value(), kRedirect);
  // The authorization request.
  ASSERT_THAT(browser_.visited, SizeIs(1));
  world::HttpFields query = browser_.Query(0);
  EXPECT_EQ(Field(query, "response_type"), "code");
  EXPECT_EQ(Field(query, "client_id"), "dyn-client-1");
  EXPECT_EQ(Field(query, "redirect_uri"), kRedirect);
  EXPECT_EQ(Field(query, "code_challenge_method"), "S256");
  EXPECT_THAT(Field(query, "code_challenge"), MatchesRegex("[A-Za-z0-9_-]{43}"));
  EXPECT_THAT(Field(query, "state"), MatchesRegex("[A-Za-z0-9_-]{22}"));
  EXPECT_EQ(Field(query, "resource"), kServer);
  // The exchange: the verifier behind the challenge, the same redirect URI and resource.
  ASSERT_THAT(server_.token_forms, SizeIs(1));
  const world::HttpFields& form = server_.token_forms[0];
  EXPECT_EQ(Field(form, "grant_type"), "authorization_code");
  EXPECT_EQ(Field(form, "code"), "code-1");
  EXPECT_EQ(Field(form, "redirect_uri"), kRedirect);
  EXPECT_EQ(S256Challenge(Field(form, "code_verifier")), Field(query, "code_challenge"));
  EXPECT_EQ(Field(form, "resource"), kServer);
  EXPECT_EQ(Field(form, "client_secret"), "<absent>");
  EXPECT_THAT(server_.token_authorizations,
              ElementsAre(absl::StrCat("Basic ", absl::Base64Escape("dyn-client-1:dyn-secret-1"))));
}

TEST_F(AuthorizerTest, EveryLoginDrawsAFreshStateAndVerifier) {
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));
  authorizer->ForgetTokens();

  ASSERT_OK(Authorized(*authorizer));

  ASSERT_THAT(browser_.visited, SizeIs(2));
  EXPECT_NE(Field(browser_.Query(0), "state"), Field(browser_.Query(1), "state"));
  EXPECT_NE(Field(browser_.Query(0), "code_challenge"), Field(browser_.Query(1), "code_challenge"));
  // The registered client is kept: the second login registers nothing.
  EXPECT_THAT(server_.registrations, SizeIs(1));
  EXPECT_EQ(Field(browser_.Query(1), "client_id"), "dyn-client-1");
}

TEST_F(AuthorizerTest, WhatWasIssuedIsSavedAtOnce) {
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> authorizer = Make();

  ASSERT_OK(Authorized(*authorizer));
  std::optional<Credentials> saved = Saved();

  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->server, kServer);
  EXPECT_EQ(saved->resource, kServer);
  EXPECT_EQ(saved->issuer, kIssuer);
  EXPECT_EQ(saved->token_endpoint, kToken);
  EXPECT_EQ(saved->client_id, "dyn-client-1");
  EXPECT_EQ(saved->client_secret.Reveal(), "dyn-secret-1");
  EXPECT_EQ(saved->token_endpoint_auth_method, "client_secret_basic");
  EXPECT_EQ(saved->redirect_uri, kRedirect);
  EXPECT_EQ(saved->access_token.Reveal(), "at-1");
  EXPECT_EQ(saved->refresh_token.Reveal(), "rt-1");
  EXPECT_EQ(saved->expires_at, clock_.Now() + absl::Hours(1));
  EXPECT_EQ(saved->scope, "mcp:read");
}

TEST_F(AuthorizerTest, ASavedTokenIsSentWithoutAskingAgain) {
  ASSERT_OK(Authorized(*Make()));
  std::size_t before = network_.requests().size();

  std::unique_ptr<Authorizer> later = Make();

  EXPECT_THAT(later->Header(Deadline()), IsOkAndHolds("Bearer at-1"));
  EXPECT_THAT(network_.requests(), SizeIs(before));
}

TEST_F(AuthorizerTest, SavedCredentialsForAnotherServerAreNotSent) {
  Credentials other;
  other.server = "https://other.example.com/mcp";
  other.access_token = world::Secret("other-servers-token");
  ASSERT_OK(store_->Save(other));
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds(""));
  EXPECT_EQ(authorizer->current(), std::nullopt);
}

TEST_F(AuthorizerTest, TheScopeComesFromTheRefusalFirst) {
  server_.challenge_scope = "mcp:write mcp:read";
  server_.resource_scopes = {"prm:only"};

  ASSERT_OK(Authorized(*Make()));

  EXPECT_EQ(Field(browser_.Query(0), "scope"), "mcp:read mcp:write");
}

TEST_F(AuthorizerTest, TheScopeComesFromTheResourceMetadataWhenTheRefusalNamesNone) {
  server_.resource_scopes = {"mcp:basic", "mcp:extra"};

  ASSERT_OK(Authorized(*Make()));

  EXPECT_EQ(Field(browser_.Query(0), "scope"), "mcp:basic mcp:extra");
}

TEST_F(AuthorizerTest, TheScopeIsOmittedWhenNobodyNamesOne) {
  ASSERT_OK(Authorized(*Make()));

  EXPECT_EQ(Field(browser_.Query(0), "scope"), "<absent>");
}

TEST_F(AuthorizerTest, OfflineAccessIsAskedForOnlyWhenTheServerListsIt) {
  server_.challenge_scope = "mcp:read";
  ASSERT_OK(Authorized(*Make()));
  server_.server_scopes = {"mcp:read", "offline_access"};
  store_ = std::make_shared<MemoryTokenStore>();

  ASSERT_OK(Authorized(*Make()));

  EXPECT_EQ(Field(browser_.Query(0), "scope"), "mcp:read");
  EXPECT_EQ(Field(browser_.Query(1), "scope"), "mcp:read offline_access");
}

TEST_F(AuthorizerTest, APreRegisteredClientAuthenticatesWithBasic) {
  server_.clients["pre-client"] = "pre secret:x";
  server_.auth_methods = {"client_secret_basic", "client_secret_post"};

  ASSERT_OK(Authorized(
      *Make({.client_id = "pre-client", .client_secret = world::Secret("pre secret:x")})));

  EXPECT_THAT(server_.registrations, IsEmpty());
  EXPECT_EQ(Field(browser_.Query(0), "client_id"), "pre-client");
  // RFC 6749 §2.3.1: id and secret form-encoded before they are joined and base64-encoded.
  EXPECT_THAT(server_.token_authorizations,
              ElementsAre(absl::StrCat("Basic ", absl::Base64Escape("pre-client:pre+secret%3Ax"))));
  EXPECT_EQ(Field(server_.token_forms[0], "client_secret"), "<absent>");
}

TEST_F(AuthorizerTest, APreRegisteredClientPostsItsSecretWhenThatIsAllTheServerTakes) {
  server_.clients["pre-client"] = "s3cret";
  server_.auth_methods = {"client_secret_post"};

  ASSERT_OK(
      Authorized(*Make({.client_id = "pre-client", .client_secret = world::Secret("s3cret")})));

  EXPECT_THAT(server_.token_authorizations, ElementsAre(""));
  EXPECT_EQ(Field(server_.token_forms[0], "client_id"), "pre-client");
  EXPECT_EQ(Field(server_.token_forms[0], "client_secret"), "s3cret");
}

TEST_F(AuthorizerTest, TheOperatorsChosenMethodWins) {
  server_.clients["pre-client"] = "s3cret";
  server_.auth_methods = {"client_secret_basic", "client_secret_post"};

  ASSERT_OK(Authorized(*Make({.client_id = "pre-client",
                              .client_secret = world::Secret("s3cret"),
                              .token_endpoint_auth_method = "client_secret_post"})));

  EXPECT_THAT(server_.token_authorizations, ElementsAre(""));
  EXPECT_EQ(Field(server_.token_forms[0], "client_secret"), "s3cret");
}

TEST_F(AuthorizerTest, AClientIdMetadataDocumentIsTheIdWhenTheServerSupportsThem) {
  server_.cimd_supported = true;

  ASSERT_OK(Authorized(*Make({.client_metadata_url = kCimd})));

  EXPECT_THAT(server_.registrations, IsEmpty());
  EXPECT_EQ(network_.CountTo(kRegister), 0);
  EXPECT_EQ(Field(browser_.Query(0), "client_id"), kCimd);
  EXPECT_EQ(Field(server_.token_forms[0], "client_id"), kCimd);
  EXPECT_THAT(server_.token_authorizations, ElementsAre(""));
}

TEST_F(AuthorizerTest, WithoutServerSupportTheMetadataDocumentIsNotUsed) {
  ASSERT_OK(Authorized(*Make({.client_metadata_url = kCimd})));

  EXPECT_THAT(server_.registrations, SizeIs(1));
  EXPECT_EQ(Field(browser_.Query(0), "client_id"), "dyn-client-1");
}

TEST_F(AuthorizerTest, TheClientCredentialsGrantNeedsNoBrowser) {
  server_.clients["machine"] = "machine-secret";
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> authorizer = Make({.grant = Grant::kClientCredentials,
                                                 .client_id = "machine",
                                                 .client_secret = world::Secret("machine-secret")},
                                                /*with_browser=*/false);

  EXPECT_THAT(Authorized(*authorizer), IsOkAndHolds("Bearer at-1"));

  EXPECT_THAT(browser_.visited, IsEmpty());
  ASSERT_THAT(server_.token_forms, SizeIs(1));
  EXPECT_EQ(Field(server_.token_forms[0], "grant_type"), "client_credentials");
  EXPECT_EQ(Field(server_.token_forms[0], "scope"), "mcp:read");
  EXPECT_EQ(Field(server_.token_forms[0], "resource"), kServer);
  EXPECT_THAT(server_.token_authorizations,
              ElementsAre(absl::StrCat("Basic ", absl::Base64Escape("machine:machine-secret"))));
}

// The enterprise-managed extension: the operator's ID token exchanged at their identity
// provider for an assertion naming this authorization server and resource, then that assertion
// exchanged for the token. No browser, no registration.
TEST_F(AuthorizerTest, TheIdentityAssertionGrantExchangesTheIdTokenAtTheIdentityProvider) {
  constexpr char kIdp[] = "https://idp.example.com/token";
  std::vector<world::HttpFields> exchanges;
  network_.Route(kIdp, [&](const world::HttpRequest& request) {
    absl::StatusOr<world::HttpFields> form = FormDecode(request.body);
    exchanges.push_back(form.ok() ? *form : world::HttpFields());
    return Json(R"({"access_token":"id-jag-for-auth.example.com","token_type":"N_A",)"
                R"("issued_token_type":"urn:ietf:params:oauth:token-type:id-jag"})");
  });
  server_.clients["app"] = "app-secret";
  AuthSettings settings{.grant = Grant::kIdentityAssertion,
                        .client_id = "app",
                        .client_secret = world::Secret("app-secret")};
  settings.idp_token_endpoint = kIdp;
  settings.idp_client_id = "app-at-idp";
  settings.idp_id_token = world::Secret("the-operators-id-token");
  std::unique_ptr<Authorizer> authorizer = Make(settings, /*with_browser=*/false);

  EXPECT_THAT(Authorized(*authorizer), IsOkAndHolds("Bearer at-1"));

  EXPECT_THAT(browser_.visited, IsEmpty());
  EXPECT_THAT(server_.registrations, IsEmpty());
  ASSERT_THAT(exchanges, SizeIs(1));
  EXPECT_EQ(Field(exchanges[0], "grant_type"), "urn:ietf:params:oauth:grant-type:token-exchange");
  EXPECT_EQ(Field(exchanges[0], "subject_token"), "the-operators-id-token");
  EXPECT_EQ(Field(exchanges[0], "subject_token_type"), "urn:ietf:params:oauth:token-type:id_token");
  EXPECT_EQ(Field(exchanges[0], "requested_token_type"), "urn:ietf:params:oauth:token-type:id-jag");
  EXPECT_EQ(Field(exchanges[0], "audience"), kIssuer);
  EXPECT_EQ(Field(exchanges[0], "resource"), kServer);
  EXPECT_EQ(Field(exchanges[0], "client_id"), "app-at-idp");
  ASSERT_THAT(server_.token_forms, SizeIs(1));
  EXPECT_EQ(Field(server_.token_forms[0], "grant_type"),
            "urn:ietf:params:oauth:grant-type:jwt-bearer");
  EXPECT_EQ(Field(server_.token_forms[0], "resource"), kServer);
  EXPECT_THAT(server_.token_authorizations,
              ElementsAre(absl::StrCat("Basic ", absl::Base64Escape("app:app-secret"))));
}

TEST_F(AuthorizerTest, AnIdentityProviderAnswerThatIsNoIdentityAssertionIsRefused) {
  constexpr char kIdp[] = "https://idp.example.com/token";
  network_.Answer(kIdp,
                  Json(R"({"access_token":"x","token_type":"Bearer",)"
                       R"("issued_token_type":"urn:ietf:params:oauth:token-type:access_token"})"));
  server_.clients["app"] = "app-secret";
  AuthSettings settings{.grant = Grant::kIdentityAssertion,
                        .client_id = "app",
                        .client_secret = world::Secret("app-secret")};
  settings.idp_token_endpoint = kIdp;
  settings.idp_id_token = world::Secret("the-operators-id-token");
  std::unique_ptr<Authorizer> authorizer = Make(settings, /*with_browser=*/false);

  EXPECT_THAT(
      authorizer->Refused(401, server_.Unauthorized(), Deadline()),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("issued_token_type is not urn:ietf:params:oauth:token-type:id-jag")));
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

TEST_F(AuthorizerTest, CreateRefusesAnIdentityAssertionGrantWithoutItsIdentityProvider) {
  AuthSettings settings{.grant = Grant::kIdentityAssertion,
                        .client_id = "app",
                        .client_secret = world::Secret("app-secret")};
  EXPECT_THAT(Authorizer::Create(kServer, settings, std::make_shared<MemoryTokenStore>(),
                                 {.network = &network_, .clock = &clock_, .entropy = &entropy_}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("identity provider")));
  settings.idp_token_endpoint = "http://idp.example.com/token";
  settings.idp_id_token = world::Secret("t");
  EXPECT_THAT(Authorizer::Create(kServer, settings, std::make_shared<MemoryTokenStore>(),
                                 {.network = &network_, .clock = &clock_, .entropy = &entropy_}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("refusing plain http")));
}

TEST_F(AuthorizerTest, TheClientCredentialsGrantWithAPrivateKeySignsAnAssertion) {
  std::string key = fakes::NewPrivateKeyPem("EC");
  server_.clients["machine"] = "";
  server_.auth_methods = {"private_key_jwt"};
  std::unique_ptr<Authorizer> authorizer = Make({.grant = Grant::kClientCredentials,
                                                 .client_id = "machine",
                                                 .private_key = world::Secret(key)},
                                                /*with_browser=*/false);

  ASSERT_OK(Authorized(*authorizer));

  const world::HttpFields& form = server_.token_forms.at(0);
  EXPECT_EQ(Field(form, "client_id"), "machine");
  EXPECT_EQ(Field(form, "client_assertion_type"),
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  EXPECT_TRUE(fakes::VerifyJwt(Field(form, "client_assertion"), key, "ES256"));
  std::vector<std::string> parts = fakes::SplitJwt(Field(form, "client_assertion"));
  ASSERT_THAT(parts, SizeIs(3));
  EXPECT_THAT(fakes::Base64UrlDecode(parts[1]),
              Optional(HasSubstr(absl::StrCat(R"("aud":")", kIssuer, "\""))));
  EXPECT_THAT(server_.token_authorizations, ElementsAre(""));
}

TEST_F(AuthorizerTest, CreateRefusesTheClientCredentialsGrantWithoutASecret) {
  EXPECT_THAT(
      Authorizer::Create(kServer, {.grant = Grant::kClientCredentials, .client_id = "m"}, store_,
                         {.network = &network_, .clock = &clock_, .entropy = &entropy_}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("client_credentials")));
}

TEST_F(AuthorizerTest, CreateRefusesAPlainHttpServerOnAnotherHost) {
  AuthorizerWorld world{.network = &network_, .clock = &clock_, .entropy = &entropy_};

  EXPECT_THAT(Authorizer::Create("http://mcp.example.com/mcp", {}, store_, world),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "refusing to send a token over plain http to mcp.example.com, which is not "
                       "this machine"));
  EXPECT_OK(Authorizer::Create("http://127.0.0.1:3000/mcp", {}, store_, world));
  EXPECT_OK(Authorizer::Create("http://localhost:3000/mcp", {}, store_, world));
  EXPECT_THAT(network_.requests(), IsEmpty());
}

TEST_F(AuthorizerTest, CreateRefusesAMetadataDocumentUrlThatIsNotHttps) {
  AuthorizerWorld world{.network = &network_, .clock = &clock_, .entropy = &entropy_};

  EXPECT_THAT(Authorizer::Create(kServer, {.client_metadata_url = "http://app.example.com/c.json"},
                                 store_, world),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("client_metadata_url")));
}

TEST_F(AuthorizerTest, WithoutABrowserTheOperatorIsToldToLogIn) {
  std::unique_ptr<Authorizer> authorizer = Make({}, /*with_browser=*/false);

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("agentrt mcp login")));
  EXPECT_EQ(network_.CountTo(kRegister), 0);
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

TEST_F(AuthorizerTest, AStepUpAsksForTheUnionOfTheScopes) {
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));

  ASSERT_OK(authorizer->Refused(403, FakeAuthServer::InsufficientScope("mcp:write"), Deadline()));

  ASSERT_THAT(browser_.visited, SizeIs(2));
  EXPECT_EQ(Field(browser_.Query(1), "scope"), "mcp:read mcp:write");
  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds("Bearer at-2"));
}

TEST_F(AuthorizerTest, AStepUpAfterARestartKeepsTheScopesAlreadyHeld) {
  server_.challenge_scope = "mcp:read";
  ASSERT_OK(Authorized(*Make()));
  std::unique_ptr<Authorizer> restarted = Make();

  ASSERT_OK(restarted->Refused(403, FakeAuthServer::InsufficientScope("mcp:write"), Deadline()));

  ASSERT_THAT(browser_.visited, SizeIs(2));
  EXPECT_EQ(Field(browser_.Query(1), "scope"), "mcp:read mcp:write");
}

TEST_F(AuthorizerTest, AStepUpForScopesAlreadyAskedForIsRefused) {
  server_.challenge_scope = "mcp:read mcp:write";
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));

  EXPECT_THAT(authorizer->Refused(403, FakeAuthServer::InsufficientScope("mcp:write"), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("\"mcp:write\", which was asked for and not granted")));
  EXPECT_THAT(browser_.visited, SizeIs(1));
}

TEST_F(AuthorizerTest, StepUpsAreBounded) {
  server_.challenge_scope = "a";
  std::unique_ptr<Authorizer> authorizer = Make({.max_step_ups = 1});
  ASSERT_OK(Authorized(*authorizer));
  ASSERT_OK(authorizer->Refused(403, FakeAuthServer::InsufficientScope("b"), Deadline()));

  EXPECT_THAT(authorizer->Refused(403, FakeAuthServer::InsufficientScope("c"), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("at most 1 step-ups")));
  EXPECT_THAT(browser_.visited, SizeIs(2));
}

TEST_F(AuthorizerTest, AForbiddenWithoutInsufficientScopeIsNotAuthorizedAgain) {
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));

  EXPECT_THAT(authorizer->Refused(403, {{"WWW-Authenticate", R"(Bearer error="invalid_token")"}},
                                  Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("HTTP 403, invalid_token")));
  EXPECT_THAT(browser_.visited, SizeIs(1));
}

TEST_F(AuthorizerTest, AnExpiringTokenIsRefreshedBeforeItIsSent) {
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));

  // Still 31 s to go: sent as it is.
  clock_.Advance(absl::Seconds(3600 - 31));
  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds("Bearer at-1"));
  EXPECT_THAT(server_.token_forms, SizeIs(1));
  // Within 30 s of its expiry: refreshed first.
  clock_.Advance(absl::Seconds(2));
  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds("Bearer at-2"));

  ASSERT_THAT(server_.token_forms, SizeIs(2));
  const world::HttpFields& form = server_.token_forms[1];
  EXPECT_EQ(Field(form, "grant_type"), "refresh_token");
  EXPECT_EQ(Field(form, "refresh_token"), "rt-1");
  EXPECT_EQ(Field(form, "resource"), kServer);
  EXPECT_EQ(server_.token_authorizations[1],
            absl::StrCat("Basic ", absl::Base64Escape("dyn-client-1:dyn-secret-1")));
  EXPECT_THAT(browser_.visited, SizeIs(1));
  std::optional<Credentials> saved = Saved();
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->access_token.Reveal(), "at-2");
  EXPECT_EQ(saved->refresh_token.Reveal(), "rt-2");
  EXPECT_EQ(saved->expires_at, clock_.Now() + absl::Hours(1));
}

// Two processes on one credentials file (the proxy and an `mcp call`): when the first has
// refreshed, the second takes the token it stored instead of spending the refresh token again
// (which a server that rotates refresh tokens would refuse).
TEST_F(AuthorizerTest, ATokenAnotherProcessRefreshedIsTakenInsteadOfRefreshingAgain) {
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> first = Make();
  ASSERT_OK(Authorized(*first));
  std::unique_ptr<Authorizer> second = Make({}, /*with_browser=*/false);
  EXPECT_THAT(second->Header(Deadline()), IsOkAndHolds("Bearer at-1"));

  clock_.Advance(absl::Seconds(3600 - 10));
  EXPECT_THAT(first->Header(Deadline()), IsOkAndHolds("Bearer at-2"));
  EXPECT_THAT(second->Header(Deadline()), IsOkAndHolds("Bearer at-2"));

  ASSERT_THAT(server_.token_forms, SizeIs(2));  // the login and one refresh, not two
  EXPECT_EQ(Field(server_.token_forms[1], "grant_type"), "refresh_token");
}

// And a token the server refused is replaced by one another process obtained since, without a
// login (this process has no browser).
TEST_F(AuthorizerTest, ARefusedTokenIsReplacedByOneAnotherProcessObtained) {
  server_.challenge_scope = "mcp:read";
  std::unique_ptr<Authorizer> operator_side = Make();
  ASSERT_OK(Authorized(*operator_side));  // at-1, stored
  std::unique_ptr<Authorizer> proxy_side = Make({}, /*with_browser=*/false);
  EXPECT_THAT(proxy_side->Header(Deadline()), IsOkAndHolds("Bearer at-1"));
  operator_side->ForgetTokens();  // `agentrt mcp login` again: at-2, stored
  ASSERT_OK(operator_side->Refused(401, server_.Unauthorized(), Deadline()));

  EXPECT_OK(proxy_side->Refused(401, server_.Unauthorized(), Deadline()));
  EXPECT_THAT(proxy_side->Header(Deadline()), IsOkAndHolds("Bearer at-2"));
  // Refused again: nothing newer is stored, and this process cannot log in.
  EXPECT_THAT(proxy_side->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("agentrt mcp login")));
  EXPECT_THAT(server_.token_forms, SizeIs(2));  // the two logins only
}

TEST_F(AuthorizerTest, ARefreshThatIssuesNoRefreshTokenKeepsTheOldOne) {
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));
  server_.issue_refresh_tokens = false;
  clock_.Advance(absl::Hours(1));

  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds("Bearer at-2"));

  std::optional<Credentials> saved = Saved();
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->refresh_token.Reveal(), "rt-1");
}

TEST_F(AuthorizerTest, ARefusedTokenIsRefreshedBeforeAnotherLogin) {
  server_.issue_refresh_tokens = true;
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));
  server_.Revoke("at-1");

  EXPECT_THAT(Authorized(*authorizer), IsOkAndHolds("Bearer at-2"));

  EXPECT_EQ(Field(server_.token_forms.at(1), "grant_type"), "refresh_token");
  EXPECT_THAT(browser_.visited, SizeIs(1));
}

TEST_F(AuthorizerTest, AnExpiredTokenWithoutARefreshTokenIsNotSent) {
  server_.expires_in = 60;
  std::unique_ptr<Authorizer> authorizer = Make();
  ASSERT_OK(Authorized(*authorizer));
  clock_.Advance(absl::Minutes(2));

  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds(""));
  EXPECT_THAT(server_.token_forms, SizeIs(1));
}

// A token with no refresh token is sent as it is through its last seconds: the credentials file
// is not read again on each of those requests, only once the token is gone.
TEST_F(AuthorizerTest, TheLastSecondsOfATokenWithoutARefreshTokenCostNoReads) {
  class CountingStore final : public TokenStore {
   public:
    absl::StatusOr<std::optional<Credentials>> Load() override {
      ++loads;
      return inner.Load();
    }
    absl::Status Save(const Credentials& c) override { return inner.Save(c); }
    MemoryTokenStore inner;
    int loads = 0;
  };
  auto store = std::make_shared<CountingStore>();
  server_.expires_in = 60;
  absl::StatusOr<std::unique_ptr<Authorizer>> made = Authorizer::Create(
      kServer, {}, store,
      {.network = &network_, .clock = &clock_, .entropy = &entropy_, .browser = &browser_});
  ASSERT_OK(made);
  ASSERT_OK(Authorized(**made));
  clock_.Advance(absl::Seconds(50));
  int before = store->loads;

  for (int i = 0; i < 3; ++i) EXPECT_THAT((*made)->Header(Deadline()), IsOkAndHolds("Bearer at-1"));
  EXPECT_EQ(store->loads, before);
  clock_.Advance(absl::Seconds(20));
  EXPECT_THAT((*made)->Header(Deadline()), IsOkAndHolds(""));
  EXPECT_EQ(store->loads, before + 1);  // gone: another process may have stored a new one
}

TEST_F(AuthorizerTest, TheMetadataDocumentClientRefreshesUnderItsOwnId) {
  server_.cimd_supported = true;
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  std::unique_ptr<Authorizer> authorizer = Make({.client_metadata_url = kCimd});
  ASSERT_OK(Authorized(*authorizer));
  clock_.Advance(absl::Hours(1));

  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds("Bearer at-2"));

  ASSERT_THAT(server_.token_forms, SizeIs(2));
  EXPECT_EQ(Field(server_.token_forms[1], "grant_type"), "refresh_token");
  EXPECT_EQ(Field(server_.token_forms[1], "client_id"), kCimd);
}

TEST_F(AuthorizerTest, RefusesATokenAnswerWithoutTokenType) {
  server_.token_reply = Json(R"({"access_token":"at-x"})");
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(kToken), HasSubstr("\"token_type\" is required"))));
  EXPECT_EQ(Saved(), std::nullopt);
  EXPECT_THAT(authorizer->Header(Deadline()), IsOkAndHolds(""));
}

TEST_F(AuthorizerTest, ATokenEndpointErrorIsReportedByName) {
  server_.token_reply =
      Json(R"({"error":"invalid_grant","error_description":"code expired"})", 400);
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("HTTP 400"), HasSubstr("invalid_grant: code expired"))));
}

TEST_F(AuthorizerTest, RefusesARedirectWhoseStateDoesNotMatch) {
  for (std::string state : {"forged", "", "<absent>"}) {
    SCOPED_TRACE(state);
    browser_.answer = [state](const world::HttpFields&, const std::string& code,
                              const std::string&) {
      world::HttpFields fields = {{"code", code}};
      if (state != "<absent>") fields.emplace_back("state", state);
      return WithQuery(kRedirect, fields);
    };
    std::unique_ptr<Authorizer> authorizer = Make();

    EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
                StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("state")));
  }
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

TEST_F(AuthorizerTest, RefusesARedirectNamingAnotherIssuer) {
  browser_.answer = [](const world::HttpFields&, const std::string&, const std::string& honest) {
    return WithQuery(honest, {{"iss", "https://evil.example.com"}});
  };
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("issuer \"https://evil.example.com\"")));
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

// RFC 9207: a server that says it always names itself, in a redirect that names nobody, is a
// mix-up (the answer came from another authorization server the operator also uses).
TEST_F(AuthorizerTest, RefusesARedirectWithoutTheIssuerTheServerPromised) {
  server_.iss_supported = true;
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("names no issuer")));
  EXPECT_EQ(network_.CountTo(kToken), 0);
  browser_.answer = [](const world::HttpFields&, const std::string&, const std::string& honest) {
    return WithQuery(honest, {{"iss", kIssuer}});
  };
  EXPECT_THAT(Authorized(*Make()), IsOkAndHolds("Bearer at-1"));
}

TEST_F(AuthorizerTest, ARedirectNamingTheRightIssuerIsTaken) {
  browser_.answer = [](const world::HttpFields&, const std::string&, const std::string& honest) {
    return WithQuery(honest, {{"iss", kIssuer}});
  };

  EXPECT_THAT(Authorized(*Make()), IsOkAndHolds("Bearer at-1"));
}

TEST_F(AuthorizerTest, RefusesARedirectToAnotherPlace) {
  for (std::string elsewhere : {"http://127.0.0.1:8765/other", "http://127.0.0.1:9999/callback",
                                "http://localhost:8765/callback", "https://127.0.0.1:8765/callback",
                                "https://evil.example.com/callback", "not a url"}) {
    SCOPED_TRACE(elsewhere);
    browser_.answer = [elsewhere](const world::HttpFields& query, const std::string& code,
                                  const std::string&) {
      return WithQuery(elsewhere, {{"code", code}, {"state", Field(query, "state")}});
    };
    std::unique_ptr<Authorizer> authorizer = Make();

    EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
                StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("redirect URI")));
  }
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

TEST_F(AuthorizerTest, ALoginTheServerRefusedIsReported) {
  browser_.answer = [](const world::HttpFields& query, const std::string&, const std::string&) {
    return WithQuery(kRedirect, {{"error", "access_denied"},
                                 {"error_description", "the operator said no"},
                                 {"state", Field(query, "state")}});
  };
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("refused the login: access_denied: the operator said no")));
  EXPECT_EQ(network_.CountTo(kToken), 0);
}

TEST_F(AuthorizerTest, RefusesAServerThatDoesNotOfferPkceS256) {
  server_.pkce_methods = {"plain"};
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("PKCE S256")));
  EXPECT_THAT(browser_.visited, IsEmpty());
}

TEST_F(AuthorizerTest, ATokenEndpointOnPlainHttpToAnotherHostGetsNothing) {
  server_.token_endpoint = "http://auth.example.com/token";
  std::unique_ptr<Authorizer> authorizer = Make();

  EXPECT_THAT(authorizer->Refused(401, server_.Unauthorized(), Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("refusing plain http to auth.example.com")));
  EXPECT_EQ(network_.CountTo("http://auth.example.com"), 0);
  EXPECT_EQ(network_.CountTo(kRegister), 0);
  EXPECT_THAT(browser_.visited, IsEmpty());
}

TEST_F(AuthorizerTest, ASavedTokenEndpointOnPlainHttpToAnotherHostIsNeverSentARefreshToken) {
  Credentials saved;
  saved.server = kServer;
  saved.resource = kServer;
  saved.issuer = kIssuer;
  saved.token_endpoint = "http://tokens.example.com/token";
  saved.client_id = "dyn-client-1";
  saved.token_endpoint_auth_method = "none";
  saved.access_token = world::Secret("at-old");
  saved.refresh_token = world::Secret("rt-old");
  saved.expires_at = clock_.Now() - absl::Minutes(1);
  ASSERT_OK(store_->Save(saved));
  std::unique_ptr<Authorizer> authorizer = Make();

  absl::StatusOr<std::string> header = authorizer->Header(Deadline());

  EXPECT_THAT(header, Not(IsOkAndHolds(HasSubstr("at-old"))));
  EXPECT_EQ(network_.CountTo("http://tokens.example.com"), 0);
}

TEST_F(AuthorizerTest, ALegacyServerWithNoMetadataIsAuthorizedAtTheDefaultEndpoints) {
  constexpr char kLegacy[] = "http://localhost:3000/mcp";
  network_.Answer(
      "http://localhost:3000/register",
      Json(R"({"client_id":"legacy-client","token_endpoint_auth_method":"none"})", 201));
  network_.Answer("http://localhost:3000/token",
                  Json(R"({"access_token":"legacy-token","token_type":"Bearer"})"));
  browser_.authorization_endpoint = "http://localhost:3000/authorize";
  absl::StatusOr<std::unique_ptr<Authorizer>> authorizer = Authorizer::Create(
      kLegacy, {}, store_,
      {.network = &network_, .clock = &clock_, .entropy = &entropy_, .browser = &browser_});
  ASSERT_OK(authorizer);

  ASSERT_OK((*authorizer)->Refused(401, {}, Deadline()));

  EXPECT_THAT((*authorizer)->Header(Deadline()), IsOkAndHolds("Bearer legacy-token"));
  EXPECT_THAT(
      network_.Sent(),
      ElementsAre("GET http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                  "GET http://localhost:3000/.well-known/oauth-protected-resource",
                  "GET http://localhost:3000/.well-known/oauth-authorization-server",
                  "GET http://localhost:3000/.well-known/openid-configuration",
                  "POST http://localhost:3000/register", "POST http://localhost:3000/token"));
  world::HttpFields query = browser_.Query(0);
  EXPECT_EQ(Field(query, "client_id"), "legacy-client");
  EXPECT_EQ(Field(query, "resource"), kLegacy);
  EXPECT_EQ(Field(query, "code_challenge_method"), "S256");
}

// Through the HTTP transport, as a session uses it.

TEST_F(AuthorizerTest, TheTransportAuthorizesOnTheFirst401AndSendsTheRequestAgain) {
  server_.challenge_scope = "mcp:read";
  std::shared_ptr<Authorizer> authorizer = Make();
  std::unique_ptr<HttpTransport> transport = Transport(authorizer);

  EXPECT_THAT(ListTools(*transport), IsOkAndHolds(kToolsResult));

  // No token before discovery; the token only to the server it was issued for.
  EXPECT_THAT(network_.Sent(),
              ElementsAre(absl::StrCat("POST ", kServer), absl::StrCat("GET ", kPrm),
                          absl::StrCat("GET ", kAsMetadata), absl::StrCat("POST ", kRegister),
                          absl::StrCat("POST ", kToken), absl::StrCat("POST ", kServer)));
  EXPECT_THAT(server_.mcp_authorizations, ElementsAre("", "Bearer at-1"));
  ExpectBearerOnlyToTheServer();
  EXPECT_EQ(Field(browser_.Query(0), "scope"), "mcp:read");
  std::optional<Credentials> saved = Saved();
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->access_token.Reveal(), "at-1");
}

TEST_F(AuthorizerTest, TheTransportStepsUpOnInsufficientScope) {
  server_.challenge_scope = "mcp:read";
  server_.required_scope = "mcp:read mcp:write";
  std::unique_ptr<HttpTransport> transport = Transport(Make());

  EXPECT_THAT(ListTools(*transport), IsOkAndHolds(kToolsResult));

  EXPECT_THAT(server_.mcp_authorizations, ElementsAre("", "Bearer at-1", "Bearer at-2"));
  ASSERT_THAT(browser_.visited, SizeIs(2));
  EXPECT_EQ(Field(browser_.Query(1), "scope"), "mcp:read mcp:write");
}

TEST_F(AuthorizerTest, TheTransportStopsWhenAStepUpIsNotGranted) {
  server_.challenge_scope = "mcp:read";
  server_.required_scope = "mcp:admin";
  server_.withheld_scopes = {"mcp:admin"};
  std::unique_ptr<HttpTransport> transport = Transport(Make());

  EXPECT_THAT(transport->Send(kListTools, Deadline()),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("HTTP 403"), HasSubstr("asked for and not granted"))));
  EXPECT_THAT(browser_.visited, SizeIs(2));
}

TEST_F(AuthorizerTest, TheTransportRefreshesAnExpiredTokenAndLogsInAgainWhenThatFails) {
  server_.expires_in = 3600;
  server_.issue_refresh_tokens = true;
  std::unique_ptr<HttpTransport> transport = Transport(Make());
  ASSERT_OK(ListTools(*transport));
  clock_.Advance(absl::Hours(1));
  ASSERT_OK(ListTools(*transport));
  clock_.Advance(absl::Hours(1));
  server_.refuse_refresh = true;

  EXPECT_THAT(ListTools(*transport), IsOkAndHolds(kToolsResult));

  std::vector<std::string> grants;
  for (const world::HttpFields& form : server_.token_forms)
    grants.push_back(Field(form, "grant_type"));
  EXPECT_THAT(grants, ElementsAre("authorization_code", "refresh_token", "refresh_token",
                                  "authorization_code"));
  EXPECT_THAT(browser_.visited, SizeIs(2));
  EXPECT_THAT(server_.mcp_authorizations,
              ElementsAre("", "Bearer at-1", "Bearer at-2", "", "Bearer at-3"));
  ExpectBearerOnlyToTheServer();
}

TEST_F(AuthorizerTest, TheTransportWithoutABrowserNamesTheLoginCommand) {
  std::unique_ptr<HttpTransport> transport = Transport(Make({}, /*with_browser=*/false));

  EXPECT_THAT(transport->Send(kListTools, Deadline()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("HTTP 401"), HasSubstr("agentrt mcp login"))));
}

TEST_F(AuthorizerTest, TheTransportStopsAfterTheBoundWhenEveryTokenIsRefused) {
  server_.refuse_every_token = true;
  std::unique_ptr<HttpTransport> transport = Transport(Make());

  EXPECT_THAT(transport->Send(kListTools, Deadline()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("HTTP 401")));

  EXPECT_EQ(network_.CountTo(kServer), kMaxAuthorizationRounds + 1);
  EXPECT_THAT(browser_.visited, SizeIs(kMaxAuthorizationRounds));
  ExpectBearerOnlyToTheServer();
}

TEST_F(AuthorizerTest, ATransportWithoutAuthorizationNamesTheAuthBlock) {
  std::unique_ptr<HttpTransport> transport = Transport(nullptr);

  EXPECT_THAT(transport->Send(kListTools, Deadline()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("`auth` block")));
  EXPECT_THAT(network_.Sent(), ElementsAre(absl::StrCat("POST ", kServer)));
}

}  // namespace
}  // namespace agentrt::mcp::auth
