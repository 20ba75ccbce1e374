#include "mcp/auth/metadata.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/auth/internal/fetch.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/url.h"

namespace agentrt::mcp::auth {
namespace {

using mcp::internal::BoolMember;
using mcp::internal::StringMember;
using mcp::internal::StringsMember;

absl::StatusOr<std::string> Required(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> value, StringMember(object, key));
  if (!value.has_value() || value->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", ToAbsl(key), "\" is required"));
  }
  return *std::move(value);
}

absl::StatusOr<std::string> Optional(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> value, StringMember(object, key));
  return value.value_or("");
}

absl::StatusOr<std::vector<std::string>> List(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> value,
                           StringsMember(object, key));
  return value.value_or(std::vector<std::string>());
}

absl::Status Endpoint(std::string_view key, std::string_view url) {
  if (url.empty()) return absl::OkStatus();
  absl::Status checked = CheckEndpoint(url);
  if (checked.ok()) return checked;
  return absl::InvalidArgumentError(absl::StrCat("\"", ToAbsl(key), "\": ", checked.message()));
}

}  // namespace

absl::Status CheckEndpoint(std::string_view url) {
  AGENTRT_ASSIGN_OR_RETURN(world::Url parts, world::ParseUrl(url));
  std::string shown = world::ShownUrl(url);
  if (parts.user_info) {
    return absl::InvalidArgumentError(absl::StrCat("\"", shown, "\" carries user information"));
  }
  if (parts.has_fragment) {
    return absl::InvalidArgumentError(absl::StrCat("\"", shown, "\" has a fragment"));
  }
  if (parts.scheme == "http" && !world::IsLoopbackHost(parts.host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "refusing plain http to ", json::Sanitize(parts.host), ", which is not this machine"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ResourceMetadata> ParseResourceMetadata(std::string_view body) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, internal::ParseAnswer(body, "document"));
  json::Value root = doc.root();
  ResourceMetadata out;
  AGENTRT_ASSIGN_OR_RETURN(out.resource, Required(root, "resource"));
  AGENTRT_ASSIGN_OR_RETURN(out.authorization_servers, List(root, "authorization_servers"));
  AGENTRT_ASSIGN_OR_RETURN(out.scopes_supported, List(root, "scopes_supported"));
  return out;
}

absl::StatusOr<ServerMetadata> ParseServerMetadata(std::string_view body) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, internal::ParseAnswer(body, "document"));
  json::Value root = doc.root();
  ServerMetadata out;
  AGENTRT_ASSIGN_OR_RETURN(out.issuer, Required(root, "issuer"));
  AGENTRT_ASSIGN_OR_RETURN(out.authorization_endpoint, Optional(root, "authorization_endpoint"));
  AGENTRT_ASSIGN_OR_RETURN(out.token_endpoint, Required(root, "token_endpoint"));
  AGENTRT_ASSIGN_OR_RETURN(out.registration_endpoint, Optional(root, "registration_endpoint"));
  AGENTRT_ASSIGN_OR_RETURN(out.scopes_supported, List(root, "scopes_supported"));
  AGENTRT_ASSIGN_OR_RETURN(out.response_types_supported, List(root, "response_types_supported"));
  AGENTRT_ASSIGN_OR_RETURN(out.grant_types_supported, List(root, "grant_types_supported"));
  AGENTRT_ASSIGN_OR_RETURN(out.code_challenge_methods_supported,
                           List(root, "code_challenge_methods_supported"));
  AGENTRT_ASSIGN_OR_RETURN(out.token_endpoint_auth_methods_supported,
                           List(root, "token_endpoint_auth_methods_supported"));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<bool> cimd,
                           BoolMember(root, "client_id_metadata_document_supported"));
  out.client_id_metadata_document_supported = cimd.value_or(false);
  AGENTRT_ASSIGN_OR_RETURN(std::optional<bool> iss,
                           BoolMember(root, "authorization_response_iss_parameter_supported"));
  out.authorization_response_iss_parameter_supported = iss.value_or(false);
  AGENTRT_RETURN_IF_ERROR(Endpoint("authorization_endpoint", out.authorization_endpoint));
  AGENTRT_RETURN_IF_ERROR(Endpoint("token_endpoint", out.token_endpoint));
  AGENTRT_RETURN_IF_ERROR(Endpoint("registration_endpoint", out.registration_endpoint));
  return out;
}

}  // namespace agentrt::mcp::auth
