// runtime/world/internal/request_text.h
//
// How an error message names a request: its method and URL, never its headers or body (they may
// hold secrets), and never the URL's user information ("user:password@"), which is a credential
// too. Whatever the caller put there is escaped, so a message stays one printable line.
#pragma once

#include <string>
#include <string_view>

#include "runtime/world/network.h"

namespace agentrt::world::internal {

// RequestText is "<method> <url>", e.g. "POST http://127.0.0.1:8080/mcp".
std::string RequestText(const HttpRequest& request);

// UrlText is the URL alone, shown the same way.
std::string UrlText(std::string_view url);

}  // namespace agentrt::world::internal
