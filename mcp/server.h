// mcp/server.h
//
// One MCP server as the operator configured it (docs/mcp.md, "The configuration"), and how a
// session with it is opened: a stdio server is started through the world's Launcher with the
// minimal environment (runtime/world/child_env.h: PATH, HOME, TMPDIR, the names the operator lets
// through, the entries it sets, read from the world's Environment), its stderr kept as a 4 KiB
// tail unless the server has a sink; a streamable HTTP server is reached through the world's
// Network. Then the handshake (session.h).
//
// Connect's errors are phase errors: `mcp: server "<name>": connect: <why>`, where a
// deadline that fired reads `timed out after <the connect timeout>` (with, when the server sent
// lines that are not JSON-RPC messages, how many and the last one, session.h), followed by the
// server's stderr tail when there is one (`; stderr: "<tail, escaped>"`). A failed connect
// leaves nothing running.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/auth/settings.h"
#include "mcp/authorization.h"
#include "mcp/result_content.h"
#include "mcp/session.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/world.h"

namespace agentrt::mcp {

inline constexpr absl::Duration kDefaultConnectTimeout = absl::Seconds(30);
// How long a failed connect waits for the server's last words on stderr.
inline constexpr absl::Duration kStderrWait = absl::Seconds(2);

struct Server {
  std::string name;                      // required; tools are offered as <name>_<tool>
  std::vector<std::string> command;      // stdio: the program and its arguments
  std::string endpoint;                  // or streamable HTTP: the endpoint URL
  std::vector<std::string> env;          // NAME=value entries the server gets
  std::vector<std::string> inherit_env;  // names passed on from this process when set
  std::string dir;                       // the server's working folder ("" keeps ours)
  // When set, the server's stderr goes here chunk by chunk and no tail is kept.
  std::function<void(std::string_view)> stderr_sink;
  world::HttpFields headers;  // HTTP: the operator's headers on every request
  // HTTP: how requests are authorized. `authorization` when set (a login, a test), else one
  // built at connect from `auth` (mcp/auth/configured.h), else none.
  std::shared_ptr<Authorization> authorization;
  std::optional<auth::AuthConfig> auth;
  absl::Duration connect_timeout = absl::ZeroDuration();  // <= 0: 30 s
  absl::Duration default_timeout = absl::ZeroDuration();  // a call's bound when its rule has none
  std::size_t max_content_bytes = 0;                      // 0: 64 KiB
};

// ValidateServer checks the operator's server entry, in a fixed order. Errors: InvalidArgument,
// `mcp: server name is required`, `mcp: server "<n>": ...` (an `Authorization` header beside an
// authorization among them).
absl::Status ValidateServer(const Server& server);

absl::Duration ConnectTimeout(const Server& server);
std::size_t MaxContentBytes(const Server& server);

// ChildEnvironment is the environment a stdio server gets (child_env.h's algorithm over
// `environment`, or nothing but its own entries when there is none).
std::vector<std::string> ChildEnvironment(const Server& server, world::Environment* environment);

// Connect opens the server through `world` (launcher or network, clock, environment) and
// performs the handshake by `deadline`. Errors: ValidateServer's, and phase errors as above.
absl::StatusOr<std::unique_ptr<Session>> Connect(const Server& server, const world::World& world,
                                                 absl::Time deadline);

// Fail ends a session that failed at `step` ("connect", "list tools"): it closes the session,
// then returns the phase error with the server's stderr tail.
absl::Status Fail(const Server& server, std::string_view step, Session& session,
                  const absl::Status& cause, const world::Clock& clock);

// PhaseError is `mcp: server "<name>": <step>: <why>` for `cause`, with `timed out after
// <timeout>` when the cause is a deadline (and the cause's kUnreadableLinesPayload in
// parentheses, when it has one), and the stderr tail appended when not empty. The
// cause's code is kept, so a caller can still tell a deadline from the rest.
absl::Status PhaseError(std::string_view server, std::string_view step, const absl::Status& cause,
                        absl::Duration timeout, std::string_view stderr_tail);

}  // namespace agentrt::mcp
