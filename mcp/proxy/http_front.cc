#include "mcp/proxy/http_front.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "mcp/jsonrpc.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"

namespace agentrt::proxy {
namespace {

constexpr std::string_view kSessionHeader = "Mcp-Session-Id";

world::ServerResponse Plain(int status, std::string_view text) {
  world::ServerResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "text/plain; charset=utf-8"}};
  r.body = std::string(text) + "\n";
  return r;
}

// A JSON-RPC error as the body of an HTTP refusal (id null: the message was not read).
world::ServerResponse RpcError(int status, int code, std::string_view message) {
  world::ServerResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = mcp::ErrorJson("null", code, message);
  return r;
}

// The host part of a Host header or an Origin's authority: lower case, without the port.
std::string HostPart(std::string_view authority) {
  std::string a = absl::AsciiStrToLower(ToAbsl(authority));
  if (!a.empty() && a.front() == '[') {
    std::size_t close = a.find(']');
    return close == std::string::npos ? a : a.substr(0, close + 1);
  }
  std::size_t colon = a.rfind(':');
  return colon == std::string::npos ? a : a.substr(0, colon);
}

bool KnownVersion(std::string_view v) {
  return v == kLatestProtocol || v == "2025-06-18" || v == "2025-03-26";
}

}  // namespace

bool IsLoopbackName(std::string_view host) {
  std::string h = absl::AsciiStrToLower(ToAbsl(host));
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || absl::StartsWith(h, "127.");
}

absl::StatusOr<std::pair<std::string, int>> ListenAddress(std::string_view text) {
  std::size_t colon = text.rfind(':');
  int port = 0;
  if (colon == std::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(ToAbsl(text.substr(colon + 1)), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen \"", ToAbsl(text), "\" is not HOST:PORT (127.0.0.1:8931, [::1]:8931)"));
  }
  std::string host(text.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::make_pair(host, port);
}

HttpFront::HttpFront(Proxy& proxy, world::Entropy& entropy, HttpFrontOptions options)
    : proxy_(proxy), entropy_(entropy), options_(std::move(options)) {}

bool HttpFront::AllowedHost(std::string_view host) const {
  if (IsLoopbackName(host)) return true;
  for (const std::string& allowed : options_.allowed_hosts) {
    if (absl::EqualsIgnoreCase(ToAbsl(allowed), ToAbsl(host))) return true;
  }
  return false;
}

std::optional<world::ServerResponse> HttpFront::Admit(const world::ServerRequest& head) {
  std::optional<std::string> host = head.Header("Host");
  if (!host || !AllowedHost(HostPart(*host))) {
    return Plain(403, "the Host header does not name this server");
  }
  if (std::optional<std::string> origin = head.Header("Origin")) {
    std::string_view o = *origin;
    std::size_t scheme = o.find("://");
    std::string_view authority = scheme == std::string_view::npos ? o : o.substr(scheme + 3);
    authority = authority.substr(0, authority.find('/'));
    if (!AllowedHost(HostPart(authority))) {
      return Plain(403, "the Origin is not this server's");
    }
  }
  if (head.path != options_.path) return Plain(404, "no such endpoint");
  if (head.method == "GET") {
    world::ServerResponse r = Plain(405, "this server starts no messages: there is no stream");
    r.headers.push_back({"Allow", "POST, DELETE"});
    return r;
  }
  if (head.method != "POST" && head.method != "DELETE") {
    world::ServerResponse r = Plain(405, "POST a JSON-RPC message");
    r.headers.push_back({"Allow", "POST, DELETE"});
    return r;
  }
  if (std::optional<std::string> version = head.Header("MCP-Protocol-Version");
      version && !KnownVersion(*version)) {
    return RpcError(400, mcp::kInvalidRequest, "unsupported MCP-Protocol-Version");
  }
  return std::nullopt;
}

world::ServerResponse HttpFront::Serve(const world::ServerRequest& request) {
  if (request.method == "DELETE") {
    std::optional<std::string> id = request.Header(kSessionHeader);
    if (!id) return Plain(400, "a DELETE names its session in Mcp-Session-Id");
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(*id);
    if (it == sessions_.end()) return Plain(404, "no such session");
    it->second.front->Shutdown();
    sessions_.erase(it);
    world::ServerResponse r;
    r.status = 204;
    return r;
  }
  return Post(request);
}

world::ServerResponse HttpFront::Post(const world::ServerRequest& request) {
  absl::StatusOr<mcp::Message> m = mcp::ParseMessage(request.body);
  if (!m.ok()) {
    return RpcError(400, -32700, "the body is not one JSON-RPC 2.0 message this server accepts");
  }
  std::shared_ptr<HostFront> front;
  std::string session;
  bool opening = m->kind == mcp::Message::Kind::kRequest && m->method == "initialize";
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return RpcError(503, -32603, "the proxy is shutting down");
    if (opening) {
      if (sessions_.size() >= options_.max_sessions) {
        auto idlest = sessions_.end();
        for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
          if (it->second.front->in_flight() > 0) continue;
          if (idlest == sessions_.end() || it->second.last_used < idlest->second.last_used) {
            idlest = it;
          }
        }
        if (idlest == sessions_.end()) {
          return RpcError(503, -32603, "too many sessions, each with a call in flight");
        }
        idlest->second.front->Shutdown();
        sessions_.erase(idlest);
      }
      session = entropy_.NewId();
      front = std::make_shared<HostFront>(proxy_);
      sessions_[session] = Session{front, ++uses_};
    } else {
      std::optional<std::string> id = request.Header(kSessionHeader);
      if (!id) return RpcError(400, mcp::kInvalidRequest, "Mcp-Session-Id is required");
      auto it = sessions_.find(*id);
      if (it == sessions_.end()) return RpcError(404, mcp::kInvalidRequest, "no such session");
      it->second.last_used = ++uses_;
      front = it->second.front;
      session = *id;
    }
  }
  // A host that takes only an event stream gets one: the messages of the call (its progress
  // while held) then its response, each an SSE `message` event. Otherwise the response as JSON,
  // which cannot carry the notifications.
  std::string accept = absl::AsciiStrToLower(request.Header("Accept").value_or(""));
  bool stream = absl::StrContains(accept, "text/event-stream") &&
                !absl::StrContains(accept, "application/json");
  std::vector<std::string> lines;
  std::string answer;
  Send send = [&](std::string line) {
    if (line.find("\"method\":\"notifications/") == std::string::npos) {
      answer = line;
    }
    lines.push_back(std::move(line));
  };
  if (std::optional<std::function<void()>> task = front->Receive(request.body, send)) {
    (*task)();
  }
  world::ServerResponse r;
  if (answer.empty()) {
    r.status = 202;
  } else if (stream) {
    r.status = 200;
    r.headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
    for (const std::string& line : lines)
      absl::StrAppend(&r.body, "event: message\ndata: ", line, "\n\n");
  } else {
    r.status = 200;
    r.headers = {{"Content-Type", "application/json"}};
    r.body = std::move(answer);
  }
  if (opening) r.headers.push_back({std::string(kSessionHeader), session});
  return r;
}

world::ServerResponse HttpFront::Refused(const world::ServerRequest& head, int status) {
  (void)head;
  return Plain(status, status == 413   ? "the body is too large"
                       : status == 408 ? "the request did not arrive in time"
                       : status == 503 ? "too many connections"
                                       : "the request could not be read");
}

void HttpFront::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  proxy_.Stop();
  for (auto& [id, s] : sessions_) s.front->Shutdown();
}

}  // namespace agentrt::proxy
