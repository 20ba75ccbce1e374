// mcp/connection.h
//
// The one session a Load opened, shared by every tool it registered:
// the tools call through it one at a time, nobody reconnects it, and Close (or the last tool and
// the Load's caller letting go of it) ends the session and the server behind it. Once the
// session died, every call fails at once, naming the server.
#pragma once

#include <memory>
#include <string>

#include "mcp/session.h"
#include "runtime/world/clock.h"

namespace agentrt::mcp {

class Connection {
 public:
  // `clock` must outlive the connection.
  Connection(std::string server, std::unique_ptr<Session> session, const world::Clock& clock)
      : server_(std::move(server)), session_(std::move(session)), clock_(clock) {}
  ~Connection() { Close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::string& server() const { return server_; }
  Session& session() { return *session_; }
  const world::Clock& clock() const { return clock_; }
  // Close ends the session; idempotent, safe from any thread and during a call.
  void Close() { session_->Close(); }

 private:
  const std::string server_;
  const std::unique_ptr<Session> session_;
  const world::Clock& clock_;
};

}  // namespace agentrt::mcp
