#include "mcp/config.h"

#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/metadata.h"
#include "mcp/duration.h"
#include "mcp/errors.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/store/store.h"
#include "runtime/world/child_env.h"
#include "runtime/world/url.h"

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

absl::Status ReadInt(json::Value object, std::string_view key, int low, int high, int& out) {
  std::optional<json::Value> value = internal::Member(object, key);
  if (!value) return absl::OkStatus();
  int n = 0;
  std::string_view literal = value->is_number() ? value->number_literal() : "";
  bool integer = !literal.empty() && literal.find_first_of(".eE") == std::string_view::npos;
  if (!integer || !absl::SimpleAtoi(ToAbsl(literal), &n) || n < low || n > high) {
    return Invalid(absl::StrCat(ToAbsl(key), " is not an integer from ", low, " to ", high));
  }
  out = n;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadString(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> value, internal::StringMember(object, key));
  return value.value_or("");
}

// Reads a server's `auth` block (docs/mcp.md, "Authorized servers").
absl::StatusOr<auth::AuthConfig> ReadAuth(json::Value object, const ServerConfig& server,
                                          const std::filesystem::path& folder) {
  if (!object.is_object()) return Invalid("not a JSON object");
  AGENTRT_RETURN_IF_ERROR(internal::CheckKnownFields(
      object, {"grant", "client_id", "client_secret_env", "client_secret_file", "private_key_env",
               "private_key_file", "signing_alg", "token_endpoint_auth_method",
               "client_metadata_url", "client_name", "credentials", "redirect_port", "max_step_ups",
               "idp_token_endpoint", "idp_client_id", "idp_id_token_env", "idp_id_token_file"}));
  if (server.endpoint.empty()) {
    return Invalid("only a server reached over HTTP (an endpoint) is authorized to");
  }
  absl::StatusOr<world::Url> url = world::ParseUrl(server.endpoint);
  if (!url.ok()) return WithContext("endpoint", url.status());
  if (url->scheme == "http" && !world::IsLoopbackHost(url->host)) {
    return Invalid(absl::StrCat("refusing to send tokens over plain http to ",
                                json::Sanitize(url->host), ", which is not this machine"));
  }
  auth::AuthConfig out;
  auth::AuthSettings& s = out.settings;
  AGENTRT_ASSIGN_OR_RETURN(std::string grant, ReadString(object, "grant"));
  if (grant == "client_credentials") {
    s.grant = auth::Grant::kClientCredentials;
  } else if (grant == "identity_assertion") {
    s.grant = auth::Grant::kIdentityAssertion;
  } else if (!grant.empty() && grant != "authorization_code") {
    return Invalid(absl::StrCat("grant ", Quote(grant),
                                " is not authorization_code, client_credentials or "
                                "identity_assertion"));
  }

  AGENTRT_ASSIGN_OR_RETURN(s.client_id, ReadString(object, "client_id"));
  AGENTRT_ASSIGN_OR_RETURN(out.client_secret.env, ReadString(object, "client_secret_env"));
  AGENTRT_ASSIGN_OR_RETURN(std::string secret_file, ReadString(object, "client_secret_file"));
  if (!secret_file.empty()) out.client_secret.file = Resolve(folder, secret_file);
  AGENTRT_ASSIGN_OR_RETURN(out.private_key.env, ReadString(object, "private_key_env"));
  AGENTRT_ASSIGN_OR_RETURN(std::string key_file, ReadString(object, "private_key_file"));
  if (!key_file.empty()) out.private_key.file = Resolve(folder, key_file);
  if (!out.client_secret.env.empty() && !out.client_secret.file.empty()) {
    return Invalid("client_secret_env and client_secret_file are both set");
  }
  if (!out.private_key.env.empty() && !out.private_key.file.empty()) {
    return Invalid("private_key_env and private_key_file are both set");
  }
  bool has_secret = !out.client_secret.env.empty() || !out.client_secret.file.empty();
  bool has_key = !out.private_key.env.empty() || !out.private_key.file.empty();
  if (has_secret && has_key) {
    return Invalid("a client authenticates with a secret or a private key, not both");
  }
  if ((has_secret || has_key) && s.client_id.empty()) {
    return Invalid("a client secret or private key belongs to a client_id; set it");
  }
  if (s.grant == auth::Grant::kClientCredentials &&
      (s.client_id.empty() || !(has_secret || has_key))) {
    return Invalid(
        "the client_credentials grant needs client_id with a client secret or a private "
        "key");
  }
  AGENTRT_ASSIGN_OR_RETURN(s.idp_token_endpoint, ReadString(object, "idp_token_endpoint"));
  AGENTRT_ASSIGN_OR_RETURN(s.idp_client_id, ReadString(object, "idp_client_id"));
  AGENTRT_ASSIGN_OR_RETURN(out.idp_id_token.env, ReadString(object, "idp_id_token_env"));
  AGENTRT_ASSIGN_OR_RETURN(std::string id_token_file, ReadString(object, "idp_id_token_file"));
  if (!id_token_file.empty()) out.idp_id_token.file = Resolve(folder, id_token_file);
  bool has_idp = !s.idp_token_endpoint.empty() || !s.idp_client_id.empty() ||
                 !out.idp_id_token.env.empty() || !out.idp_id_token.file.empty();
  if (s.grant == auth::Grant::kIdentityAssertion) {
    if (s.client_id.empty() || !(has_secret || has_key)) {
      return Invalid(
          "the identity_assertion grant needs client_id with a client secret or a private key");
    }
    if (s.idp_token_endpoint.empty() ||
        out.idp_id_token.env.empty() == out.idp_id_token.file.empty()) {
      return Invalid(
          "the identity_assertion grant needs idp_token_endpoint and one of idp_id_token_env or "
          "idp_id_token_file");
    }
    if (absl::Status usable = auth::CheckEndpoint(s.idp_token_endpoint); !usable.ok()) {
      return Invalid(absl::StrCat("idp_token_endpoint: ", usable.message()));
    }
  } else if (has_idp) {
    return Invalid("the idp_ fields belong to the identity_assertion grant");
  }
  AGENTRT_ASSIGN_OR_RETURN(std::string alg, ReadString(object, "signing_alg"));
  if (!alg.empty()) {
    if (alg != "ES256" && alg != "RS256") {
      return Invalid(absl::StrCat("signing_alg ", Quote(alg), " is not ES256 or RS256"));
    }
    s.signing_alg = alg;
  }
  AGENTRT_ASSIGN_OR_RETURN(s.token_endpoint_auth_method,
                           ReadString(object, "token_endpoint_auth_method"));
  const std::string& method = s.token_endpoint_auth_method;
  if (!method.empty() && method != "client_secret_basic" && method != "client_secret_post" &&
      method != "none" && method != "private_key_jwt") {
    return Invalid(absl::StrCat("token_endpoint_auth_method ", Quote(method),
                                " is not client_secret_basic, client_secret_post, none or "
                                "private_key_jwt"));
  }
  if ((method == "private_key_jwt") != has_key && !method.empty()) {
    return Invalid("private_key_jwt goes with a private key, and a private key with it");
  }
  if ((method == "client_secret_basic" || method == "client_secret_post") && !has_secret) {
    return Invalid(absl::StrCat("", method, " needs a client secret"));
  }
  AGENTRT_ASSIGN_OR_RETURN(s.client_metadata_url, ReadString(object, "client_metadata_url"));
  if (!s.client_metadata_url.empty()) {
    absl::StatusOr<world::Url> cimd = world::ParseUrl(s.client_metadata_url);
    if (!cimd.ok() || cimd->scheme != "https" || cimd->path.size() <= 1) {
      return Invalid("client_metadata_url must be an https URL with a path");
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(std::string client_name, ReadString(object, "client_name"));
  if (!client_name.empty()) s.client_name = client_name;
  AGENTRT_ASSIGN_OR_RETURN(std::string credentials, ReadString(object, "credentials"));
  out.credentials = Resolve(
      folder, credentials.empty() ? absl::StrCat(server.name, ".credentials.json") : credentials);
  AGENTRT_RETURN_IF_ERROR(ReadInt(object, "redirect_port", 0, 65535, out.redirect_port));
  AGENTRT_RETURN_IF_ERROR(ReadInt(object, "max_step_ups", 0, 10, s.max_step_ups));
  return out;
}

// Reads servers[index]; `names` holds the names of the servers before it.
absl::StatusOr<ServerConfig> ReadServer(json::Value object, std::size_t index,
                                        const std::filesystem::path& folder,
                                        std::set<std::string>& names) {
  std::string at = absl::StrCat("servers[", index, "]");
  if (!object.is_object()) return Invalid(absl::StrCat(at, ": not a JSON object"));
  absl::Status known = internal::CheckKnownFields(
      object, {"name", "command", "endpoint", "env", "inherit_env", "connect_timeout",
               "default_timeout", "manifest", "rules", "skip_path_check", "auth"});
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
    if (std::optional<json::Value> block = internal::Member(object, "auth")) {
      absl::StatusOr<auth::AuthConfig> read = ReadAuth(*block, server, folder);
      if (!read.ok()) return WithContext("auth", read.status());
      server.auth = *std::move(read);
    }
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
  // A server's URL is used as it is; a file's path is the config's folder's.
  config.database = store::IsServerUrl(*database) ? *database : Resolve(folder, *database);
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
  for (ServerConfig& server : config->servers) {
    if (server.auth.has_value()) {
      server.auth->settings.login_command =
          absl::StrCat("agentrt mcp login --config ", path, " --server ", server.name);
    }
  }
  return config;
}

absl::StatusOr<Config> ReadConfig(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> bytes = files.ReadOwned(path, world::kDefaultMaxFileBytes);
  if (!bytes.ok()) return WithContext("config", bytes.status());
  return ParseConfig(*bytes, path);
}

}  // namespace agentrt::mcp
