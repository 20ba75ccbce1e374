// mcp/config.h
//
// The configuration file that `agentrt mcp pin|check` and the proxy read (docs/mcp.md, "The
// configuration"): the servers (how to start or reach each, its environment, timeouts, its manifest
// and the operator's rules for its tools), the database, and the proxy's policy and windows. It is
// the operator's file, so it is read only when nobody else could have written it (ReadOwned),
// through strict intake (no repeated key anywhere, valid UTF-8), and every field is known: an
// unknown one anywhere is refused by name. Relative paths are the config file's folder's: joined
// to it by text (so relative still when the file's own path is), never by asking the process for
// its working directory.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/auth/settings.h"
#include "mcp/rules.h"
#include "runtime/types.h"
#include "runtime/world/filesystem.h"

namespace agentrt::mcp {

struct ServerConfig {
  std::string name;
  std::vector<std::string> command;      // argv of a stdio server; or
  std::string endpoint;                  // the URL of a streamable HTTP server
  std::vector<std::string> env;          // NAME=value entries the server gets
  std::vector<std::string> inherit_env;  // names it gets from this process's environment
  absl::Duration connect_timeout = absl::ZeroDuration();  // 0: the client's default
  absl::Duration default_timeout = absl::ZeroDuration();  // a call's bound when a rule sets none
  std::string manifest;  // joined to the config file's folder when relative
  Rules rules;
  bool skip_path_check = false;  // the proxy's reach check skips this server
  // How to authorize to an HTTP server that requires it (docs/mcp.md, "Authorized servers").
  std::optional<auth::AuthConfig> auth;
};

struct Config {
  std::string path;      // as given to ReadConfig
  std::string database;  // joined to the config file's folder when relative
  std::string session;
  std::vector<ServerConfig> servers;
  // Every class: the ones the file gives, the others their default (read_only and
  // local_mutation allow, remote_mutation require_approval, destructive deny).
  std::map<SideEffect, PolicyOutcome> policy;
  absl::Duration hold = absl::Seconds(15);
  absl::Duration repeat_window = absl::Minutes(10);
  absl::Duration approval_ttl = absl::Hours(24);
  absl::Duration grant_ttl = absl::Hours(24);
  absl::Duration lease_ttl = absl::Seconds(30);
  int max_pending = 5;
  std::string status_tool = "gate_status";
};

// The policy a configuration starts from.
std::map<SideEffect, PolicyOutcome> DefaultProxyPolicy();

// ReadConfig reads and checks the configuration file at `path`. Errors, InvalidArgument unless
// ReadOwned's:
//   `config: <ReadOwned error, which names the path>`
//   `config <path>: not usable JSON: <intake error>` (a repeated key, data after the object...)
//   `config <path>: unknown field "hold_for"`, `config <path>: servers[1]: unknown field
//    "manifets"`, `config <path>: server "bank": tool "pay": unknown field "denny"`
//   `config <path>: database is required`
//   `config <path>: session "<s>" must be 1 to 64 letters, digits, '_' or '-'`
//   `config <path>: at least one server is required`
//   `config <path>: servers[<i>]: name is required`, `... the name "<n>" is used twice`
//   `config <path>: server "<n>": exactly one of command or endpoint is required`
//   `config <path>: server "<n>": manifest is required`
//   `config <path>: server "<n>": InheritEnv entry "<e>" is not a variable name`, `... Env
//    entry "<e>" is not NAME=value`
//   `config <path>: server "<n>": tool "<t>": <rule error>` (rules.h)
//   `config <path>: policy: unknown side effect "<c>"`
//   `config <path>: policy: <class>: outcome "<o>" is not allow, require_approval, or deny`
//   `config <path>: hold: a duration is a string such as "15s"`, `... duration "<s>" is
//    negative`
//   `config <path>: max_pending must not be negative`
//   `config <path>: status_tool "<n>" does not match ^[a-zA-Z0-9_-]{1,64}$`
//   `config <path>: lease_ttl <d> is shorter than 3s`
//   `config <path>: server "<n>": auth: unknown field "<f>"`, `... auth: only a server reached
//    over HTTP (an endpoint) is authorized to`, `... auth: refusing to send tokens over plain
//    http to <host>, which is not this machine`, `... auth: the client_credentials grant needs
//    client_id with a client secret or a private key`, ...
absl::StatusOr<Config> ReadConfig(world::Filesystem& files, const std::string& path);

// ParseConfig is ReadConfig without the file: `bytes` as if read from `path`, which names the
// file in errors and whose folder relative paths are resolved against. The same errors but
// ReadOwned's.
absl::StatusOr<Config> ParseConfig(std::string_view bytes, const std::string& path);

}  // namespace agentrt::mcp
