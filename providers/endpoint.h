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
#include "runtime/world/url.h"

namespace agentrt::providers {

// The URL helpers live in runtime/world/url.h; the adapters name them as their own.
using world::BaseUrl;
using world::IsLoopbackHost;
using world::ParseBaseUrl;
using world::UrlHost;

// CheckEndpoint parses `base` for `provider` and, when `has_key`, refuses plain http to a host
// that is not loopback. Errors (InvalidArgument):
//   "<provider>: base URL \"<base>\" is not an http or https URL"
//   "<provider>: base URL for <host> carries user information"
//   "<provider>: refusing to send an API key over plain http to <host>"
absl::StatusOr<BaseUrl> CheckEndpoint(std::string_view provider, std::string_view base,
                                      bool has_key);

}  // namespace agentrt::providers
