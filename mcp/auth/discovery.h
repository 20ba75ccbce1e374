// mcp/auth/discovery.h
//
// Finding out how to authorize to an MCP server, in the order MCP's authorization specification
// (2025-11-25, 2025-06-18; the 2025-03-26 form for older servers) gives:
//
//  1. The protected resource metadata (RFC 9728): the URL the 401's `resource_metadata` names,
//     else `<origin>/.well-known/oauth-protected-resource<path>` (when the server's URL has a
//     path) and then `<origin>/.well-known/oauth-protected-resource`. A 4xx moves on to the next
//     place; a document that is there but wrong is refused by name. Its `resource` must be this
//     server's: the same origin, and a path that is the server URL's path or a parent of it on a
//     '/' boundary (RFC 9728 §3.3, as the SDKs apply it) — otherwise a hostile server could have
//     the client fetch a token for somebody else's resource. The authorization server is the
//     first of its `authorization_servers`.
//  2. The authorization server's metadata: for an issuer with a path `/p`,
//     `<origin>/.well-known/oauth-authorization-server/p`,
//     `<origin>/.well-known/openid-configuration/p`,
//     `<origin>/p/.well-known/openid-configuration`; without a path,
//     `<origin>/.well-known/oauth-authorization-server`,
//     `<origin>/.well-known/openid-configuration`. Its `issuer` must be the authorization server
//     named in step 1 (RFC 8414 §3.3; a trailing
//     '/' aside), so metadata cannot point a client at another server's endpoints.
//  3. When no protected resource metadata is found, the 2025-03-26 way: the authorization server
//     is the MCP server's origin, its metadata at the root forms above. There the issuer must be
//     of the MCP server's own origin (what that revision trusts); when no metadata is found
//     either, the default endpoints `<origin>/authorize`, `/token`, `/register`.
// Every endpoint is checked (metadata.h's CheckEndpoint) before anything is sent to it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/auth/metadata.h"
#include "runtime/world/network.h"

namespace agentrt::mcp::auth {

struct Discovery {
  // The resource indicator (RFC 8707) sent on every authorization and token request: the
  // protected resource metadata's `resource` as written, or the server's URL without one.
  std::string resource;
  std::vector<std::string> resource_scopes;  // the metadata's scopes_supported
  std::string authorization_server;          // the issuer URL the metadata was looked up for
  ServerMetadata server;                     // as found, or the 2025-03-26 defaults
  bool legacy = false;                       // no protected resource metadata: the 2025-03-26 way
  bool defaulted = false;  // no authorization server metadata either: default endpoints
};

// Discover performs steps 1-3 for the MCP server at `server_url`; `resource_metadata` is the
// 401's parameter ("" when it named none). Errors (FailedPrecondition unless the network's
// own, each naming the URL and why):
//   `protected resource metadata <url>: <why>` (not usable JSON, answered HTTP 500, ...)
//   `protected resource metadata names resource "<r>", not this server ("<url>")`
//   `protected resource metadata <url> names no authorization server`
//   `authorization server metadata <url>: issuer "<i>" is not "<expected>"`
//   `authorization server metadata <url>: <field>: refusing plain http to <host>, ...`
//   `no authorization server metadata found for "<issuer>" (tried <n> places)`
absl::StatusOr<Discovery> Discover(world::Network& network, std::string_view server_url,
                                   std::string_view resource_metadata, absl::Time deadline);

// ResourceMatches: `resource` names the server at `server_url` (step 1's rule).
bool ResourceMatches(std::string_view server_url, std::string_view resource);

// The places of steps 1 and 2, in order.
std::vector<std::string> ResourceMetadataUrls(std::string_view server_url);
std::vector<std::string> ServerMetadataUrls(std::string_view issuer);

}  // namespace agentrt::mcp::auth
