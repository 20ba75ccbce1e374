#include "mcp/auth/token.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "mcp/auth/internal/fetch.h"
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
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, internal::ParseAnswer(body, "answer"));
  json::Value root = doc.root();
  TokenResponse out;
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> access,
                           mcp::internal::StringMember(root, "access_token"));
  if (!access.has_value()) return absl::InvalidArgumentError("\"access_token\" is required");
  out.access_token = *std::move(access);
  AGENTRT_RETURN_IF_ERROR(RequireToken("access_token", out.access_token));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> type,
                           mcp::internal::StringMember(root, "token_type"));
  if (!type.has_value()) return absl::InvalidArgumentError("\"token_type\" is required");
  if (!absl::EqualsIgnoreCase(*type, "bearer")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "token_type \"", json::Sanitize(ToStd(absl::string_view(*type).substr(0, kShownBytes))),
        "\" is not Bearer"));
  }
  out.token_type = *std::move(type);
  if (std::optional<json::Value> expires = mcp::internal::Member(root, "expires_in")) {
    std::int64_t seconds = 0;
    if (!expires->is_number() || !absl::SimpleAtoi(ToAbsl(expires->number_literal()), &seconds) ||
        seconds < 0) {
      return absl::InvalidArgumentError("\"expires_in\" is not a non-negative integer");
    }
    out.expires_in = seconds;
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> refresh,
                           mcp::internal::StringMember(root, "refresh_token"));
  if (refresh.has_value()) {
    out.refresh_token = *std::move(refresh);
    AGENTRT_RETURN_IF_ERROR(RequireToken("refresh_token", out.refresh_token));
  }
  AGENTRT_ASSIGN_OR_RETURN(out.scope, mcp::internal::StringMember(root, "scope"));
  return out;
}

std::optional<TokenError> ParseTokenError(std::string_view body) {
  absl::StatusOr<json::Document> doc = internal::ParseAnswer(body, "answer");
  if (!doc.ok()) return std::nullopt;
  absl::StatusOr<std::optional<std::string>> error =
      mcp::internal::StringMember(doc->root(), "error");
  if (!error.ok() || !error->has_value()) return std::nullopt;
  TokenError out;
  out.error = json::Sanitize(ToStd(absl::string_view(**error).substr(0, kShownBytes)));
  absl::StatusOr<std::optional<std::string>> description =
      mcp::internal::StringMember(doc->root(), "error_description");
  if (description.ok() && description->has_value()) {
    out.description =
        json::Sanitize(ToStd(absl::string_view(**description).substr(0, kShownBytes)));
  }
  return out;
}

}  // namespace agentrt::mcp::auth
