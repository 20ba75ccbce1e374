// mcp/http_transport.h
//
// MCP over streamable HTTP (MCP's specification, the 2025-03-26 … 2025-11-25 revisions), through
// the injected world::Network:
//  - every message is its own POST to the endpoint, with `Content-Type: application/json` and
//    `Accept: application/json, text/event-stream`, the session's `Mcp-Session-Id` once the
//    server gave one, and `MCP-Protocol-Version` once the handshake agreed one;
//  - a request's answer is read as it arrives: one JSON message (`application/json`), or a
//    server-sent-event stream (`text/event-stream`) whose `message` events carry the messages
//    (priming events with empty data and events of other types are skipped); a notification
//    or a response the client sends is answered 202 with no body;
//  - when an event stream ends before the request's response, and it gave an event id, the
//    stream is resumed: after the `retry` the server asked for (on the injected clock), a GET
//    with `Last-Event-ID` (at most three times per request);
//  - a 404 for a request that carried a session id means the server no longer knows the
//    session: Send returns NotFound and forgets the session, and the session initializes again;
//  - Close sends DELETE for the session (a 405 is fine);
//  - with an Authorization (authorization.h), every request carries the header it gives, and a
//    401 or 403 is handed to it: when it has a new credential the same request is sent again,
//    at most kMaxAuthorizationRounds times a message; without one, a 401 fails naming the
//    configuration's `auth` block.
// No redirect is followed (a 3xx fails the request: a token must not follow it elsewhere), and a
// body over 16 MiB fails by name (world::Network's promises). The stateless 2026-07-28 revision
// (no sessions, `Mcp-Method`/`Mcp-Name` headers) would be a second transport beside this one.
//
// Thread-safety: one thread sends and receives; Close may come from another at any time.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "mcp/authorization.h"
#include "mcp/transport.h"
#include "runtime/world/clock.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/network.h"
#include "runtime/world/sse_parser.h"

namespace agentrt::mcp {

struct HttpTransportOptions {
  std::string endpoint;       // the MCP endpoint URL (http:// or https://)
  world::HttpFields headers;  // the operator's own headers on every request (Authorization, ...)
  std::size_t max_body_bytes = world::kMaxResponseBodyBytes;
  absl::Duration close_timeout = absl::Seconds(5);  // how long the DELETE of Close may take
  int max_resumes = 3;                              // resumptions of one request's event stream
  std::shared_ptr<Authorization> authorization;     // null: the server is not authorized to
};

// How many times one message is sent again after a refusal its Authorization answered.
inline constexpr int kMaxAuthorizationRounds = 3;

class HttpTransport final : public Transport {
 public:
  // `network` and `clock` must outlive this.
  HttpTransport(world::Network& network, const world::Clock& clock, HttpTransportOptions options);
  ~HttpTransport() override;

  absl::Status Send(std::string_view message, absl::Time deadline) override;
  absl::StatusOr<std::string> Receive(absl::Time deadline) override;
  void SetProtocolVersion(std::string_view version) override;
  void Close() override;

  // The session id the server gave ("" before it did, or after it forgot it).
  std::string session_id() const;

 private:
  world::HttpRequest Request(std::string method) const;
  // Authorized adds the Authorization's header to `request` (nothing without one).
  absl::Status Authorized(world::HttpRequest& request, absl::Time deadline);
  // Reads the open stream until a message is queued, the stream ends or `deadline`.
  absl::Status Pump(absl::Time deadline);
  // The stream ended without the awaited response: resume it, or say why not.
  absl::Status Resume(absl::Time deadline);
  void Queue(std::string message);
  absl::StatusOr<std::shared_ptr<world::HttpResponse>> Post(std::string_view message,
                                                            absl::Time deadline);

  world::Network& network_;
  const world::Clock& clock_;
  const HttpTransportOptions options_;

  // The receiving thread's state.
  std::deque<std::string> queue_;  // messages read and not yet returned
  std::optional<world::SseParser> sse_;
  std::string awaiting_;  // the id of the request whose response has not come yet ("" if none)
  int resumes_ = 0;

  mutable absl::Mutex mu_;
  std::shared_ptr<world::HttpResponse> stream_ ABSL_GUARDED_BY(mu_);  // the open answer
  std::string session_id_ ABSL_GUARDED_BY(mu_);
  std::string protocol_version_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace agentrt::mcp
