// runtime/world/redirect_policy.h
//
// Redirects, followed only when a caller chooses to. A Network never follows a 3xx (network.h):
// a bearer token must not follow a 307 to another host unless someone decided it may. A caller
// that wants redirects wraps its Network in a RedirectingNetwork with a RedirectPolicy, which
// sees each redirect and builds the next request itself, so it decides what goes along (the
// method, the body, which headers: Authorization dropped when the host changes, say).
//
// No socket, no HTTP library: this is plain logic over any Network (the real one, a recording,
// the simulator's).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/network.h"

namespace agentrt::world {

// Given the request that got a 3xx, the status, and the Location resolved against the request's
// URL: the next request to send, or nullopt to return the 3xx as is.
using RedirectPolicy = std::function<std::optional<HttpRequest>(
    const HttpRequest& previous, int status, std::string_view location)>;

// ResolveLocation resolves a Location header's value against the URL of the request that got it
// (RFC 3986 §5.2: an absolute URL, a network-path "//host/p", an absolute path, a relative path
// with its "." and ".." segments, a query alone); the fragment is dropped. Errors:
// InvalidArgument when the result is not an absolute http(s) URL (`javascript:`, `file:`, no
// host) or the value holds a space or a control character.
absl::StatusOr<std::string> ResolveLocation(std::string_view base_url, std::string_view location);

// RedirectingNetwork sends through `inner`, and when the answer is a redirect (301, 302, 303, 307
// or 308) with a Location it can resolve to an http(s) URL, asks the policy for the next request
// and sends that instead, abandoning the redirect's body. Every other answer, and a redirect the
// policy declines, comes back as is. One deadline covers every hop. At most `max_redirects` are
// followed: one more that the policy would follow fails FailedPrecondition naming the count.
// `inner` must outlive this network. Thread-safe when `inner` and the policy are.
class RedirectingNetwork final : public Network {
 public:
  RedirectingNetwork(Network& inner, RedirectPolicy policy, int max_redirects = 10);

  absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                     absl::Time deadline) override;

 private:
  Network& inner_;
  const RedirectPolicy policy_;
  const int max_redirects_;
};

}  // namespace agentrt::world
