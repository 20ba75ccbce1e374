// runtime/json/members.h
//
// Reading members of a JSON object. MemberText and MemberInt read what the engine stored (a
// payload, a recorded column) without caring how each was spelled: the text of a string, the
// canonical JSON of anything else, an integer or a fallback; a missing member is never an
// error. TypedMember and StringMember read what someone else sent (a provider's reply), whose
// shape is checked: a member of the wrong kind is an error naming where it is. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"

namespace agentrt::json {

// MemberText reads a member of `object`: a string's text, any other value's canonical JSON,
// "" when absent.
std::string MemberText(Value object, std::string_view key);

// MemberInt reads an integer member (`fallback` when absent or not an integer).
std::int64_t MemberInt(Value object, std::string_view key, std::int64_t fallback = 0);

// "a number", "an array": what a value is, as an error says what it should have been.
std::string KindWithArticle(Kind kind);

// TypedMember is member `key` of `object` when present and not null, nullopt when absent or
// null; InvalidArgument "<path> is a number, not an array" when it is of another kind than
// `kind`.
absl::StatusOr<std::optional<Value>> TypedMember(Value object, std::string_view key, Kind kind,
                                                 std::string_view path);

// StringMember is the text of the string member `key`, "" when absent or null; TypedMember's
// error when it is not a string.
absl::StatusOr<std::string> StringMember(Value object, std::string_view key, std::string_view path);

}  // namespace agentrt::json
