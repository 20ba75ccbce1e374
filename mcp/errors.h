// mcp/errors.h
//
// How the MCP side words its errors. Every message names the server (`mcp: server "fs": ...`),
// and every piece of text a server chose — a tool name, a description, a JSON-RPC error message,
// its stderr — is quoted and escaped before it joins a message, so no error a server provokes
// can move a terminal's cursor, forge a log line or hide text (docs/security.md).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace agentrt::mcp {

// The longest server-chosen text a message quotes; the rest is counted, not shown.
inline constexpr std::size_t kQuotedBytes = 200;

// Quote is `text` as one double-quoted, escaped, bounded line (json::QuoteBytes).
std::string Quote(std::string_view text);

// ServerPrefix is `mcp: server "<name>": `.
std::string ServerPrefix(std::string_view server);

// ServerError is `status` with its message prefixed by ServerPrefix(server) (code and payloads
// kept).
absl::Status ServerError(std::string_view server, const absl::Status& status);

}  // namespace agentrt::mcp
