// tests/mcp/http_everything.h
//
// The pinned everything server over streamable HTTP (`node .../server-everything/dist/index.js
// streamableHttp`) on a free loopback port, for tests of the client's HTTP transport against a
// real server. It is started through a real launcher of its own, and ready once it says it
// listens (from its listen callback, on stderr): the event Start waits on, with a bound. Its
// stdout is its log (`Received MCP POST request`, ...). Close, or destruction, ends it and its
// process group. Test-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "mcp/server.h"
#include "runtime/world/clock.h"
#include "runtime/world/launcher.h"
#include "runtime/world/real_launcher.h"

namespace agentrt::mcp::real_servers {

class HttpEverything {
 public:
  // `clock` must outlive this; `path` is the server's PATH (where node is found).
  HttpEverything(const world::Clock& clock, std::string path);
  ~HttpEverything();
  HttpEverything(const HttpEverything&) = delete;
  HttpEverything& operator=(const HttpEverything&) = delete;

  // Start starts the server and waits up to `within` until it listens. Errors: the launcher's,
  // or DeadlineExceeded with what the server wrote on stderr.
  absl::Status Start(absl::Duration within);

  // The server as the operator configures it: named "everything", at http://127.0.0.1:<port>/mcp.
  const Server& server() const { return server_; }
  std::int64_t pid() const;

  // The server's log, read until it holds `count` session terminations (each DELETE it
  // handled) or `within` passed.
  std::string LogWithTerminations(int count, absl::Duration within);

  // Close ends the server and its process group. Idempotent.
  void Close();

 private:
  std::string Stderr();

  const world::Clock& clock_;
  const std::string path_;
  // The HTTP server does not read stdin: no use waiting for it to end at end of input.
  world::RealLauncher launcher_;
  absl::Notification listening_;
  absl::Mutex mu_;
  std::string stderr_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<world::Process> process_;  // after the sink's state: destroyed before it
  Server server_;
};

}  // namespace agentrt::mcp::real_servers
