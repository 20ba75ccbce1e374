// mcp/proxy/request_key.h
//
// What makes two host calls "the same request" to the proxy (docs/proxy.md, "One call"): the
// model-visible tool name and the arguments in canonical JSON, hashed. Key order, whitespace and
// string escaping do not matter; string contents and number literals do (`10`, `10.0`, `1e1` and
// `"10"` are four requests), because canonical JSON keeps a number's literal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::proxy {

// HostArguments is what a host's `arguments` stand for: absent, blank or `null` is `{}`;
// anything else is kept as sent.
std::string HostArguments(std::string_view arguments);

// RequestKey is the lowercase hex SHA-256 of the tool's name, one 0x00 byte, and the canonical
// JSON of `arguments` (after HostArguments). Arguments canonical JSON refuses (a repeated key, a
// lone surrogate, invalid UTF-8, a number past the bound, trailing bytes) have no key: such a
// call never matches or collects anything.
std::optional<std::string> RequestKey(std::string_view tool, std::string_view arguments);

}  // namespace agentrt::proxy
