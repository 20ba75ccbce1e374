// providers/endpoint.h
//
// Where an adapter sends its requests, checked before anything is sent. An API key travels over
// plain http only to this machine: a base URL with a key must be https, or http to a loopback
// host, which is exactly "localhost" or a literal loopback address (127.0.0.0/8, ::1, or an
// IPv4 loopback address mapped into IPv6), never a name that merely looks local
// ("LOCALHOST", "localhost.", "foo.localhost", "127.1", "0177.0.0.1", "127.0.0.1.nip.io").
// "localhost" is safe to trust by name because the real network (libcurl) resolves it to the
// loopback addresses itself, without asking a resolver.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::providers {

// An absolute http(s) URL, split. `host` is as written, an IPv6 literal without its brackets.
struct BaseUrl {
  std::string scheme;  // "http" or "https", lowercased
  std::string host;
  std::string port;  // "" when absent
  std::string path;  // "" or "/..."; never a query or fragment
  std::string text;  // the URL as given, without a trailing '/'
};

// ParseBaseUrl splits `url`. InvalidArgument unless it is http:// or https:// (any case) with a
// host; user information, a query or a fragment is refused too (an endpoint has none). No error
// shows what stands before the URL's last '@' (it may be a password).
absl::StatusOr<BaseUrl> ParseBaseUrl(std::string_view url);

// UrlHost is the host an absolute http(s) URL names, past any user information and without its
// port, path, query or fragment (an IPv6 literal without brackets); nullopt when it names none.
// For naming where a URL points without showing what else it carries.
std::optional<std::string> UrlHost(std::string_view url);

// IsLoopbackHost: "localhost", or a literal loopback address (see the header comment).
bool IsLoopbackHost(std::string_view host);

// CheckEndpoint parses `base` for `provider` and, when `has_key`, refuses plain http to a host
// that is not loopback. Errors (InvalidArgument):
//   "<provider>: base URL \"<base>\" is not an http or https URL"
//   "<provider>: base URL for <host> carries user information"
//   "<provider>: refusing to send an API key over plain http to <host>"
absl::StatusOr<BaseUrl> CheckEndpoint(std::string_view provider, std::string_view base,
                                      bool has_key);

}  // namespace agentrt::providers
