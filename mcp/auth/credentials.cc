#include "mcp/auth/credentials.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/timestamp.h"

namespace agentrt::mcp::auth {
namespace {

constexpr std::size_t kMaxCredentialsBytes = 256 * 1024;

absl::Status Read(json::Value root, std::string_view key, std::string* out) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> value, internal::StringMember(root, key));
  *out = value.value_or("");
  return absl::OkStatus();
}

absl::Status ReadSecret(json::Value root, std::string_view key, world::Secret* out) {
  std::string text;
  AGENTRT_RETURN_IF_ERROR(Read(root, key, &text));
  *out = world::Secret(std::move(text));
  return absl::OkStatus();
}

}  // namespace

std::string CredentialsJson(const Credentials& c) {
  json::JsonObject object;
  object.StringIfSet("server", c.server)
      .StringIfSet("resource", c.resource)
      .StringIfSet("issuer", c.issuer)
      .StringIfSet("token_endpoint", c.token_endpoint)
      .StringIfSet("client_id", c.client_id)
      .StringIfSet("client_secret", c.client_secret.Reveal())
      .StringIfSet("token_endpoint_auth_method", c.token_endpoint_auth_method)
      .StringIfSet("redirect_uri", c.redirect_uri)
      .StringIfSet("access_token", c.access_token.Reveal())
      .StringIfSet("refresh_token", c.refresh_token.Reveal())
      .StringIfSet("scope", c.scope);
  if (c.expires_at != absl::InfiniteFuture()) {
    object.String("expires_at", world::FormatTimestamp(c.expires_at));
  }
  return object.Build() + "\n";
}

absl::StatusOr<Credentials> ParseCredentials(std::string_view text) {
  absl::StatusOr<json::Document> doc = json::Parse(text, {.max_depth = 8});
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("not usable JSON: ", doc.status().message()));
  }
  json::Value root = doc->root();
  if (!root.is_object()) return absl::InvalidArgumentError("not a JSON object");
  AGENTRT_RETURN_IF_ERROR(internal::CheckKnownFields(
      root, {"server", "resource", "issuer", "token_endpoint", "client_id", "client_secret",
             "token_endpoint_auth_method", "redirect_uri", "access_token", "refresh_token",
             "expires_at", "scope"}));
  Credentials c;
  AGENTRT_RETURN_IF_ERROR(Read(root, "server", &c.server));
  AGENTRT_RETURN_IF_ERROR(Read(root, "resource", &c.resource));
  AGENTRT_RETURN_IF_ERROR(Read(root, "issuer", &c.issuer));
  AGENTRT_RETURN_IF_ERROR(Read(root, "token_endpoint", &c.token_endpoint));
  AGENTRT_RETURN_IF_ERROR(Read(root, "client_id", &c.client_id));
  AGENTRT_RETURN_IF_ERROR(ReadSecret(root, "client_secret", &c.client_secret));
  AGENTRT_RETURN_IF_ERROR(Read(root, "token_endpoint_auth_method", &c.token_endpoint_auth_method));
  AGENTRT_RETURN_IF_ERROR(Read(root, "redirect_uri", &c.redirect_uri));
  AGENTRT_RETURN_IF_ERROR(ReadSecret(root, "access_token", &c.access_token));
  AGENTRT_RETURN_IF_ERROR(ReadSecret(root, "refresh_token", &c.refresh_token));
  AGENTRT_RETURN_IF_ERROR(Read(root, "scope", &c.scope));
  std::string expires;
  AGENTRT_RETURN_IF_ERROR(Read(root, "expires_at", &expires));
  if (!expires.empty()) {
    absl::StatusOr<absl::Time> at = world::ParseTimestamp(expires);
    if (!at.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("\"expires_at\": ", at.status().message()));
    }
    c.expires_at = *at;
  }
  return c;
}

absl::StatusOr<std::optional<Credentials>> MemoryTokenStore::Load() {
  absl::MutexLock lock(&mu_);
  return saved_;
}

absl::Status MemoryTokenStore::Save(const Credentials& credentials) {
  absl::MutexLock lock(&mu_);
  saved_ = credentials;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Credentials>> FileTokenStore::Load() {
  std::string where = absl::StrCat("credentials file ", json::Quoted(path_));
  absl::StatusOr<std::string> text =
      world::ReadOwnerOnly(files_, path_, kMaxCredentialsBytes, "credentials");
  if (absl::IsNotFound(text.status())) return std::nullopt;  // no login yet
  if (!text.ok()) return text.status();
  absl::StatusOr<Credentials> parsed = ParseCredentials(*text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", parsed.status().message()));
  }
  return std::make_optional(*std::move(parsed));
}

absl::Status FileTokenStore::Save(const Credentials& credentials) {
  return files_.WriteAtomically(path_, CredentialsJson(credentials), "credentials file");
}

}  // namespace agentrt::mcp::auth
