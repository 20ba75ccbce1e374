// mcp/transport.h
//
// A connection to one MCP server that carries JSON-RPC messages, each one complete JSON text:
// over a child's stdio (stdio_transport.h) or streamable HTTP (http_transport.h), both through
// the injected world, so a session can be recorded and replayed. The session (session.h) speaks
// the protocol on top; a transport only moves messages and keeps what it needs of the
// connection (an HTTP session id, the negotiated protocol version).
//
// Reads happen on the calling thread with a deadline (no reader thread of the transport's own),
// so a replay or a simulation sees every read where it happened.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt::mcp {

class Transport {
 public:
  virtual ~Transport() = default;  // implementations Close()

  // Send delivers one message to the server by `deadline`. Over HTTP a request opens the stream
  // its answer comes on. Errors: DeadlineExceeded; Unavailable when the connection is gone
  // (saying why); NotFound when an HTTP server no longer knows the session (the session
  // initializes again); Cancelled after Close.
  virtual absl::Status Send(std::string_view message, absl::Time deadline) = 0;

  // Receive returns the next message the server sent, waiting until `deadline`. Errors:
  // DeadlineExceeded when none came (nothing is lost); Unavailable when the connection ended
  // (the server exited, closed its output, or an HTTP answer ended without one), saying why;
  // ResourceExhausted for a message over the size bound; Cancelled after Close.
  virtual absl::StatusOr<std::string> Receive(absl::Time deadline) = 0;

  // SetProtocolVersion tells the transport the version the handshake agreed on (HTTP sends it
  // on every later request).
  virtual void SetProtocolVersion(std::string_view version) {}

  // Close ends the connection: the child and everything it started, or the HTTP session
  // (DELETE). Idempotent, and safe from another thread while a Send or Receive is in flight
  // (which then fails).
  virtual void Close() = 0;

  // What the server said on its way out, for an error message: a stdio server's stderr tail
  // (waiting until `deadline` for it to end), "" otherwise.
  virtual std::string StderrTail(absl::Time deadline) { return ""; }
};

}  // namespace agentrt::mcp
