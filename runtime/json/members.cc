#include "runtime/json/members.h"

#include <optional>

#include "absl/strings/numbers.h"
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

}  // namespace agentrt::json
