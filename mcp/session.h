// mcp/session.h
//
// One client session with one MCP server, over a Transport: the handshake, then requests one at
// a time, each answered by the response whose id is the request's, as MCP's specification has it.
//
// The handshake: `initialize` offering protocol version 2025-11-25, no client capabilities and
// the client's name and version; the server's answer must name 2025-11-25, 2025-06-18 or
// 2025-03-26; then `notifications/initialized`. The stateless 2026-07-28 revision is not spoken
// yet (its transport would differ, not this session's shape).
//
// While a request waits for its response, whatever else arrives is dealt with so a server that
// waits on the client never hangs it:
//  - a request from the server is answered: `ping` with an empty result; everything else
//    (roots, sampling, elicitation, ...) with error -32601, since the client offered none of it;
//    the answer echoes the request's id exactly, number or string;
//  - notifications (progress, log messages, list changes, ...) are ignored;
//  - a response with another id (a late answer to an abandoned request, a wrong id) is dropped;
//  - a line that is not a JSON-RPC message is skipped, and counted: if a request then fails
//    (a deadline, a transport that broke), its error says how many the session skipped and
//    which was the last, escaped and bounded, and why it was refused; the same sentence is the
//    status's kUnreadableLinesPayload, so an error that rewords the message (PhaseError's
//    `timed out after`) keeps it.
// A request that passes its deadline fails with DeadlineExceeded, and the server is told
// (`notifications/cancelled`, best effort). A transport that fails (the server exited, the
// connection broke) kills the session: that request and every later one fail at once with
// Unavailable, naming the first failure. No reconnect — except that an HTTP server that forgot
// the session (404) gets one new handshake, and the request is sent again once.
//
// Thread-safety: requests are serialized; Close may be called from any thread, twice, and while
// a request is in flight (which then fails with Cancelled).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "mcp/jsonrpc.h"
#include "mcp/transport.h"
#include "runtime/world/clock.h"

namespace agentrt::mcp {

// The payload (absl::Status::GetPayload) of a failed request's status after the session
// skipped lines that are not JSON-RPC messages: `the server sent N lines that are not JSON-RPC
// messages; the last: "<line, escaped>" (<why>)`.
inline constexpr std::string_view kUnreadableLinesPayload = "agentrt/mcp/unreadable-lines";

// UnreadableLines is that sentence from `status`, "" when it has none.
std::string UnreadableLines(const absl::Status& status);

// The protocol revision the client offers first, and every one it accepts.
inline constexpr std::string_view kProtocolVersion = "2025-11-25";
bool IsSupportedProtocolVersion(std::string_view version);

struct SessionOptions {
  std::string client_name = "agentrt";
  std::string client_version = "0.1.0";
};

class Session {
 public:
  // Open makes a session over `transport`, not yet initialized.
  static std::unique_ptr<Session> Open(std::unique_ptr<Transport> transport,
                                       const world::Clock& clock, SessionOptions options = {});
  // Initialize performs the handshake by `deadline`. Errors: the transport's;
  // FailedPrecondition when the server answered initialize with an error or with a protocol
  // version this client does not speak.
  absl::Status Initialize(absl::Time deadline);
  // Connect is Open then Initialize; a failed handshake closes the session.
  static absl::StatusOr<std::unique_ptr<Session>> Connect(std::unique_ptr<Transport> transport,
                                                          const world::Clock& clock,
                                                          absl::Time deadline,
                                                          SessionOptions options = {});
  ~Session();  // Close
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Request sends `method` with `params` (JSON text, "" for none) and returns the canonical JSON
  // of the response's result. Errors: DeadlineExceeded; FailedPrecondition when the server
  // answered with a JSON-RPC error (its code and message, quoted); Unavailable when the session
  // is dead; Cancelled after Close.
  absl::StatusOr<std::string> Request(std::string_view method, std::string_view params,
                                      absl::Time deadline);

  // Close ends the session and the server behind it. Idempotent.
  void Close();

  // The protocol version the handshake agreed on, the server's initialize result (canonical
  // JSON) and its stderr tail (stdio servers).
  const std::string& protocol_version() const { return protocol_version_; }
  const std::string& server_info() const { return initialize_result_; }
  std::string StderrTail(absl::Time deadline);

 private:
  Session(std::unique_ptr<Transport> transport, const world::Clock& clock, SessionOptions options);
  absl::Status Handshake(absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(call_mu_);
  absl::StatusOr<std::string> RoundTrip(std::string_view method, std::string_view params,
                                        absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(call_mu_);
  // Answers a request from the server.
  absl::Status Answer(const Message& request, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(call_mu_);
  // `status` saying what the session skipped (kUnreadableLinesPayload), when it skipped any.
  absl::Status Explained(const absl::Status& status) const ABSL_SHARED_LOCKS_REQUIRED(call_mu_);
  // The transport failed with `status`: the session is dead from now on (unless closed).
  absl::Status Die(const absl::Status& status);
  absl::Status dead() const;

  const std::unique_ptr<Transport> transport_;
  const world::Clock& clock_;
  const SessionOptions options_;
  std::string protocol_version_;
  std::string initialize_result_;

  absl::Mutex call_mu_;  // one request at a time
  std::int64_t next_id_ ABSL_GUARDED_BY(call_mu_) = 1;
  int unreadable_ ABSL_GUARDED_BY(call_mu_) = 0;           // lines that were not JSON-RPC messages
  std::string last_unreadable_ ABSL_GUARDED_BY(call_mu_);  // quoted, with why

  mutable absl::Mutex state_mu_;
  absl::Status dead_ ABSL_GUARDED_BY(state_mu_);
  bool closed_ ABSL_GUARDED_BY(state_mu_) = false;
};

}  // namespace agentrt::mcp
