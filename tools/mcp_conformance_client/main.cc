// agentrt-conformance-client: the MCP client library (mcp/) driven by the official conformance
// suite (docs/conformance.md). The suite runs it as `agentrt-conformance-client <url>` with the
// scenario in MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT: JSON with the
// client's pre-registered id, secret or private key); it speaks streamable HTTP to <url> through
// the real network, does what the scenario asks, and exits 0 only when every step succeeded.
//
//   initialize  the handshake, then close
//   tools_call  the handshake, tools/list, tools/call add_numbers {"a": 2, "b": 3}
//   sse-retry   the handshake, tools/list, tools/call test_reconnection (its answer stream is
//               cut; the session resumes it after the server's retry)
//   auth/...    the handshake, tools/list, tools/call test-tool, authorized by the real
//               Authorizer (mcp/auth/) with its tokens in memory: the authorization code grant
//               through a "browser" that follows the authorization endpoint's one redirect
//               itself (nothing listens at the redirect URI), a client ID metadata document at
//               the suite's fixed URL, or, for the client-credentials scenarios, that grant with
//               the context's secret or ES256 key, and for cross-app access the identity
//               assertion grant with the context's identity provider and ID token.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "mcp/auth/authorizer.h"
#include "mcp/auth/browser.h"
#include "mcp/auth/credentials.h"
#include "mcp/internal/fields.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "runtime/json/intake.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"

namespace {

namespace auth = agentrt::mcp::auth;
namespace world = agentrt::world;

// The suite's fixed client ID metadata document URL (its scenarios check for exactly this).
constexpr char kClientMetadataUrl[] = "https://conformance-test.local/client-metadata.json";

int Fail(const std::string& what, const absl::Status& status) {
  std::cerr << "agentrt-conformance-client: " << what << ": " << status << "\n";
  return 1;
}

// The operator's browser, played: it asks for the authorization URL, follows nothing, and
// returns where the authorization server's redirect pointed.
class RedirectReadingBrowser final : public auth::Browser {
 public:
  explicit RedirectReadingBrowser(world::Network& network) : network_(network) {}
  std::string redirect_uri() const override { return "http://localhost:3000/callback"; }
  absl::StatusOr<std::string> Visit(std::string_view url, absl::Time deadline) override {
    world::HttpRequest request;
    request.url = std::string(url);
    absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
        network_.Send(request, deadline);
    if (!response.ok()) return response.status();
    std::optional<std::string> location = world::FindHeader((*response)->headers(), "Location");
    int status = (*response)->status();
    (*response)->Close();
    if (status < 300 || status >= 400 || !location.has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the authorization endpoint answered HTTP ", status, ", not a redirect"));
    }
    return *location;
  }

 private:
  world::Network& network_;
};

// The settings the scenario's context gives (an empty context: a client with nothing
// pre-registered).
absl::StatusOr<auth::AuthSettings> SettingsFor(const std::string& scenario) {
  auth::AuthSettings settings;
  settings.client_metadata_url = kClientMetadataUrl;
  const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT");
  if (context == nullptr) return settings;
  absl::StatusOr<agentrt::json::Document> doc = agentrt::json::Parse(context);
  if (!doc.ok() || !doc->root().is_object()) {
    return absl::InvalidArgumentError("MCP_CONFORMANCE_CONTEXT is not a JSON object");
  }
  auto read = [&](std::string_view key) -> std::string {
    absl::StatusOr<std::optional<std::string>> value =
        agentrt::mcp::internal::StringMember(doc->root(), key);
    return value.ok() ? value->value_or("") : "";
  };
  settings.client_id = read("client_id");
  settings.client_secret = world::Secret(read("client_secret"));
  settings.private_key = world::Secret(read("private_key_pem"));
  if (std::string alg = read("signing_algorithm"); !alg.empty()) settings.signing_alg = alg;
  if (absl::StartsWith(scenario, "auth/client-credentials")) {
    settings.grant = auth::Grant::kClientCredentials;
  }
  if (scenario == "auth/cross-app-access-complete-flow") {
    settings.grant = auth::Grant::kIdentityAssertion;
    settings.idp_token_endpoint = read("idp_token_endpoint");
    settings.idp_client_id = read("idp_client_id");
    settings.idp_id_token = world::Secret(read("idp_id_token"));
  }
  return settings;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: agentrt-conformance-client URL (MCP_CONFORMANCE_SCENARIO names the "
                 "scenario)\n";
    return 2;
  }
  const char* scenario_env = std::getenv("MCP_CONFORMANCE_SCENARIO");
  std::string scenario = scenario_env == nullptr ? "" : scenario_env;
  bool authorized = absl::StartsWith(scenario, "auth/");
  if (scenario != "initialize" && scenario != "tools_call" && scenario != "sse-retry" &&
      !authorized) {
    std::cerr << "agentrt-conformance-client: unknown scenario \"" << scenario << "\"\n";
    return 2;
  }
  world::RealClock clock;
  world::OsEntropy entropy;
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network = world::CurlNetwork::Create(clock);
  if (!network.ok()) return Fail("network", network.status());
  agentrt::mcp::Server server;
  server.name = "conformance";
  server.endpoint = argv[argc - 1];
  RedirectReadingBrowser browser(**network);
  if (authorized) {
    absl::StatusOr<auth::AuthSettings> settings = SettingsFor(scenario);
    if (!settings.ok()) return Fail("context", settings.status());
    absl::StatusOr<std::unique_ptr<auth::Authorizer>> authorizer = auth::Authorizer::Create(
        server.endpoint, *std::move(settings), std::make_shared<auth::MemoryTokenStore>(),
        {.network = network->get(), .clock = &clock, .entropy = &entropy, .browser = &browser});
    if (!authorizer.ok()) return Fail("authorization", authorizer.status());
    server.authorization = *std::move(authorizer);
  }
  absl::Time deadline = clock.Now() + absl::Seconds(20);
  absl::StatusOr<std::unique_ptr<agentrt::mcp::Session>> session =
      agentrt::mcp::Connect(server, {.clock = &clock, .network = network->get()}, deadline);
  if (!session.ok()) return Fail("connect", session.status());
  if (scenario != "initialize") {
    absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", deadline);
    if (!tools.ok()) return Fail("tools/list", tools.status());
    std::string call = scenario == "tools_call"
                           ? R"({"arguments":{"a":2,"b":3},"name":"add_numbers"})"
                       : scenario == "sse-retry" ? R"({"arguments":{},"name":"test_reconnection"})"
                                                 : R"({"arguments":{},"name":"test-tool"})";
    absl::StatusOr<std::string> result = (*session)->Request("tools/call", call, deadline);
    if (!result.ok()) return Fail("tools/call", result.status());
    std::cout << *result << "\n";
    if (absl::StrContains(*result, "\"isError\":true")) {
      std::cerr << "agentrt-conformance-client: the tool call failed\n";
      return 1;
    }
  }
  (*session)->Close();
  return 0;
}
