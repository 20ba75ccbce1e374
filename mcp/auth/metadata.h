// mcp/auth/metadata.h
//
// The two documents discovery reads (discovery.h), parsed strictly and judged before use:
//  - the protected resource metadata of the MCP server (RFC 9728): the resource it names and
//    the authorization servers it trusts;
//  - an authorization server's metadata (RFC 8414, or OpenID Connect Discovery 1.0): its issuer,
//    endpoints and what it supports.
// Both are the servers' words: strict JSON intake (no repeated key, valid UTF-8), at most
// kMaxMetadataBytes (a bigger document is refused before it is read whole), a known member of
// the wrong kind refused by name; members this client does not use are ignored, as both RFCs
// ask. An endpoint must be an https URL, or http to a loopback host (url.h), with no user
// information and no fragment: a token or a secret is never sent in the clear off this machine.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace agentrt::mcp::auth {

// The largest metadata (or registration, or token) document read.
inline constexpr std::size_t kMaxMetadataBytes = 256 * 1024;

struct ResourceMetadata {
  std::string resource;                            // required
  std::vector<std::string> authorization_servers;  // issuer URLs; at least one for our use
  std::vector<std::string> scopes_supported;
};

struct ServerMetadata {
  std::string issuer;                  // required
  std::string authorization_endpoint;  // required for the authorization code grant
  std::string token_endpoint;          // required
  std::string registration_endpoint;   // "" when dynamic registration is not offered
  std::vector<std::string> scopes_supported;
  std::vector<std::string> response_types_supported;
  std::vector<std::string> grant_types_supported;
  std::vector<std::string> code_challenge_methods_supported;
  std::vector<std::string> token_endpoint_auth_methods_supported;
  bool client_id_metadata_document_supported = false;
  // RFC 9207: the server names itself (`iss`) in every authorization response.
  bool authorization_response_iss_parameter_supported = false;
};

// ParseResourceMetadata reads RFC 9728 metadata. Errors: InvalidArgument `not usable JSON:
// <intake error>`, `not a JSON object`, `"resource" is required`, `"authorization_servers" is
// not a list of strings`, ...
absl::StatusOr<ResourceMetadata> ParseResourceMetadata(std::string_view body);

// ParseServerMetadata reads RFC 8414 metadata and checks every endpoint it gives (CheckEndpoint).
// Errors as above, and `"token_endpoint": <CheckEndpoint error>`.
absl::StatusOr<ServerMetadata> ParseServerMetadata(std::string_view body);

// CheckEndpoint refuses a URL a secret must not be sent to. Errors: InvalidArgument `"<url>" is
// not an http or https URL`, `... carries user information`, `... has a fragment`, `refusing
// plain http to <host>, which is not this machine`.
absl::Status CheckEndpoint(std::string_view url);

}  // namespace agentrt::mcp::auth
