#include "mcp/auth/token.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/metadata.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp::auth {
namespace {

constexpr std::size_t kShownBytes = 200;

absl::Status RequireToken(std::string_view key, const std::string& value) {
  if (IsTokenText(value)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("\"", ToAbsl(key), "\" is not 1 to ",
                                                 kMaxTokenBytes, " visible ASCII characters"));
}

}  // namespace

bool IsTokenText(std::string_view token) {
  if (token.empty() || token.size() > kMaxTokenBytes) return false;
  for (char c : token) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

absl::StatusOr<TokenResponse> ParseTokenResponse(std::string_view body) {
  if (body.size() > kMaxMetadataBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the answer is over ", kMaxMetadataBytes, " bytes"));
  }
  absl::StatusOr<json::Document> doc = json::Parse(body, {.max_depth = 32});
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("not usable JSON: ", doc.status().message()));
  }
  json::Value root = doc->root();
  if (!root.is_object()) return absl::InvalidArgumentError("not a JSON object");
  TokenResponse out;
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> access,
                           internal::StringMember(root, "access_token"));
  if (!access.has_value()) return absl::InvalidArgumentError("\"access_token\" is required");
  out.access_token = *std::move(access);
  AGENTRT_RETURN_IF_ERROR(RequireToken("access_token", out.access_token));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> type,
                           internal::StringMember(root, "token_type"));
  if (!type.has_value()) return absl::InvalidArgumentError("\"token_type\" is required");
  if (!absl::EqualsIgnoreCase(*type, "bearer")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "token_type \"", json::Sanitize(ToStd(absl::string_view(*type).substr(0, kShownBytes))),
        "\" is not Bearer"));
  }
  out.token_type = *std::move(type);
  if (std::optional<json::Value> expires = internal::Member(root, "expires_in")) {
    std::int64_t seconds = 0;
    if (!expires->is_number() || !absl::SimpleAtoi(ToAbsl(expires->number_literal()), &seconds) ||
        seconds < 0) {
      return absl::InvalidArgumentError("\"expires_in\" is not a non-negative integer");
    }
    out.expires_in = seconds;
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> refresh,
                           internal::StringMember(root, "refresh_token"));
  if (refresh.has_value()) {
    out.refresh_token = *std::move(refresh);
    AGENTRT_RETURN_IF_ERROR(RequireToken("refresh_token", out.refresh_token));
  }
  AGENTRT_ASSIGN_OR_RETURN(out.scope, internal::StringMember(root, "scope"));
  return out;
}

std::optional<TokenError> ParseTokenError(std::string_view body) {
  if (body.size() > kMaxMetadataBytes) return std::nullopt;
  absl::StatusOr<json::Document> doc = json::Parse(body, {.max_depth = 32});
  if (!doc.ok() || !doc->root().is_object()) return std::nullopt;
  absl::StatusOr<std::optional<std::string>> error = internal::StringMember(doc->root(), "error");
  if (!error.ok() || !error->has_value()) return std::nullopt;
  TokenError out;
  out.error = json::Sanitize(ToStd(absl::string_view(**error).substr(0, kShownBytes)));
  absl::StatusOr<std::optional<std::string>> description =
      internal::StringMember(doc->root(), "error_description");
  if (description.ok() && description->has_value()) {
    out.description =
        json::Sanitize(ToStd(absl::string_view(**description).substr(0, kShownBytes)));
  }
  return out;
}

}  // namespace agentrt::mcp::auth
