// mcp/auth/internal/fetch.h
//
// One request of the authorization flow (a metadata document, a registration, a token) through
// the injected Network, answered whole: the body read to its end by the deadline and bounded by
// kMaxMetadataBytes (a longer one is refused by the network before it is held, by name), a
// redirect never followed (its error names only the Location's host).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/json/document.h"
#include "runtime/world/http_fields.h"
#include "runtime/world/network.h"

namespace agentrt::mcp::auth::internal {

struct Answer {
  int status = 0;
  world::HttpFields headers;
  std::string body;
};

// Fetch sends `request` and reads its answer. Errors: the network's (naming the URL as the network
// does), FailedPrecondition `answered HTTP <n>; redirects are not followed; ...` for a 3xx.
absl::StatusOr<Answer> Fetch(world::Network& network, world::HttpRequest request,
                             absl::Time deadline);

// ParseAnswer reads what a server of the flow answered as one JSON object: at most
// kMaxMetadataBytes, strict intake (no repeated key, valid UTF-8), 32 levels deep. `what` names
// it in the size refusal. Errors: InvalidArgument `the <what> is over <n> bytes`, `not usable
// JSON: <intake error>`, `not a JSON object`.
absl::StatusOr<json::Document> ParseAnswer(std::string_view body, std::string_view what);

// RefusalNote is what an error says of an answer that is not a success: ` (HTTP <n>)`, then
// `: <error>[: <description>]` when the body is an OAuth error (token.h's ParseTokenError).
std::string RefusalNote(const Answer& answer);

// GetJson is a GET that accepts JSON; PostForm and PostJson send a body of that type and are
// marked as carrying secrets (a recording redacts them, world::HttpRequest::carries_secrets).
world::HttpRequest GetJson(std::string url);
world::HttpRequest PostForm(std::string url, const world::HttpFields& form);
world::HttpRequest PostJson(std::string url, std::string json);

}  // namespace agentrt::mcp::auth::internal
