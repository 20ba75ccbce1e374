#include "mcp/auth/discovery.h"

#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/internal/fetch.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/url.h"

namespace agentrt::mcp::auth {
namespace {

std::string_view WithoutTrailingSlash(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return path;
}

absl::Status Refused(std::string_view what, std::string_view url, absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat(ToAbsl(what), " ", world::ShownUrl(url), ": ", why));
}

// The first document of `urls` that is there: nullopt when every place answered 4xx.
template <typename Parse>
auto FirstFound(world::Network& network, const std::vector<std::string>& urls,
                std::string_view what, Parse parse, absl::Time deadline, std::string* found_at)
    -> absl::StatusOr<std::optional<typename decltype(parse(std::string_view()))::value_type>> {
  for (const std::string& url : urls) {
    absl::StatusOr<internal::Answer> answer =
        internal::Fetch(network, internal::GetJson(url), deadline);
    if (!answer.ok()) {
      // The network's own error keeps its code (a timeout is not a refusal), named by place.
      return absl::Status(answer.status().code(),
                          Refused(what, url, answer.status().message()).message());
    }
    if (answer->status >= 400 && answer->status < 500) continue;
    if (answer->status != 200) {
      return Refused(what, url, absl::StrCat("answered HTTP ", answer->status));
    }
    auto parsed = parse(answer->body);
    if (!parsed.ok()) return Refused(what, url, parsed.status().message());
    *found_at = url;
    return std::make_optional(*std::move(parsed));
  }
  return std::nullopt;
}

bool SameIssuer(std::string_view a, std::string_view b) {
  while (!a.empty() && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.back() == '/') b.remove_suffix(1);
  return a == b;
}

ServerMetadata DefaultEndpoints(const std::string& origin) {
  ServerMetadata out;
  out.issuer = origin;
  out.authorization_endpoint = absl::StrCat(origin, "/authorize");
  out.token_endpoint = absl::StrCat(origin, "/token");
  out.registration_endpoint = absl::StrCat(origin, "/register");
  out.code_challenge_methods_supported = {"S256"};
  return out;
}

}  // namespace

bool ResourceMatches(std::string_view server_url, std::string_view resource) {
  absl::StatusOr<world::Url> server = world::ParseUrl(server_url);
  absl::StatusOr<world::Url> named = world::ParseUrl(resource);
  if (!server.ok() || !named.ok() || named->user_info || named->has_fragment) return false;
  if (server->Origin() != named->Origin()) return false;
  std::string_view want = WithoutTrailingSlash(named->path);
  std::string_view have = WithoutTrailingSlash(server->path);
  if (want.empty()) return true;
  return have == want || (have.starts_with(want) && have[want.size()] == '/');
}

std::vector<std::string> ResourceMetadataUrls(std::string_view server_url) {
  absl::StatusOr<world::Url> url = world::ParseUrl(server_url);
  if (!url.ok()) return {};
  std::string origin = url->Origin();
  std::string_view path = WithoutTrailingSlash(url->path);
  std::vector<std::string> out;
  if (!path.empty()) {
    out.push_back(absl::StrCat(origin, "/.well-known/oauth-protected-resource", ToAbsl(path)));
  }
  out.push_back(absl::StrCat(origin, "/.well-known/oauth-protected-resource"));
  return out;
}

std::vector<std::string> ServerMetadataUrls(std::string_view issuer) {
  absl::StatusOr<world::Url> url = world::ParseUrl(issuer);
  if (!url.ok()) return {};
  std::string origin = url->Origin();
  std::string_view path = WithoutTrailingSlash(url->path);
  if (path.empty()) {
    return {absl::StrCat(origin, "/.well-known/oauth-authorization-server"),
            absl::StrCat(origin, "/.well-known/openid-configuration")};
  }
  return {absl::StrCat(origin, "/.well-known/oauth-authorization-server", ToAbsl(path)),
          absl::StrCat(origin, "/.well-known/openid-configuration", ToAbsl(path)),
          absl::StrCat(origin, ToAbsl(path), "/.well-known/openid-configuration")};
}

absl::StatusOr<Discovery> Discover(world::Network& network, std::string_view server_url,
                                   std::string_view resource_metadata, absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(world::Url server, world::ParseUrl(server_url));
  Discovery out;
  std::vector<std::string> places;
  if (!resource_metadata.empty()) {
    // The server's own word on where its metadata is: any http(s) URL (nothing secret is sent
    // there), judged like every other place.
    if (absl::Status usable = world::ParseUrl(resource_metadata).status(); !usable.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the 401's resource_metadata: ", usable.message()));
    }
    places.push_back(std::string(resource_metadata));
  }
  for (std::string& url : ResourceMetadataUrls(server_url)) places.push_back(std::move(url));
  std::string found_at;
  AGENTRT_ASSIGN_OR_RETURN(std::optional<ResourceMetadata> resource,
                           FirstFound(network, places, "protected resource metadata",
                                      ParseResourceMetadata, deadline, &found_at));
  std::string expected_issuer;
  if (resource.has_value()) {
    if (!ResourceMatches(server_url, resource->resource)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "protected resource metadata names resource ", json::Quoted(resource->resource),
          ", not this server (", json::Quoted(world::ShownUrl(server_url)), ")"));
    }
    if (resource->authorization_servers.empty()) {
      return Refused("protected resource metadata", found_at, "names no authorization server");
    }
    out.resource = resource->resource;
    out.resource_scopes = resource->scopes_supported;
    expected_issuer = resource->authorization_servers.front();
    if (absl::Status usable = CheckEndpoint(expected_issuer); !usable.ok()) {
      return Refused("protected resource metadata", found_at,
                     absl::StrCat("authorization server: ", usable.message()));
    }
  } else {
    out.legacy = true;
    out.resource = std::string(server_url);
    expected_issuer = server.Origin();
  }
  out.authorization_server = expected_issuer;
  AGENTRT_ASSIGN_OR_RETURN(
      std::optional<ServerMetadata> metadata,
      FirstFound(network, ServerMetadataUrls(expected_issuer), "authorization server metadata",
                 ParseServerMetadata, deadline, &found_at));
  if (!metadata.has_value()) {
    if (!out.legacy) {
      return absl::FailedPreconditionError(
          absl::StrCat("no authorization server metadata found for ", json::Quoted(expected_issuer),
                       " (tried ", ServerMetadataUrls(expected_issuer).size(), " places)"));
    }
    out.defaulted = true;
    out.server = DefaultEndpoints(server.Origin());
    return out;
  }
  if (out.legacy) {
    absl::StatusOr<world::Url> issuer = world::ParseUrl(metadata->issuer);
    if (!issuer.ok() || issuer->Origin() != server.Origin()) {
      return Refused(
          "authorization server metadata", found_at,
          absl::StrCat("issuer ", json::Quoted(metadata->issuer),
                       " is not of the MCP server's origin ", json::Quoted(server.Origin())));
    }
  } else if (!SameIssuer(metadata->issuer, expected_issuer)) {
    return Refused("authorization server metadata", found_at,
                   absl::StrCat("issuer ", json::Quoted(metadata->issuer), " is not ",
                                json::Quoted(expected_issuer)));
  }
  out.server = *std::move(metadata);
  return out;
}

}  // namespace agentrt::mcp::auth
