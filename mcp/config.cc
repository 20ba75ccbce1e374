#include "mcp/config.h"

#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "mcp/duration.h"
#include "mcp/errors.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/world/child_env.h"

namespace agentrt::mcp {
namespace {

using internal::WithContext;

constexpr absl::Duration kShortestLease = absl::Seconds(3);

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(message); }

std::string Resolve(const std::filesystem::path& folder, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (folder / p).lexically_normal().string();
}

absl::StatusOr<PolicyOutcome> ReadOutcome(std::string_view text) {
  if (text == "allow") return PolicyOutcome::kAllow;
  if (text == "require_approval") return PolicyOutcome::kRequireApproval;
  if (text == "deny") return PolicyOutcome::kDeny;
  return Invalid(absl::StrCat("outcome ", Quote(text), " is not allow, require_approval, or deny"));
}

absl::Status ReadPolicy(json::Value root, std::map<SideEffect, PolicyOutcome>& policy) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> object,
                           internal::ObjectMember(root, "policy"));
  if (!object) return absl::OkStatus();
  for (std::size_t i = 0; i < object->size(); ++i) {
    std::string_view name = object->key(i);
    std::optional<SideEffect> side_effect = ParseSideEffect(name);
    if (!side_effect) return Invalid(absl::StrCat("policy: unknown side effect ", Quote(name)));
    json::Value value = object->member(i);
    std::string context = absl::StrCat("policy: ", ToAbsl(name));
    if (!value.is_string()) return Invalid(absl::StrCat(context, ": the outcome is not a string"));
    absl::StatusOr<PolicyOutcome> outcome = ReadOutcome(value.string_value());
    if (!outcome.ok()) return WithContext(context, outcome.status());
    policy[*side_effect] = *outcome;
  }
  return absl::OkStatus();
}

absl::Status ReadDuration(json::Value root, std::string_view key, absl::Duration& out) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<absl::Duration> d,
                           internal::DurationMember(root, key, internal::Negative::kRefused));
  if (d) out = *d;
  return absl::OkStatus();
}

absl::Status ReadMaxPending(json::Value root, int& out) {
  std::optional<json::Value> value = internal::Member(root, "max_pending");
  if (!value) return absl::OkStatus();
  int n = 0;
  std::string_view literal = value->is_number() ? value->number_literal() : "";
  bool integer = !literal.empty() && literal.find_first_of(".eE") == std::string_view::npos;
  if (!integer || !absl::SimpleAtoi(ToAbsl(literal), &n)) {
    return Invalid("max_pending is not an integer");
  }
  if (n < 0) return Invalid("max_pending must not be negative");
  if (n > 0) out = n;  // 0 keeps the default
  return absl::OkStatus();
}

// Reads servers[index]; `names` holds the names of the servers before it.
absl::StatusOr<ServerConfig> ReadServer(json::Value object, std::size_t index,
                                        const std::filesystem::path& folder,
                                        std::set<std::string>& names) {
  std::string at = absl::StrCat("servers[", index, "]");
  if (!object.is_object()) return Invalid(absl::StrCat(at, ": not a JSON object"));
  absl::Status known = internal::CheckKnownFields(
      object, {"name", "command", "endpoint", "env", "inherit_env", "connect_timeout",
               "default_timeout", "manifest", "rules", "skip_path_check"});
  if (!known.ok()) return WithContext(at, known);
  ServerConfig server;
  absl::StatusOr<std::optional<std::string>> name = internal::StringMember(object, "name");
  if (!name.ok()) return WithContext(at, name.status());
  server.name = name->value_or("");
  if (server.name.empty()) return Invalid(absl::StrCat(at, ": name is required"));
  if (!names.insert(server.name).second) {
    return Invalid(absl::StrCat(at, ": the name ", Quote(server.name), " is used twice"));
  }
  std::string context = absl::StrCat("server ", Quote(server.name));
  auto read = [&]() -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> command,
                             internal::StringsMember(object, "command"));
    server.command = command.value_or(std::vector<std::string>{});
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> endpoint,
                             internal::StringMember(object, "endpoint"));
    server.endpoint = endpoint.value_or("");
    if (server.command.empty() == server.endpoint.empty()) {
      return Invalid("exactly one of command or endpoint is required");
    }
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> manifest,
                             internal::StringMember(object, "manifest"));
    if (!manifest || manifest->empty()) return Invalid("manifest is required");
    server.manifest = Resolve(folder, *manifest);
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> inherit,
                             internal::StringsMember(object, "inherit_env"));
    server.inherit_env = inherit.value_or(std::vector<std::string>{});
    for (const std::string& entry : server.inherit_env) {
      AGENTRT_RETURN_IF_ERROR(world::CheckInheritName(entry));
    }
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> env,
                             internal::StringsMember(object, "env"));
    server.env = env.value_or(std::vector<std::string>{});
    for (const std::string& entry : server.env) {
      AGENTRT_RETURN_IF_ERROR(world::CheckEnvEntry(entry));
    }
    AGENTRT_RETURN_IF_ERROR(ReadDuration(object, "connect_timeout", server.connect_timeout));
    AGENTRT_RETURN_IF_ERROR(ReadDuration(object, "default_timeout", server.default_timeout));
    AGENTRT_ASSIGN_OR_RETURN(std::optional<bool> skip,
                             internal::BoolMember(object, "skip_path_check"));
    server.skip_path_check = skip.value_or(false);
    return absl::OkStatus();
  };
  if (absl::Status s = read(); !s.ok()) return WithContext(context, s);
  absl::StatusOr<std::optional<json::Value>> rules = internal::ObjectMember(object, "rules");
  if (!rules.ok()) return WithContext(context, rules.status());
  if (*rules) {
    AGENTRT_ASSIGN_OR_RETURN(server.rules, ParseRules(**rules, context, RuleFields::kConfig));
  }
  return server;
}

