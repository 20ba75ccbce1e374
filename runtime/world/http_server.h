// runtime/world/http_server.h
//
// HttpServer listens on a TCP address and hands every request to an HttpService
// (http_service.h) until it is stopped. It is the real transport of agentrt's HTTP endpoints: the
// command constructs it, and tests bind it to 127.0.0.1 port 0 to speak real HTTP on loopback.
// Nothing else in runtime/ opens a socket.
//
// One request per connection, each connection on a thread of its own. An operator decides runs
// through this endpoint, so clients that are slow on purpose must not be able to silence it:
// the server bounds how many connections it holds and how long a request may take to arrive
// (HttpServerOptions), and answers what is over a bound at once instead of queueing it.
//   - Connections: at most max_connections open, at most max_connections_per_address of them
//     from one remote address. A connection over either cap is answered Refused(head, 503)
//     (`head` holds only `remote`) as soon as it is accepted, before a byte is read, and closed.
//   - Arrival: the request line and headers must have arrived header_timeout after the accept,
//     however steadily they trickle in, in at most kMaxHeadBytes; the body body_timeout plus its
//     size at min_body_rate after the headers (the declared Content-Length, or max_body for a
//     chunked body). A request that misses its deadline is answered Refused(head, 408) if the
//     socket takes the answer without waiting, and closed.
//   - The response must be written within write_timeout; then the connection is closed.
// For each request that arrives: Admit is called before the body is read; a declared
// Content-Length over the service's max_body is refused (413) without reading the body, and a
// chunked body is cut off there; then Serve gets the whole request. Every response the transport
// makes itself comes from the service's Refused, so a client always gets the service's own
// format, and every response says Connection: close, once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/http_service.h"

namespace agentrt::world {

// The longest request line and headers, together, that the server reads.
inline constexpr std::size_t kMaxHeadBytes = 32 * 1024;

struct HttpServerOptions {
  // Connections open at once: in all, and from one remote address (an IPv4 address, or an IPv6
  // address's /64, which one host can pick from at will). The cap per address must be below the
  // overall one, so one address never holds every slot; behind a proxy every client shares the
  // proxy's address, so raise both.
  int max_connections = 64;
  int max_connections_per_address = 8;
  // From the accept to the end of the headers.
  absl::Duration header_timeout = absl::Seconds(5);
  // From the end of the headers to the end of the body: body_timeout, plus the body's size at
  // min_body_rate bytes a second (a 16 KiB body: 5 s + 4 s).
  absl::Duration body_timeout = absl::Seconds(5);
  std::size_t min_body_rate = 4096;
  // From the first byte of the response to its last.
  absl::Duration write_timeout = absl::Seconds(5);
};

// Validate checks the options. Errors: InvalidArgument naming the option.
absl::Status Validate(const HttpServerOptions& options);

class HttpServer {
 public:
  // Listen binds `host`:`port` (port 0: any free port, see port()) and starts serving
  // `service`, which must outlive the server. Errors: InvalidArgument from Validate;
  // Unavailable naming the address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Listen(const std::string& host, int port,
                                                            HttpService& service,
                                                            HttpServerOptions options = {});
  ~HttpServer();  // Stop
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const std::string& host() const;
  int port() const;
  // Stop stops accepting, closes the connections whose request is still arriving, lets the
  // requests being served finish (their response bounded by write_timeout) and joins every
  // thread. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentrt::world
