// mcp/auth/browser.h
//
// Where an authorization request goes: the operator's browser. The authorizer hands it the
// authorization URL and gets back the URL the authorization server redirected the browser to
// (the redirect URI with `code` and `state`, or `error`). `agentrt mcp login` prints the URL and
// takes the redirect on a loopback listener (RFC 8252 §7.3); the conformance client follows the
// one redirect itself; a test answers as it likes. Nothing else may start a login: a run, the
// proxy and `mcp pin` have no browser, and a server that needs one is an error naming the
// command that logs in.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt::mcp::auth {

class Browser {
 public:
  virtual ~Browser() = default;
  // The redirect URI registered for (and sent with) the request, known before it is made.
  virtual std::string redirect_uri() const = 0;
  // Visit shows `authorization_url` to the operator and returns the redirect it led to, by
  // `deadline`. Errors: DeadlineExceeded; whatever stopped the visit.
  virtual absl::StatusOr<std::string> Visit(std::string_view authorization_url,
                                            absl::Time deadline) = 0;
};

}  // namespace agentrt::mcp::auth
