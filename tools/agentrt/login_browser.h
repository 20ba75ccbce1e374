// tools/agentrt/login_browser.h
//
// The operator's side of `agentrt mcp login` (RFC 8252, OAuth for native apps): the authorization
// URL is printed for the operator to open (and handed to $BROWSER when that is set), and the
// authorization server's redirect back is taken on a loopback listener at
// http://127.0.0.1:<port>/callback. The listener answers one request to that path (the first
// that arrives with a query: a page saying the login may be closed), refuses other paths (404)
// and requests whose Host is not a loopback name (403, against DNS rebinding), and stops when the
// login is over. What the redirect carries is judged by the authorizer (the state, the issuer,
// the code), never here.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "mcp/auth/browser.h"
#include "runtime/world/http_server.h"
#include "runtime/world/http_service.h"
#include "runtime/world/world.h"

namespace agentrt::cli {

class LoginBrowser final : public mcp::auth::Browser, public world::HttpService {
 public:
  // Listen starts the listener on 127.0.0.1:`port` (0: any free port). `out` is where the URL
  // is printed; `world` gives the clock waited on, and the launcher and environment for
  // $BROWSER. Errors: the listener's (a port in use).
  static absl::StatusOr<std::unique_ptr<LoginBrowser>> Listen(int port, std::ostream& out,
                                                              const world::World& world);
  ~LoginBrowser() override;

  std::string redirect_uri() const override;
  absl::StatusOr<std::string> Visit(std::string_view authorization_url,
                                    absl::Time deadline) override;

  // world::HttpService
  std::size_t max_body() const override { return 0; }
  std::optional<world::ServerResponse> Admit(const world::ServerRequest& head) override;
  world::ServerResponse Serve(const world::ServerRequest& request) override;
  world::ServerResponse Refused(const world::ServerRequest& head, int status) override;

 private:
  LoginBrowser(std::ostream& out, const world::World& world) : out_(out), world_(world) {}

  std::ostream& out_;
  const world::World world_;
  std::unique_ptr<world::HttpServer> server_;
  absl::Mutex mu_;
  std::optional<std::string> redirect_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<absl::Notification> arrived_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::cli
