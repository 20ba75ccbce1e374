#include "mcp/server.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/configured.h"
#include "mcp/duration.h"
#include "mcp/errors.h"
#include "mcp/http_transport.h"
#include "mcp/stdio_transport.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/child_env.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/launcher.h"

namespace agentrt::mcp {

absl::Status ValidateServer(const Server& server) {
  if (server.name.empty()) return absl::InvalidArgumentError("mcp: server name is required");
  for (const std::string& name : server.inherit_env) {
    if (absl::Status s = world::CheckInheritName(name); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(ServerPrefix(server.name), s.message()));
    }
  }
  for (const std::string& entry : server.env) {
    if (absl::Status s = world::CheckEnvEntry(entry); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(ServerPrefix(server.name), s.message()));
    }
  }
  if (!server.command.empty() && !server.endpoint.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ServerPrefix(server.name), "Command and Endpoint are exclusive"));
  }
  if (server.command.empty() && server.endpoint.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ServerPrefix(server.name), "one of Command or Endpoint is required"));
  }
  if ((server.authorization != nullptr || server.auth.has_value()) &&
      world::FindHeader(server.headers, "Authorization").has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ServerPrefix(server.name),
        "an Authorization header and an authorization are exclusive (which would be sent?)"));
  }
  return absl::OkStatus();
}

absl::Duration ConnectTimeout(const Server& server) {
  return server.connect_timeout > absl::ZeroDuration() ? server.connect_timeout
                                                       : kDefaultConnectTimeout;
}

std::size_t MaxContentBytes(const Server& server) {
  return server.max_content_bytes > 0 ? server.max_content_bytes : kDefaultMaxContentBytes;
}

std::vector<std::string> ChildEnvironment(const Server& server, world::Environment* environment) {
  world::EnvLookup host =
      environment != nullptr ? world::LookupOf(*environment)
                             : world::EnvLookup([](std::string_view) -> std::optional<std::string> {
                                 return std::nullopt;
                               });
  return world::MinimalChildEnv(world::HostEnvFlavour(), host, server.inherit_env, server.env);
}

absl::Status PhaseError(std::string_view server, std::string_view step, const absl::Status& cause,
                        absl::Duration timeout, std::string_view stderr_tail) {
  std::string why = json::Sanitize(ToStd(cause.message()));
  if (absl::IsDeadlineExceeded(cause)) {
    // The deadline is worded by the phase's timeout; what the session skipped on the way is
    // kept, escaped already: it is often why nothing answered (a server logging on stdout).
    why = absl::StrCat("timed out after ", DurationText(timeout));
    if (std::string skipped = UnreadableLines(cause); !skipped.empty()) {
      absl::StrAppend(&why, " (", skipped, ")");
    }
  }
  std::string text = absl::StrCat(ServerPrefix(server), ToAbsl(step), ": ", why);
  std::string_view tail = ToStd(absl::StripAsciiWhitespace(ToAbsl(stderr_tail)));
  // The tail is at most 4 KiB already; its end is what a failing server said last.
  if (!tail.empty()) {
    absl::StrAppend(&text, "; stderr: ", json::QuoteBytes(tail, world::kStderrTailBytes));
  }
  return absl::Status(cause.code(), text);
}

absl::Status Fail(const Server& server, std::string_view step, Session& session,
                  const absl::Status& cause, const world::Clock& clock) {
  // Closed first, so a server still running is gone and its stderr has ended.
  session.Close();
  std::string tail = session.StderrTail(clock.Now() + kStderrWait);
  return PhaseError(server.name, step, cause, ConnectTimeout(server), tail);
}

absl::StatusOr<std::unique_ptr<Session>> Connect(const Server& server, const world::World& world,
                                                 absl::Time deadline) {
  if (absl::Status valid = ValidateServer(server); !valid.ok()) return valid;
  std::unique_ptr<Transport> transport;
  if (!server.command.empty()) {
    if (world.launcher == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(ServerPrefix(server.name), "connect: no launcher to start it with"));
    }
    world::LaunchSpec spec;
    spec.argv = server.command;
    spec.env = ChildEnvironment(server, world.environment);
    spec.dir = server.dir;
    spec.stderr_sink = server.stderr_sink;
    absl::StatusOr<std::unique_ptr<world::Process>> process = world.launcher->Start(spec);
    if (!process.ok()) {
      return PhaseError(server.name, "connect", process.status(), ConnectTimeout(server), "");
    }
    transport = std::make_unique<StdioTransport>(*std::move(process));
  } else {
    if (world.network == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(ServerPrefix(server.name), "connect: no network to reach it through"));
    }
    std::shared_ptr<Authorization> authorization = server.authorization;
    if (authorization == nullptr && server.auth.has_value()) {
      absl::StatusOr<std::shared_ptr<auth::Authorizer>> built =
          auth::ConfiguredAuthorizer(server.endpoint, *server.auth, world, /*browser=*/nullptr);
      if (!built.ok()) {
        return PhaseError(
            server.name, "connect",
            absl::Status(built.status().code(), absl::StrCat("auth: ", built.status().message())),
            ConnectTimeout(server), "");
      }
      authorization = *std::move(built);
    }
    transport = std::make_unique<HttpTransport>(
        *world.network, *world.clock,
        HttpTransportOptions{.endpoint = server.endpoint,
                             .headers = server.headers,
                             .authorization = std::move(authorization)});
  }
  std::unique_ptr<Session> session = Session::Open(std::move(transport), *world.clock);
  if (absl::Status initialized = session->Initialize(deadline); !initialized.ok()) {
    return Fail(server, "connect", *session, initialized, *world.clock);
  }
  return session;
}

}  // namespace agentrt::mcp
