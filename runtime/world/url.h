// runtime/world/url.h
//
// Absolute http(s) URLs, split without asking anyone: what an endpoint, a redirect target or an
// authorization server's metadata names, judged before a byte is sent there.
//
// Loopback: a URL is loopback when its host is exactly "localhost" or a literal loopback
// address (127.0.0.0/8, ::1, or an IPv4 loopback address mapped into IPv6), never a name that
// merely looks local ("LOCALHOST", "localhost.", "foo.localhost", "127.1", "0177.0.0.1",
// "127.0.0.1.nip.io"). "localhost" is safe to trust by name because the real network (libcurl)
// resolves it to the loopback addresses itself, without asking a resolver. A credential travels
// over plain http only to a loopback host.
//
// No error and no ShownUrl shows what stands before a URL's last '@' in its authority: it may be
// a password.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/world/http_fields.h"

namespace agentrt::world {

// An absolute http(s) URL, cut at its parts.
struct Url {
  std::string scheme;      // "http" or "https", lowercased
  bool user_info = false;  // something@ stood before the host (never kept)
  std::string host;        // as written, an IPv6 literal without its brackets
  std::string port;        // "" when absent; digits only
  std::string path;        // "" or "/..."
  std::string query;       // without the '?'; "" when absent
  bool has_query = false;
  std::string fragment;  // without the '#'
  bool has_fragment = false;

  // "scheme://host[:port]", the host lowercased, an IPv6 literal in brackets, the port dropped
  // when it is the scheme's default: two URLs of one origin give equal strings.
  std::string Origin() const;
  // The origin followed by the path, query and fragment as they were.
  std::string Text() const;
};

// ParseUrl splits `url`. InvalidArgument (`"<url>" is not an http or https URL`, `... has no
// host`, `... has a port that is not a number`) unless it is http:// or https:// (any case) with
// a host; the message shows the URL without its user information.
absl::StatusOr<Url> ParseUrl(std::string_view url);

// An endpoint: an absolute http(s) URL with no user information, query or fragment.
struct BaseUrl {
  std::string scheme;  // "http" or "https", lowercased
  std::string host;
  std::string port;  // "" when absent
  std::string path;  // "" or "/..."; never a query or fragment
  std::string text;  // the URL as given, without a trailing '/'
};

// ParseBaseUrl is ParseUrl for an endpoint: user information, a query or a fragment is refused
// too (`... carries user information`, `... has a query or a fragment`).
absl::StatusOr<BaseUrl> ParseBaseUrl(std::string_view url);

// UrlHost is the host an absolute http(s) URL names, past any user information and without its
// port, path, query or fragment (an IPv6 literal without brackets); nullopt when it names none.
// For naming where a URL points without showing what else it carries.
std::optional<std::string> UrlHost(std::string_view url);

// IsLoopbackHost: "localhost", or a literal loopback address (see the header comment).
bool IsLoopbackHost(std::string_view host);

// ShownUrl is `url` as a message may show it: without anything up to its last '@', sanitized
// and bounded.
std::string ShownUrl(std::string_view url);

// RedirectNote is what an error says of a redirect that was not followed: where its Location
// pointed, by host only (never its path or query, which may carry a token or a code):
// `redirects are not followed; the response pointed to host "<host>"`.
std::string RedirectNote(const HttpFields& headers);

}  // namespace agentrt::world
