// runtime/world/http_service.h
//
// What an HTTP endpoint of agentrt implements (the approval webhook; later the proxy's front),
// apart from any socket: a request in, a response out. The transport (http_server.h in
// production, a test calling the service directly) delivers each request in two phases so a
// service can refuse before the body is read: Admit sees the request line and headers, Serve
// the whole request. Keeping the service free of sockets keeps it testable with a manual clock
// and keeps the one piece that listens in runtime/world.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/world/http_fields.h"

namespace agentrt::world {

struct ServerRequest {
  std::string method;  // as sent: "GET", "POST", ...
  std::string path;    // percent-decoded, without the query
  HttpFields query;    // decoded parameters, in order
  HttpFields headers;  // names as sent; look them up with Header
  std::string body;    // empty in Admit
  std::string remote;  // the peer's address, "ip:port"
  // The peer's address as the transport's caps per address count it: an IPv4 address, or an
  // IPv6 address's /64 ("2001:db8:1:2::/64"), which one host can pick from at will.
  std::string address;

  // Header is the first value of the header `name` (case-insensitive); nullopt when absent.
  std::optional<std::string> Header(std::string_view name) const {
    return FindHeader(headers, name);
  }
  // Param is the first value of the query parameter `name`; nullopt when absent.
  std::optional<std::string> Param(std::string_view name) const {
    for (const auto& [key, value] : query) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
};

struct ServerResponse {
  int status = 200;
  HttpFields headers;  // Content-Type among them
  std::string body;
};

class HttpService {
 public:
  virtual ~HttpService() = default;
  // The largest body the transport may read for this service; a longer one is refused with
  // Refused(head, 413), read no further than needed to know.
  virtual std::size_t max_body() const = 0;
  // Admit sees a request before its body is read (`head.body` is empty): a response refuses it
  // there and then; nullopt lets the transport read the body and call Serve.
  virtual std::optional<ServerResponse> Admit(const ServerRequest& head) = 0;
  // Serve answers an admitted request.
  virtual ServerResponse Serve(const ServerRequest& request) = 0;
  // Refused is the answer to a request the transport itself refused with `status`: 413 for a
  // body over max_body, 400 for a request it could not read, 408 for one that did not arrive in
  // time, 503 for a connection over the transport's caps. `head` holds what had arrived: for a
  // 503, and a 408 before the request line, only `remote`. Called from the transport's threads,
  // possibly at once, the 503 from the one that accepts connections: it must return promptly.
  virtual ServerResponse Refused(const ServerRequest& head, int status) = 0;
};

}  // namespace agentrt::world
