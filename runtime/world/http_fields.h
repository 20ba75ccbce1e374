// runtime/world/http_fields.h
//
// HTTP header fields (and query parameters) as a list of (name, value) in the order they were
// sent, names as spelled: what both sides of HTTP in runtime/world speak, the server's
// (http_service.h) and the client's (network.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentrt::world {

using HttpFields = std::vector<std::pair<std::string, std::string>>;

// FindHeader is the first value of the field `name`, compared without regard to case (header
// names are case-insensitive); nullopt when absent.
std::optional<std::string> FindHeader(const HttpFields& fields, std::string_view name);

}  // namespace agentrt::world
