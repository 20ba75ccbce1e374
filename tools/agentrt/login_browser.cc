#include "tools/agentrt/login_browser.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/form.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/launcher.h"
#include "runtime/world/url.h"

namespace agentrt::cli {
namespace {

constexpr char kPath[] = "/callback";
constexpr char kClosePage[] =
    "<!doctype html><meta charset=utf-8><title>agentrt</title>"
    "<p>agentrt received the authorization server's answer. You may close this window; the "
    "terminal says whether the login succeeded.</p>\n";

world::ServerResponse Plain(int status, std::string_view text) {
  return {
      status, {{"Content-Type", "text/plain; charset=utf-8"}}, absl::StrCat(ToAbsl(text), "\n")};
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoginBrowser>> LoginBrowser::Listen(int port, std::ostream& out,
                                                                   const world::World& world) {
  std::unique_ptr<LoginBrowser> browser(new LoginBrowser(out, world));
  absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
      world::HttpServer::Listen("127.0.0.1", port, *browser);
  if (!server.ok()) return server.status();
  browser->server_ = *std::move(server);
  return browser;
}

LoginBrowser::~LoginBrowser() {
  if (server_ != nullptr) server_->Stop();
}

std::string LoginBrowser::redirect_uri() const {
  return absl::StrCat("http://127.0.0.1:", server_->port(), kPath);
}

std::optional<world::ServerResponse> LoginBrowser::Admit(const world::ServerRequest& head) {
  std::optional<std::string> host = head.Header("Host");
  // The Host header is an authority: its host, as a URL's (url.h), lowercased like any DNS name.
  std::optional<std::string> name =
      host ? world::UrlHost(absl::StrCat("http://", *host)) : std::nullopt;
  if (!name || !world::IsLoopbackHost(absl::AsciiStrToLower(*name))) {
    return Plain(403, "the Host header does not name this machine");
  }
  if (head.method != "GET" || head.path != kPath) return Plain(404, "nothing here");
  return std::nullopt;
}

world::ServerResponse LoginBrowser::Serve(const world::ServerRequest& request) {
  absl::MutexLock lock(&mu_);
  if (arrived_ == nullptr || redirect_.has_value()) {
    return Plain(409, "no login is waiting for this answer");
  }
  if (request.query.empty()) return Plain(400, "the answer carries nothing");
  redirect_ = absl::StrCat(redirect_uri(), "?", mcp::auth::FormEncode(request.query));
  arrived_->Notify();
  return {200, {{"Content-Type", "text/html; charset=utf-8"}}, kClosePage};
}

world::ServerResponse LoginBrowser::Refused(const world::ServerRequest&, int status) {
  return Plain(status, "refused");
}

absl::StatusOr<std::string> LoginBrowser::Visit(std::string_view authorization_url,
                                                absl::Time deadline) {
  absl::Notification* arrived;
  {
    absl::MutexLock lock(&mu_);
    arrived_ = std::make_unique<absl::Notification>();
    redirect_.reset();
    arrived = arrived_.get();
  }
  out_ << "Open this address in a browser to log in:\n\n  " << json::Sanitize(authorization_url)
       << "\n\nWaiting for the answer at " << redirect_uri() << " (until "
       << absl::FormatTime("%H:%M:%S UTC", deadline, absl::UTCTimeZone()) << ") ..." << std::endl;
  std::optional<std::string> program =
      world_.environment == nullptr ? std::nullopt : world_.environment->Get("BROWSER");
  std::unique_ptr<world::Process> opened;
  if (program.has_value() && !program->empty() && world_.launcher != nullptr) {
    world::LaunchSpec spec;
    spec.argv = {*program, std::string(authorization_url)};
    for (const char* name : {"PATH", "HOME", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
                             "DBUS_SESSION_BUS_ADDRESS", "TMPDIR"}) {
      if (std::optional<std::string> value = world_.environment->Get(name)) {
        spec.env.push_back(absl::StrCat(name, "=", *value));
      }
    }
    spec.stderr_sink = [](std::string_view) {};
    absl::StatusOr<std::unique_ptr<world::Process>> started = world_.launcher->Start(spec);
    if (started.ok()) {
      opened = *std::move(started);
    } else {
      out_ << "($BROWSER could not be started: "
           << json::Sanitize(ToStd(started.status().message())) << "; open the address yourself.)"
           << std::endl;
    }
  }
  bool came = world_.clock->WaitUntil(*arrived, deadline);
  absl::MutexLock lock(&mu_);
  if (!came || !redirect_.has_value()) {
    return absl::DeadlineExceededError("no answer came back from the browser in time");
  }
  return *redirect_;
}

}  // namespace agentrt::cli