absl::StatusOr<Config> ReadFields(json::Value root, const std::filesystem::path& folder) {
  if (!root.is_object()) return Invalid("the configuration is not a JSON object");
  AGENTRT_RETURN_IF_ERROR(internal::CheckKnownFields(
      root, {"database", "session", "servers", "policy", "hold", "repeat_window", "max_pending",
             "approval_ttl", "grant_ttl", "status_tool", "lease_ttl"}));
  Config config;
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> database,
                           internal::StringMember(root, "database"));
  if (!database || database->empty()) return Invalid("database is required");
  config.database = Resolve(folder, *database);
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> session,
                           internal::StringMember(root, "session"));
  config.session = session.value_or("");
  if (!internal::IsPlainName(config.session)) {
    return Invalid(absl::StrCat("session ", Quote(config.session),
                                " must be 1 to 64 letters, digits, '_' or '-'"));
  }
  std::optional<json::Value> servers = internal::Member(root, "servers");
  if (servers && !servers->is_array()) return Invalid("\"servers\" is not a list");
  if (!servers || servers->size() == 0) return Invalid("at least one server is required");
  std::set<std::string> names;
  for (std::size_t i = 0; i < servers->size(); ++i) {
    AGENTRT_ASSIGN_OR_RETURN(ServerConfig server,
                             ReadServer(servers->element(i), i, folder, names));
    config.servers.push_back(std::move(server));
  }
  config.policy = DefaultProxyPolicy();
  AGENTRT_RETURN_IF_ERROR(ReadPolicy(root, config.policy));
  AGENTRT_RETURN_IF_ERROR(ReadDuration(root, "hold", config.hold));
  AGENTRT_RETURN_IF_ERROR(ReadDuration(root, "repeat_window", config.repeat_window));
  AGENTRT_RETURN_IF_ERROR(ReadMaxPending(root, config.max_pending));
  AGENTRT_RETURN_IF_ERROR(ReadDuration(root, "approval_ttl", config.approval_ttl));
  AGENTRT_RETURN_IF_ERROR(ReadDuration(root, "grant_ttl", config.grant_ttl));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> status_tool,
                           internal::StringMember(root, "status_tool"));
  if (status_tool) config.status_tool = *status_tool;
  if (!internal::IsPlainName(config.status_tool)) {
    return Invalid(absl::StrCat("status_tool ", Quote(config.status_tool),
                                " does not match ^[a-zA-Z0-9_-]{1,64}$"));
  }
  absl::Duration lease = absl::ZeroDuration();
  AGENTRT_RETURN_IF_ERROR(ReadDuration(root, "lease_ttl", lease));
  // 0 (or none) is the runtime's default; a lease is renewed at a third of its life, so a
  // shorter one would be renewed more often than a second.
  if (lease != absl::ZeroDuration()) {
    if (lease < kShortestLease) {
      return Invalid(absl::StrCat("lease_ttl ", DurationText(lease), " is shorter than ",
                                  DurationText(kShortestLease)));
    }
    config.lease_ttl = lease;
  }
  return config;
}

}  // namespace

std::map<SideEffect, PolicyOutcome> DefaultProxyPolicy() {
  return {{SideEffect::kReadOnly, PolicyOutcome::kAllow},
          {SideEffect::kLocalMutation, PolicyOutcome::kAllow},
          {SideEffect::kRemoteMutation, PolicyOutcome::kRequireApproval},
          {SideEffect::kDestructive, PolicyOutcome::kDeny}};
}

absl::StatusOr<Config> ParseConfig(std::string_view bytes, const std::string& path) {
  std::string where = absl::StrCat("config ", path);
  absl::StatusOr<json::Document> document = json::Parse(bytes);
  if (!document.ok()) {
    return Invalid(absl::StrCat(where, ": not usable JSON: ", document.status().message()));
  }
  // Relative paths are joined to the file's own folder by text alone: a relative `path` leaves
  // them relative, and the system resolves them against the working directory when they are
  // opened, as it resolved `path` itself. Nothing here asks the process where it is.
  absl::StatusOr<Config> config =
      ReadFields(document->root(), std::filesystem::path(path).parent_path());
  if (!config.ok()) return WithContext(where, config.status());
  config->path = path;
  return config;
}

absl::StatusOr<Config> ReadConfig(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> bytes = files.ReadOwned(path, world::kDefaultMaxFileBytes);
  if (!bytes.ok()) return WithContext("config", bytes.status());
  return ParseConfig(*bytes, path);
}

}  // namespace agentrt::mcp
