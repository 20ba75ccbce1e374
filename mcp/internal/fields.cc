#include "mcp/internal/fields.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "mcp/duration.h"
#include "mcp/errors.h"
#include "runtime/base/string_view.h"

namespace agentrt::mcp::internal {
namespace {

absl::Status NotA(std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(Quote(key), " is not ", ToAbsl(what)));
}

}  // namespace

absl::Status CheckKnownFields(json::Value object, std::initializer_list<std::string_view> known) {
  for (std::size_t i = 0; i < object.size(); ++i) {
    std::string_view key = object.key(i);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown field ", Quote(key)));
    }
  }
  return absl::OkStatus();
}

std::optional<json::Value> Member(json::Value object, std::string_view key) {
  std::optional<json::Value> value = object.Find(key);
  if (value && value->is_null()) return std::nullopt;
  return value;
}

absl::StatusOr<std::optional<std::string>> StringMember(json::Value object, std::string_view key) {
  std::optional<json::Value> value = Member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_string()) return NotA(key, "a string");
  return std::string(value->string_value());
}

absl::StatusOr<std::optional<bool>> BoolMember(json::Value object, std::string_view key) {
  std::optional<json::Value> value = Member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_bool()) return NotA(key, "a boolean");
  return value->bool_value();
}

absl::StatusOr<std::optional<json::Value>> ObjectMember(json::Value object, std::string_view key) {
  std::optional<json::Value> value = Member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_object()) return NotA(key, "a JSON object");
  return value;
}

absl::StatusOr<std::optional<std::vector<std::string>>> StringsMember(json::Value object,
                                                                      std::string_view key) {
  std::optional<json::Value> value = Member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_array()) return NotA(key, "a list of strings");
  std::vector<std::string> out;
  out.reserve(value->size());
  for (std::size_t i = 0; i < value->size(); ++i) {
    json::Value element = value->element(i);
    if (!element.is_string()) return NotA(key, "a list of strings");
    out.emplace_back(element.string_value());
  }
  return out;
}

absl::StatusOr<std::optional<absl::Duration>> DurationMember(json::Value object,
                                                             std::string_view key,
                                                             Negative negative,
                                                             bool empty_is_zero) {
  std::optional<json::Value> value = Member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(key), ": a duration is a string such as \"15s\""));
  }
  std::string_view text = value->string_value();
  if (text.empty() && empty_is_zero) return absl::ZeroDuration();
  absl::StatusOr<absl::Duration> d = ParseDurationText(text);
  if (!d.ok()) return WithContext(key, d.status());
  if (*d < absl::ZeroDuration()) {
    if (negative == Negative::kZero) return absl::ZeroDuration();
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(key), ": duration ", Quote(text), " is negative"));
  }
  return *d;
}

absl::Status WithContext(std::string_view context, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(ToAbsl(context), ": ", status.message()));
}

bool IsPlainName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace agentrt::mcp::internal
