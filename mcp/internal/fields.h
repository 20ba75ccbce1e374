// mcp/internal/fields.h
//
// Reading the operator's JSON files (manifest, rules, configuration) strictly: a member whose key
// is not a known field is refused by name (a misspelt `denny` must never be ignored), and a
// member of the wrong kind is refused by name. Keys match exactly. A member that is absent or
// JSON null reads as nullopt: both say "nothing here".
//
// Messages are the field's own part (`unknown field "denny"`, `"deny" is not a list of
// strings`); the caller says where (`tool "pay": `). Keys are quoted with Quote (errors.h).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/json/document.h"

namespace agentrt::mcp::internal {

// CheckKnownFields refuses the first member (in canonical key order) of `object` whose key is
// not one of `known`: InvalidArgument `unknown field "<key>"`.
absl::Status CheckKnownFields(json::Value object, std::initializer_list<std::string_view> known);

// The member `key` of `object`, nullopt when absent or null.
std::optional<json::Value> Member(json::Value object, std::string_view key);

// Typed members. Errors: InvalidArgument `"<key>" is not a string` (a boolean, a JSON object,
// a list of strings).
absl::StatusOr<std::optional<std::string>> StringMember(json::Value object, std::string_view key);
absl::StatusOr<std::optional<bool>> BoolMember(json::Value object, std::string_view key);
absl::StatusOr<std::optional<json::Value>> ObjectMember(json::Value object, std::string_view key);
absl::StatusOr<std::optional<std::vector<std::string>>> StringsMember(json::Value object,
                                                                      std::string_view key);

// What a negative duration means where it is read.
enum class Negative { kRefused, kZero };

// DurationMember reads a duration string (duration.h). "" reads as 0 when `empty_is_zero`.
// Errors: InvalidArgument `<key>: a duration is a string such as "15s"`, `<key>: <parse
// error>`, `<key>: duration "<text>" is negative` (kRefused).
absl::StatusOr<std::optional<absl::Duration>> DurationMember(json::Value object,
                                                             std::string_view key,
                                                             Negative negative,
                                                             bool empty_is_zero = false);

// IsPlainName: ^[a-zA-Z0-9_-]{1,64}$, the form of a model-visible tool name, a session and the
// status tool's name.
bool IsPlainName(std::string_view name);

// WithContext is `status` with "<context>: " before its message (code kept).
absl::Status WithContext(std::string_view context, const absl::Status& status);

}  // namespace agentrt::mcp::internal
