#include "runtime/world/http_server.h"

#include <httplib.h>

#include <atomic>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace agentrt::world {
namespace {

ServerRequest Head(const httplib::Request& req) {
  ServerRequest head;
  head.method = req.method;
  head.path = req.path;
  for (const auto& [key, value] : req.params) head.query.emplace_back(key, value);
  for (const auto& [key, value] : req.headers) head.headers.emplace_back(key, value);
  head.remote = absl::StrCat(req.remote_addr, ":", req.remote_port);
  return head;
}

void Write(const ServerResponse& response, httplib::Response& res) {
  res.status = response.status;
  std::string content_type = "application/octet-stream";
  for (const auto& [key, value] : response.headers) {
    if (absl::EqualsIgnoreCase(key, "Content-Type")) {
      content_type = value;
    } else {
      res.set_header(key, value);
    }
  }
  res.set_content(response.body, content_type);
}

}  // namespace

struct HttpServer::Impl {
  std::string host;
  int port = 0;
  httplib::Server server;
  std::thread thread;
  std::atomic<bool> returned = false;  // listen_after_bind returned
  bool stopped = false;
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

const std::string& HttpServer::host() const { return impl_->host; }

int HttpServer::port() const { return impl_->port; }

void HttpServer::Stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Listen(const std::string& host, int port,
                                                               HttpService& service) {
  auto impl = std::make_unique<Impl>();
  impl->host = host;
  httplib::Server& server = impl->server;
  server.set_payload_max_length(service.max_body());
  // One request per connection: a body refused unread can never be parsed as a next request on
  // the same connection, and a refused client holds no connection open. (Approvals are rare;
  // a new connection each costs nothing that matters.)
  server.set_keep_alive_max_count(1);
  server.set_pre_routing_handler([&service](const httplib::Request& req, httplib::Response& res) {
    ServerRequest head = Head(req);
    std::optional<ServerResponse> refusal = service.Admit(head);
    if (!refusal.has_value()) {
      // A declared length over the bound is refused before a byte of the body is read.
      std::size_t length = 0;
      std::string declared = req.get_header_value("Content-Length");
      if (!declared.empty() &&
          (!absl::SimpleAtoi(declared, &length) || length > service.max_body())) {
        refusal = service.Refused(head, 413);
      }
    }
    if (!refusal.has_value()) return httplib::Server::HandlerResponse::Unhandled;
    Write(*refusal, res);
    // The unread body must not be taken for the next request on this connection.
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  });
  auto serve = [&service](const httplib::Request& req, httplib::Response& res) {
    ServerRequest request = Head(req);
    request.body = req.body;
    Write(service.Serve(request), res);
  };
  server.Get(".*", serve);
  server.Post(".*", serve);
  server.Put(".*", serve);
  server.Patch(".*", serve);
  server.Delete(".*", serve);
  server.Options(".*", serve);
  // A response httplib made itself (an unreadable request, a chunked body over the bound)
  // has no body yet: the service words it. The service's own responses always have one.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&service](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        Write(service.Refused(Head(req), res.status), res);
        return httplib::Server::HandlerResponse::Handled;
      }));
  if (port == 0) {
    impl->port = server.bind_to_any_port(host);
    if (impl->port < 0) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", host, " (any port)"));
    }
  } else {
    if (!server.bind_to_port(host, port)) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port));
    }
    impl->port = port;
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    raw->server.listen_after_bind();
    raw->returned = true;
  });
  // httplib's stop() does nothing to a server that is not running yet, so a Stop right after
  // Listen would leave the thread listening for ever: wait until it accepts (microseconds).
  while (!raw->server.is_running() && !raw->returned) std::this_thread::yield();
  if (!raw->server.is_running()) {
    raw->thread.join();
    return absl::UnavailableError(absl::StrCat("cannot serve on ", host, ":", raw->port));
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

}  // namespace agentrt::world
