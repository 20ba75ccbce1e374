// mcp/proxy/http_front.h
//
// The proxy over streamable HTTP (docs/proxy.md, "Hosts that connect to a URL"), for hosts that
// reach their servers by URL: the same core and the same JSON-RPC handling as the stdio front
// (host_front.h), one endpoint path.
//  - POST one JSON-RPC message. `initialize` opens a session (its id, from the injected entropy,
//    comes back in `Mcp-Session-Id`); every later message must carry a known session's id (400
//    without one, 404 for one unknown or ended). A request is answered as application/json, or,
//    to a host that accepts only text/event-stream, as an event stream holding the call's
//    progress notifications then its response; a notification or a response gets 202 and no
//    body. A batch (a JSON array) is refused (400).
//  - GET (a stream for messages the server starts) is 405: the proxy starts none.
//  - DELETE ends the session it names.
//  - DNS rebinding: a request whose `Host` is not a loopback name (localhost, 127.0.0.1, [::1])
//    or one the operator allowed, or whose `Origin` names another host, is refused with 403
//    before its body is read, so a web page that resolved its own name to this machine cannot
//    reach the proxy.
//  - An `MCP-Protocol-Version` header naming a version the proxy does not speak is 400.
// Sessions are bounded (max_sessions): a new one past the bound ends the least recently used
// session with no call in flight (a host that went away without DELETE leaves one behind), and
// is 503 only when every session is busy. Thread-safe: the transport serves each connection on a
// thread of its own.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "mcp/proxy/host_front.h"
#include "mcp/proxy/proxy.h"
#include "runtime/world/entropy.h"
#include "runtime/world/http_service.h"

namespace agentrt::proxy {

struct HttpFrontOptions {
  std::string path = "/mcp";
  // Host names (no port) accepted in Host and Origin besides the loopback names: the address
  // the operator chose to listen on when it is not a loopback one.
  std::vector<std::string> allowed_hosts;
  std::size_t max_sessions = 64;
};

class HttpFront final : public world::HttpService {
 public:
  HttpFront(Proxy& proxy, world::Entropy& entropy, HttpFrontOptions options);

  std::size_t max_body() const override { return std::size_t{4} << 20; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override;
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override;

  // Shutdown refuses calls in every session from now on and ends every hold.
  void Shutdown();

 private:
  bool AllowedHost(std::string_view host) const;
  world::ServerResponse Post(const world::ServerRequest& request);

  Proxy& proxy_;
  world::Entropy& entropy_;
  const HttpFrontOptions options_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  struct Session {
    std::shared_ptr<HostFront> front;
    std::uint64_t last_used = 0;  // the order of use
  };
  std::map<std::string, Session, std::less<>> sessions_ ABSL_GUARDED_BY(mu_);
  std::uint64_t uses_ ABSL_GUARDED_BY(mu_) = 0;
};

// ListenAddress splits `host:port` (`[::1]:port` for IPv6). InvalidArgument naming the text.
absl::StatusOr<std::pair<std::string, int>> ListenAddress(std::string_view text);
// IsLoopbackName: localhost, 127.0.0.0/8, ::1 (bracketed or not).
bool IsLoopbackName(std::string_view host);

}  // namespace agentrt::proxy
