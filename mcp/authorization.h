// mcp/authorization.h
//
// How the streamable HTTP transport (http_transport.h) carries authorization without knowing
// OAuth: before each request it asks for the `Authorization` header's value, and when the server
// refuses a request (401, or 403) it hands the refusal over and, when told to, sends the same
// request once more. mcp/auth/authorizer.h is the implementation that speaks MCP's OAuth
// profile; a test may plant its own.
//
// Thread-safety: one transport calls one Authorization from its sending thread.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/http_fields.h"

namespace agentrt::mcp {

class Authorization {
 public:
  virtual ~Authorization() = default;

  // Header is the value of the `Authorization` header for the next request ("Bearer <token>"),
  // or "" to send none yet (the server's 401 then says how to authorize). It may refresh an
  // expired token first. Errors end the request (a refresh that broke the rules, a token that
  // must not be sent to this server).
  virtual absl::StatusOr<std::string> Header(absl::Time deadline) = 0;

  // Refused is told that the server answered `status` (401 or 403) with `headers` (its
  // WWW-Authenticate among them). OK means a new credential is ready and the request should be
  // sent again; an error (naming why) ends the request with it. Implementations bound how many
  // times in a row they answer OK, so a server that refuses every token cannot loop a client.
  virtual absl::Status Refused(int status, const world::HttpFields& headers,
                               absl::Time deadline) = 0;
};

}  // namespace agentrt::mcp
