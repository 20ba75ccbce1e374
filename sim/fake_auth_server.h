// sim/fake_auth_server.h
//
// The authorization side of a scenario's HTTP server that requires it (scenario.proto,
// HttpAuth), at the server's own host on the simulated network: the protected resource metadata
// (RFC 9728) at /.well-known/oauth-protected-resource/mcp, the authorization server's metadata
// (RFC 8414) at /.well-known/oauth-authorization-server, and a token endpoint that grants
// client credentials to the simulated operator's client. It decides whether a request to /mcp
// carries a token it issued, unexpired on the virtual clock and not yet revoked, and what a
// refused one is answered (401 with the WWW-Authenticate a real server sends). It lives as long
// as the scenario's server: a runtime crash does not make it forget its tokens.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "runtime/world/network.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// The client the simulated operator registered with every simulated authorization server.
inline constexpr std::string_view kSimClientId = "sim-client";
inline constexpr std::string_view kSimClientSecret = "sim-secret";

class FakeAuthServer {
 public:
  // `name` is the server's; `config` must outlive this.
  FakeAuthServer(std::string name, const v1::HttpAuth& config);

  // An answer of the authorization side: a status, headers, a body, and how long it takes.
  struct Answer {
    int status = 200;
    world::HttpFields headers;
    std::string body;
    absl::Duration delay;
  };

  // Serve answers a request to one of the metadata paths or the token endpoint; nullopt for any
  // other path (the MCP endpoint's, which Admit judges).
  std::optional<Answer> Serve(const world::HttpRequest& request, std::string_view path,
                              absl::Time now);
  // Admit: nullopt when the MCP request carries a live token (and counts it), else the 401.
  std::optional<Answer> Admit(const world::HttpRequest& request, absl::Time now);

  // How many tokens it issued.
  int issued() const { return static_cast<int>(tokens_.size()); }

 private:
  struct Token {
    absl::Time expires;
    std::uint32_t uses = 0;
  };
  const std::string name_;
  const v1::HttpAuth& config_;
  std::string origin_;  // https://<name>.sim
  std::map<std::string, Token> tokens_;
};

}  // namespace agentrt::sim
