// runtime/json/members.h
//
// Reading members of a JSON object the engine stored (a payload, a recorded column) without
// caring how each was spelled: the text of a string, the canonical JSON of anything else, an
// integer or a fallback. Pure functions; a missing member is never an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/json/document.h"

namespace agentrt::json {

// MemberText reads a member of `object`: a string's text, any other value's canonical JSON,
// "" when absent.
std::string MemberText(Value object, std::string_view key);

// MemberInt reads an integer member (`fallback` when absent or not an integer).
std::int64_t MemberInt(Value object, std::string_view key, std::int64_t fallback = 0);

}  // namespace agentrt::json
