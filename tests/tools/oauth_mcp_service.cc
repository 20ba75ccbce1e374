#include "tests/tools/oauth_mcp_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "mcp/auth/form.h"
#include "mcp/auth/pkce.h"
#include "mcp/jsonrpc.h"

namespace agentrt::testing {
namespace {

world::ServerResponse Json(int status, std::string body) {
  return {status, {{"Content-Type", "application/json"}}, std::move(body)};
}

std::string Find(const world::HttpFields& fields, std::string_view name) {
  return world::FindHeader(fields, name).value_or("");
}

}  // namespace

std::vector<std::string> OAuthMcpService::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}
std::vector<std::string> OAuthMcpService::grants() const {
  absl::MutexLock lock(&mu_);
  return grants_;
}
std::vector<std::string> OAuthMcpService::bearers() const {
  absl::MutexLock lock(&mu_);
  return bearers_;
}

world::ServerResponse OAuthMcpService::Serve(const world::ServerRequest& request) {
  absl::MutexLock lock(&mu_);
  requests_.push_back(absl::StrCat(request.method, " ", request.path));
  const std::string& base = base_;
  if (request.path == "/.well-known/oauth-protected-resource/mcp") {
    return Json(200, absl::StrCat(R"({"resource":")", base, R"(/mcp","authorization_servers":[")",
                                  base, R"("],"scopes_supported":["files:read"]})"));
  }
  if (request.path == "/.well-known/oauth-authorization-server") {
    return Json(200,
                absl::StrCat(R"({"issuer":")", base, R"(","authorization_endpoint":")", base,
                             R"(/authorize","token_endpoint":")", base,
                             R"(/token","registration_endpoint":")", base,
                             R"(/register","code_challenge_methods_supported":["S256"],)",
                             R"("token_endpoint_auth_methods_supported":["client_secret_basic"],)",
                             R"("scopes_supported":["files:read","offline_access"]})"));
  }
  if (request.path == "/register" && request.method == "POST") {
    return Json(201, R"({"client_id":"dyn-client","client_secret":"dyn-secret"})");
  }
  if (request.path == "/authorize") {
    challenge_ = request.Param("code_challenge").value_or("");
    world::HttpFields back = {
        {"code", "the-code"},
        {"state", options_.wrong_state ? "forged" : request.Param("state").value_or("")},
        {"iss", base}};
    return {302,
            {{"Location", mcp::auth::WithQuery(request.Param("redirect_uri").value_or(""), back)}},
            ""};
  }
  if (request.path == "/token" && request.method == "POST") return Token(request);
  if (request.path == "/mcp" && request.method == "POST") return Mcp(request);
  return Json(404, R"({"error":"not_found"})");
}

world::ServerResponse OAuthMcpService::Token(const world::ServerRequest& request) {
  absl::StatusOr<world::HttpFields> form = mcp::auth::FormDecode(request.body);
  if (!form.ok()) return Json(400, R"({"error":"invalid_request"})");
  std::string grant = Find(*form, "grant_type");
  grants_.push_back(grant);
  if (Find(request.headers, "Authorization") != "Basic ZHluLWNsaWVudDpkeW4tc2VjcmV0") {
    return Json(401, R"({"error":"invalid_client"})");
  }
  if (grant == "authorization_code" &&
      (Find(*form, "code") != "the-code" ||
       mcp::auth::S256Challenge(Find(*form, "code_verifier")) != challenge_)) {
    return Json(400, R"({"error":"invalid_grant"})");
  }
  if (grant == "refresh_token" && Find(*form, "refresh_token") != "refresh-1") {
    return Json(400, R"({"error":"invalid_grant"})");
  }
  std::string token = absl::StrCat("token-", ++tokens_);
  issued_.push_back(token);
  return Json(200,
              absl::StrCat(R"({"access_token":")", token,
                           R"(","token_type":"Bearer","refresh_token":"refresh-1","expires_in":)",
                           options_.expires_in, R"(,"scope":"files:read offline_access"})"));
}

world::ServerResponse OAuthMcpService::Mcp(const world::ServerRequest& request) {
  std::string bearer = Find(request.headers, "Authorization");
  bearers_.push_back(bearer);
  bool known = bearer.starts_with("Bearer ") &&
               std::find(issued_.begin(), issued_.end(), bearer.substr(7)) != issued_.end();
  if (!known) {
    return {
        401,
        {{"WWW-Authenticate", absl::StrCat(R"(Bearer error="invalid_token", resource_metadata=")",
                                           base_, R"(/.well-known/oauth-protected-resource/mcp")")},
         {"Content-Type", "application/json"}},
        R"({"error":"invalid_token"})"};
  }
  absl::StatusOr<mcp::Message> message = mcp::ParseMessage(request.body);
  if (!message.ok()) return Json(400, R"({"error":"parse"})");
  if (message->kind != mcp::Message::Kind::kRequest) return {202, {}, ""};
  std::string result =
      message->method == "initialize"
          ? R"({"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"files","version":"1"}})"
          : R"({"tools":[{"description":"Read a file.","inputSchema":{"properties":{"path":{"type":"string"}},"type":"object"},"name":"read"}]})";
  return Json(200,
              absl::StrCat(R"({"id":)", message->id, R"(,"jsonrpc":"2.0","result":)", result, "}"));
}

}  // namespace agentrt::testing
