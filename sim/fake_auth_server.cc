#include "sim/fake_auth_server.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "sim/scenario_file.h"

namespace agentrt::sim {
namespace {

FakeAuthServer::Answer Json(int status, std::string body) {
  return {status, {{"Content-Type", "application/json"}}, std::move(body), absl::ZeroDuration()};
}

}  // namespace

FakeAuthServer::FakeAuthServer(std::string name, const v1::HttpAuth& config)
    : name_(std::move(name)), config_(config), origin_(absl::StrCat("https://", name_, ".sim")) {}

std::optional<FakeAuthServer::Answer> FakeAuthServer::Serve(const world::HttpRequest& request,
                                                            std::string_view path, absl::Time now) {
  if (path == "/.well-known/oauth-protected-resource/mcp") {
    std::string resource =
        config_.wrong_resource() ? "https://elsewhere.sim/mcp" : absl::StrCat(origin_, "/mcp");
    return Json(200, json::JsonObject()
                         .String("resource", resource)
                         .Raw("authorization_servers", json::JsonArray({json::JsonString(origin_)}))
                         .Build());
  }
  if (path == "/.well-known/oauth-authorization-server") {
    std::string token_endpoint = config_.plain_http_token_endpoint()
                                     ? absl::StrCat("http://", name_, ".sim/token")
                                     : absl::StrCat(origin_, "/token");
    return Json(200,
                json::JsonObject()
                    .String("issuer", config_.foreign_issuer() ? "https://elsewhere.sim" : origin_)
                    .String("token_endpoint", token_endpoint)
                    .Raw("grant_types_supported", R"(["client_credentials"])")
                    .Raw("token_endpoint_auth_methods_supported", R"(["client_secret_basic"])")
                    .Build());
  }
  if (path != "/token") return std::nullopt;
  std::string expected = absl::StrCat(
      "Basic ",
      absl::Base64Escape(absl::StrCat(ToAbsl(kSimClientId), ":", ToAbsl(kSimClientSecret))));
  std::optional<std::string> basic = world::FindHeader(request.headers, "Authorization");
  if (request.method != "POST" || basic != expected) {
    return Json(401, R"({"error":"invalid_client"})");
  }
  if (request.body.find("grant_type=client_credentials") == std::string::npos) {
    return Json(400, R"({"error":"unsupported_grant_type"})");
  }
  absl::Duration lifetime = config_.token_lifetime().empty()
                                ? absl::Hours(1)
                                : ScenarioDuration(config_.token_lifetime());
  std::string token = absl::StrCat("sim-token-", name_, "-", tokens_.size() + 1);
  tokens_[token] = {now + lifetime, 0};
  Answer answer = Json(200, json::JsonObject()
                                .String("access_token", token)
                                .String("token_type", "Bearer")
                                .Int("expires_in", absl::ToInt64Seconds(lifetime))
                                .Build());
  if (!config_.token_delay().empty()) answer.delay = ScenarioDuration(config_.token_delay());
  return answer;
}

std::optional<FakeAuthServer::Answer> FakeAuthServer::Admit(const world::HttpRequest& request,
                                                            absl::Time now) {
  std::optional<std::string> header = world::FindHeader(request.headers, "Authorization");
  if (header.has_value() && header->starts_with("Bearer ")) {
    auto it = tokens_.find(header->substr(7));
    if (it != tokens_.end() && now < it->second.expires &&
        (config_.revoke_after() == 0 || it->second.uses < config_.revoke_after())) {
      ++it->second.uses;
      return std::nullopt;
    }
  }
  Answer refused = Json(401, R"({"error":"invalid_token"})");
  refused.headers.emplace_back(
      "WWW-Authenticate", absl::StrCat(R"(Bearer error="invalid_token", resource_metadata=")",
                                       origin_, R"(/.well-known/oauth-protected-resource/mcp")"));
  return refused;
}

}  // namespace agentrt::sim
