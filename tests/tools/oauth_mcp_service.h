// tests/tools/oauth_mcp_service.h
//
// A remote MCP server behind OAuth, in one world::HttpService for the command-line tests of
// `agentrt mcp login` (served on loopback by world::HttpServer): the protected resource metadata
// (RFC 9728) at /.well-known/oauth-protected-resource/mcp, an authorization server (RFC 8414
// metadata, dynamic registration, an /authorize that redirects straight back with a code, as a
// browser session that already consented would, and a /token that checks the PKCE verifier and
// hands out numbered tokens with a refresh token), and POST /mcp answering initialize,
// tools/list and notifications only with a token it issued. Misbehaves on request. Keeps what
// it saw. Thread-safe. Test-only.
#pragma once

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/world/http_service.h"

namespace agentrt::testing {

class OAuthMcpService final : public world::HttpService {
 public:
  struct Options {
    bool wrong_state = false;  // /authorize answers with a state of its own
    int expires_in = 3600;     // of every token it issues
  };
  explicit OAuthMcpService(Options options) : options_(options) {}

  // The base URL (http://127.0.0.1:<port>), set once the server listens.
  void set_base(std::string base) {
    absl::MutexLock lock(&mu_);
    base_ = std::move(base);
  }

  // What it saw: "METHOD path" per request, the grant types asked at /token in order, and the
  // Authorization headers sent to /mcp.
  std::vector<std::string> requests() const;
  std::vector<std::string> grants() const;
  std::vector<std::string> bearers() const;

  std::size_t max_body() const override { return 64 * 1024; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest&) override {
    return std::nullopt;
  }
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest&, int status) override {
    return {status, {}, ""};
  }

 private:
  world::ServerResponse Token(const world::ServerRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  world::ServerResponse Mcp(const world::ServerRequest& request) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  std::string base_ ABSL_GUARDED_BY(mu_);
  std::string challenge_ ABSL_GUARDED_BY(mu_);            // the last authorization request's
  std::vector<std::string> issued_ ABSL_GUARDED_BY(mu_);  // access tokens
  int tokens_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> grants_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> bearers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::testing
