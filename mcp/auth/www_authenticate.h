// mcp/auth/www_authenticate.h
//
// The `WWW-Authenticate` header of a 401 or 403 (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1):
// what a protected MCP server says about how to authorize. Its grammar is a list of challenges,
// each a scheme followed by a token68 or by comma-separated `name=value` parameters (a token or
// a quoted string), where a new challenge begins at the first list item that is not a
// parameter. The parser takes exactly that grammar and nothing looser: a parameter given twice
// in one challenge (which value would a client believe?), an unterminated quoted string, a
// control character or a header over kMaxChallengeBytes is refused with the byte offset.
//
// What the client reads from it is the Bearer challenge: `resource_metadata` (where the
// protected resource metadata is), `scope` (what the request needs), `error` (`invalid_token`,
// `insufficient_scope`) and `error_description`. A server's words, so they are judged, never
// trusted: the URL is checked like every other before a request goes there (discovery.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/world/http_fields.h"

namespace agentrt::mcp::auth {

// The longest header value the parser reads.
inline constexpr std::size_t kMaxChallengeBytes = 16 * 1024;

struct Challenge {
  std::string scheme;   // lowercased: "bearer", "basic", ...
  std::string token68;  // the token68 form's value, "" when the challenge has parameters
  std::vector<std::pair<std::string, std::string>> params;  // names lowercased, values unquoted

  // Param is the value of `name` (lowercase), nullopt when the challenge has none.
  std::optional<std::string> Param(std::string_view name) const;
};

// ParseChallenges parses one header value. Errors: InvalidArgument `WWW-Authenticate: <why> at
// byte <n>`.
absl::StatusOr<std::vector<Challenge>> ParseChallenges(std::string_view header);

// What a Bearer challenge asks for; every field "" when absent.
struct BearerChallenge {
  bool present = false;  // a Bearer challenge was found
  std::string resource_metadata;
  std::string scope;
  std::string error;
  std::string error_description;
};

// FindBearer reads the first Bearer challenge of every `WWW-Authenticate` field in `headers`.
// A field that does not parse is skipped (the client then discovers by the well-known paths, as
// it would with no header), and so is everything of another scheme.
BearerChallenge FindBearer(const world::HttpFields& headers);

}  // namespace agentrt::mcp::auth
