#include "runtime/json/members.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"

namespace agentrt::json {

std::string MemberText(Value object, std::string_view key) {
  std::optional<Value> v = object.Find(key);
  if (!v) return "";
  return v->is_string() ? std::string(v->string_value()) : WriteCanonical(*v);
}

std::int64_t MemberInt(Value object, std::string_view key, std::int64_t fallback) {
  std::optional<Value> v = object.Find(key);
  std::int64_t value = 0;
  if (!v || !v->is_number() || !absl::SimpleAtoi(ToAbsl(v->number_literal()), &value)) {
    return fallback;
  }
  return value;
}

std::string KindWithArticle(Kind kind) {
  const bool vowel = kind == Kind::kArray || kind == Kind::kObject;
  return absl::StrCat(vowel ? "an " : "a ", ToAbsl(KindName(kind)));
}

absl::StatusOr<std::optional<Value>> TypedMember(Value object, std::string_view key, Kind kind,
                                                 std::string_view path) {
  std::optional<Value> value = object.Find(key);
  if (!value || value->is_null()) return std::optional<Value>();
  if (value->kind() != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(path), " is ", KindWithArticle(value->kind()), ", not ", KindWithArticle(kind)));
  }
  return value;
}

absl::StatusOr<std::string> StringMember(Value object, std::string_view key,
                                         std::string_view path) {
  absl::StatusOr<std::optional<Value>> value = TypedMember(object, key, Kind::kString, path);
  if (!value.ok()) return value.status();
  return *value ? std::string((*value)->string_value()) : std::string();
}

}  // namespace agentrt::json
