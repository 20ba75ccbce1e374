// mcp/jsonrpc.h
//
// JSON-RPC 2.0 messages as the MCP client sends and receives them. A
// message that arrives is parsed from its raw bytes by strict intake (runtime/json/intake.h):
// exact-case member names, `jsonrpc` exactly "2.0", an id that is a number or a string, and
// exactly one of a request, a notification, a result or an error. What the client keeps of it
// is canonical JSON (numbers as their literal digits), so a `result` is what the server sent,
// never a float-decoded copy.
//
// Ids: the client numbers its own requests 1, 2, ...; a request from the server keeps its id as
// sent (its raw JSON, number or string), so the answer echoes the id's JSON type exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::mcp {

// JSON-RPC error codes the client sends or names.
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidRequest = -32600;

struct Message {
  enum class Kind { kRequest, kNotification, kResult, kError };
  Kind kind = Kind::kNotification;
  std::string id;               // requests, results, errors: the id's canonical JSON ("7", "\"a\"")
  std::string method;           // requests, notifications
  std::string params;           // canonical JSON; "" when absent
  std::string result;           // results: canonical JSON of `result`
  std::int64_t error_code = 0;  // errors
  std::string error_message;    // errors (server-chosen: quote it before showing it)
};

// ParseMessage reads one message. Errors: InvalidArgument saying what is wrong with it (not
// JSON, not an object, no "jsonrpc":"2.0", an id that is neither a number nor a string, none or
// several of method/result/error, ...); the message's own text is never quoted.
absl::StatusOr<Message> ParseMessage(std::string_view bytes);

// The messages the client writes (compact JSON, no newline). `params` and `result` are JSON
// text; "" leaves params out.
std::string RequestJson(std::int64_t id, std::string_view method, std::string_view params);
std::string NotificationJson(std::string_view method, std::string_view params);
std::string ResultJson(std::string_view id, std::string_view result);
std::string ErrorJson(std::string_view id, int code, std::string_view message);

}  // namespace agentrt::mcp
