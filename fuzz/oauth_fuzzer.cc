// What a hostile MCP server or authorization server hands the OAuth client (mcp/auth/): the
// input's first byte picks the parser, the rest is what arrived.
//   0  a WWW-Authenticate header: ParseChallenges never crashes; a refusal names a byte offset;
//      an accepted header has non-empty lowercase schemes, each challenge a token68 or
//      parameters with lowercase names, none twice; FindBearer over it agrees with the parse.
//   1  protected resource metadata, 2  authorization server metadata: never crash; an accepted
//      document has its required members and every endpoint it names passes CheckEndpoint
//      (https, or http to a loopback host; no user information, no fragment).
//   3  a token endpoint's answer: an accepted one is Bearer, its tokens 1..16384 visible ASCII
//      (nothing that could become a second header line), expires_in >= 0.
//   4  a form body or query: FormDecode never crashes, and what it accepts encodes and decodes
//      back to the same fields.
//   5  an answer a cassette records redacted: the JSON redactor fed the answer whole, in chunks
//      its own bytes choose, and a byte at a time gives the same bytes; redacting twice changes
//      nothing more; the form redactor likewise.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "mcp/auth/form.h"
#include "mcp/auth/metadata.h"
#include "mcp/auth/token.h"
#include "mcp/auth/www_authenticate.h"
#include "runtime/replay/internal/secret_redactor.h"

namespace {

namespace auth = agentrt::mcp::auth;
using agentrt::replay::internal::JsonRedactor;
using agentrt::replay::internal::RedactForm;

void Check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

bool IsLower(std::string_view s) {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return false;
  }
  return true;
}

void Challenges(std::string_view header) {
  absl::StatusOr<std::vector<auth::Challenge>> parsed = auth::ParseChallenges(header);
  if (!parsed.ok()) {
    Check(parsed.status().message().find("at byte") != std::string_view::npos,
          "a refusal names its byte");
    return;
  }
  const auth::Challenge* bearer = nullptr;
  for (const auth::Challenge& c : *parsed) {
    Check(!c.scheme.empty() && IsLower(c.scheme), "a scheme is lowercase");
    Check(c.token68.empty() || c.params.empty(), "a token68 or parameters");
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      Check(IsLower(c.params[i].first), "parameter names are lowercase");
      for (std::size_t j = 0; j < i; ++j) Check(c.params[i].first != c.params[j].first, "once");
    }
    if (bearer == nullptr && c.scheme == "bearer") bearer = &c;
  }
  auth::BearerChallenge found = auth::FindBearer({{"WWW-Authenticate", std::string(header)}});
  Check(found.present == (bearer != nullptr), "FindBearer sees the Bearer challenge");
  if (bearer != nullptr) {
    Check(found.scope == bearer->Param("scope").value_or(""), "FindBearer's scope");
    Check(found.resource_metadata == bearer->Param("resource_metadata").value_or(""),
          "FindBearer's resource_metadata");
  }
}

void Endpoint(const std::string& url) {
  if (!url.empty()) Check(auth::CheckEndpoint(url).ok(), "an accepted endpoint is usable");
}

void Redactors(std::string_view body) {
  JsonRedactor whole;
  std::string once = whole.Feed(body);
  JsonRedactor chunked;
  std::string pieces;
  for (std::size_t at = 0; at < body.size();) {
    std::size_t length = 1 + static_cast<unsigned char>(body[at]) % 7;
    pieces += chunked.Feed(body.substr(at, length));
    at += length;
  }
  Check(pieces == once, "the JSON redactor agrees across chunks");
  JsonRedactor again;
  Check(again.Feed(once) == once, "redacting twice changes nothing");
  std::string form = RedactForm(body);
  Check(RedactForm(form) == form, "the form redactor is a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      Challenges(input);
      break;
    case 1:
      if (absl::StatusOr<auth::ResourceMetadata> m = auth::ParseResourceMetadata(input); m.ok()) {
        Check(!m->resource.empty(), "a resource");
      }
      break;
    case 2:
      if (absl::StatusOr<auth::ServerMetadata> m = auth::ParseServerMetadata(input); m.ok()) {
        Check(!m->issuer.empty() && !m->token_endpoint.empty(), "issuer and token endpoint");
        Endpoint(m->authorization_endpoint);
        Endpoint(m->token_endpoint);
        Endpoint(m->registration_endpoint);
      }
      break;
    case 3:
      if (absl::StatusOr<auth::TokenResponse> t = auth::ParseTokenResponse(input); t.ok()) {
        Check(auth::IsTokenText(t->access_token), "the access token is sendable");
        Check(t->refresh_token.empty() || auth::IsTokenText(t->refresh_token), "refresh token");
        Check(absl::EqualsIgnoreCase(t->token_type, "bearer"), "Bearer");
        Check(!t->expires_in.has_value() || *t->expires_in >= 0, "expires_in >= 0");
      }
      auth::ParseTokenError(input);
      break;
    case 4:
      if (absl::StatusOr<agentrt::world::HttpFields> fields = auth::FormDecode(input);
          fields.ok()) {
        absl::StatusOr<agentrt::world::HttpFields> back =
            auth::FormDecode(auth::FormEncode(*fields));
        Check(back.ok() && *back == *fields, "form fields round-trip");
      }
      break;
    default:
      Redactors(input);
      break;
  }
  return 0;
}
