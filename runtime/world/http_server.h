// runtime/world/http_server.h
//
// HttpServer listens on a TCP address and hands every request to an HttpService
// (http_service.h), on a pool of threads of its own, until it is stopped. It is the real
// transport of agentrt's HTTP endpoints: the command constructs it, and tests bind it to
// 127.0.0.1 port 0 to speak real HTTP on loopback. Nothing else in runtime/ opens a socket.
//
// For each request: Admit is called before the body is read; a declared Content-Length over the
// service's max_body is refused (413) without reading the body, and a chunked body is cut off
// there; then Serve gets the whole request. Every response the transport makes itself comes
// from the service's Refused, so a client always gets the service's own format.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/world/http_service.h"

namespace agentrt::world {

class HttpServer {
 public:
  // Listen binds `host`:`port` (port 0: any free port, see port()) and starts serving
  // `service`, which must outlive the server. Errors: Unavailable naming the address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Listen(const std::string& host, int port,
                                                            HttpService& service);
  ~HttpServer();  // Stop
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const std::string& host() const;
  int port() const;
  // Stop stops accepting, lets requests in progress finish and joins the serving thread.
  // Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentrt::world
