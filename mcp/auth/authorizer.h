// mcp/auth/authorizer.h
//
// MCP's authorization profile of OAuth 2.1 for one remote server, as the HTTP transport's
// Authorization (mcp/authorization.h). Given the server's refusal it discovers how to authorize
// (discovery.h), identifies the client (settings.h's order), obtains a token and has the request
// sent again:
//  - the authorization code grant with PKCE S256 (pkce.h) through a Browser (browser.h): the
//    authorization URL carries `response_type=code`, `client_id`, `redirect_uri`, the challenge,
//    a fresh `state`, the scope and the resource; the redirect back must come to the redirect
//    URI with the same `state` (and the same `iss`, RFC 9207, when it names one or the server
//    says it always does), else it is refused by name; the code is exchanged with the verifier;
//  - the client credentials grant (the client-credentials extension) with a client secret or a
//    private_key_jwt assertion (client_assertion.h) for a machine with no operator;
//  - the identity assertion grant (the enterprise-managed extension, cross-app access): the
//    operator's ID token exchanged at their identity provider for an ID-JAG naming this
//    authorization server and resource, then the jwt-bearer grant with it;
//  - the scope: the refusal's `scope`, else the protected resource metadata's scopes_supported,
//    else none; `offline_access` added when the authorization server lists it (so it may issue a
//    refresh token);
//  - a 403 `insufficient_scope` asks again with the union of the scopes asked before and the
//    ones the refusal names (step-up), at most settings.max_step_ups times, and never for scopes
//    already asked for and not granted (the server would refuse forever);
//  - a token about to expire (30 s) or refused with 401 is refreshed with its refresh token
//    before anything else is tried;
//  - the `resource` parameter (RFC 8707) on every authorization and token request;
//  - token endpoint authentication as the client's identity and the metadata allow:
//    client_secret_basic, client_secret_post, none or private_key_jwt.
// What it obtains goes to the TokenStore (credentials.h) at once, and before refreshing or
// authorizing again it looks there first: another process sharing the credentials file (the
// proxy and an `mcp call`) may already hold a newer token, which it then takes instead of
// spending its own refresh token. A token is sent only to the server it was issued for
// (Credentials::Matches), and never over plain http except to a loopback host; the transport
// follows no redirect, so it never reaches another host either.
// Without a Browser (a run, the proxy, `mcp pin`) an authorization that needs one fails with a
// FailedPrecondition naming `agentrt mcp login`.
//
// Everything goes through the injected network, clock and entropy, so an authorized session
// records and replays like any other.
//
// Thread-safety: the transport's one sending thread; current() from any thread.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "mcp/auth/browser.h"
#include "mcp/auth/credentials.h"
#include "mcp/auth/discovery.h"
#include "mcp/auth/settings.h"
#include "mcp/auth/www_authenticate.h"
#include "mcp/authorization.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/network.h"

namespace agentrt::mcp::auth {

// What the authorizer is handed; the pointers are not owned and must outlive it.
struct AuthorizerWorld {
  world::Network* network = nullptr;
  const world::Clock* clock = nullptr;
  world::Entropy* entropy = nullptr;
  Browser* browser = nullptr;  // null: no login is possible here
};

class Authorizer final : public Authorization {
 public:
  // Create checks what can be checked before anything is sent. Errors: InvalidArgument
  // `refusing to send a token over plain http to <host>, which is not this machine`, the URL's
  // own; `settings` that cannot work (a client_credentials grant without a client id and its
  // secret or key).
  static absl::StatusOr<std::unique_ptr<Authorizer>> Create(std::string server_url,
                                                            AuthSettings settings,
                                                            std::shared_ptr<TokenStore> store,
                                                            AuthorizerWorld world);

  absl::StatusOr<std::string> Header(absl::Time deadline) override;
  absl::Status Refused(int status, const world::HttpFields& headers, absl::Time deadline) override;

  // ForgetTokens: the next request goes without a token (a registered client is kept), so the
  // server's 401 starts a new authorization: what `agentrt mcp login` does.
  void ForgetTokens();
  // The credentials as they stand, nullopt before any.
  std::optional<Credentials> current() const;

 private:
  Authorizer(std::string server_url, AuthSettings settings, std::shared_ptr<TokenStore> store,
             AuthorizerWorld world);

  struct Client {
    std::string id;
    world::Secret secret;
    std::string method;
    bool registered = false;  // by dynamic registration: kept with the tokens
  };

  absl::Status Load() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // AdoptNewer takes the store's credentials when another process wrote a token for this server
  // there since this one last read or wrote it, and it is not about to expire (a process
  // sharing the credentials file refreshed or logged in).
  bool AdoptNewer() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Authorize(const BearerChallenge& challenge, std::set<std::string> scopes,
                         absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AuthorizationCode(const Discovery& discovery, const std::string& scope,
                                 absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Refresh(absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // IdentityAssertion asks the identity provider for an ID-JAG for `discovery`'s server.
  absl::StatusOr<std::string> IdentityAssertion(const Discovery& discovery,
                                                const std::string& scope, absl::Time deadline);
  absl::StatusOr<Client> Identify(const Discovery& discovery, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Client> Register(const Discovery& discovery, absl::Time deadline);
  // The operator's pre-registered client, authenticating by `method`, or (when "") as it can with
  // what it has among the `supported` methods.
  absl::StatusOr<Client> PreRegistered(std::string method,
                                       const std::vector<std::string>& supported) const;
  // Exchange posts `form` (with the client's authentication) to the token endpoint and keeps
  // what it issues.
  absl::Status Exchange(const Discovery& discovery, const Client& client, world::HttpFields form,
                        const std::string& scope, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string server_url_;
  const AuthSettings settings_;
  const std::shared_ptr<TokenStore> store_;
  const AuthorizerWorld world_;

  mutable absl::Mutex mu_;
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<Credentials> credentials_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> requested_ ABSL_GUARDED_BY(mu_);  // the scopes last asked for
  int step_ups_ ABSL_GUARDED_BY(mu_) = 0;
  bool refreshed_ ABSL_GUARDED_BY(mu_) = false;  // a refresh was tried since the last grant
  // The access token the store held when this process last read or wrote it: one it holds now
  // that differs came from another process.
  std::string seen_token_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::mcp::auth
