// mcp/auth/token.h
//
// What a token endpoint answers (RFC 6749 §5.1 and §5.2), judged before anything is kept:
//  - a success is a JSON object with `access_token` and `token_type`; only the Bearer type is
//    spoken (matched without regard to case, RFC 6749 §5.1); `expires_in` is a non-negative
//    integer of seconds; `refresh_token` and `scope` are optional strings;
//  - a token must be usable as it will be sent: 1..kMaxTokenBytes of visible ASCII, so nothing a
//    server sends can become a second header line or a space inside `Bearer <token>`;
//  - an error is `error` (and `error_description`), which ParseTokenError reads for the message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::mcp::auth {

inline constexpr std::size_t kMaxTokenBytes = 16 * 1024;

struct TokenResponse {
  std::string access_token;
  std::string token_type;                  // "Bearer", as the server spelt it
  std::optional<std::int64_t> expires_in;  // seconds
  std::string refresh_token;               // "" when none
  std::optional<std::string> scope;        // the granted scope, when the server said
};

// ParseTokenResponse reads a success. Errors: InvalidArgument `not usable JSON: ...`, `not a JSON
// object`, `"access_token" is required`, `"token_type" is required`, `token_type "<t>" is not
// Bearer`, `"expires_in" is not a non-negative integer`, `"access_token" is not 1 to 16384
// visible ASCII characters`, ...
absl::StatusOr<TokenResponse> ParseTokenResponse(std::string_view body);

// An OAuth error answer (RFC 6749 §5.2): `error` and its description, sanitized and bounded.
struct TokenError {
  std::string error;
  std::string description;
};

// ParseTokenError reads `body` as an error answer; nullopt when it is not one.
std::optional<TokenError> ParseTokenError(std::string_view body);

// IsTokenText: 1..kMaxTokenBytes characters, each visible ASCII (0x21..0x7E).
bool IsTokenText(std::string_view token);

}  // namespace agentrt::mcp::auth
