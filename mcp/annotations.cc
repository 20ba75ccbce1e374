#include "mcp/annotations.h"

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"

namespace agentrt::mcp {
namespace {

absl::Status ReadHint(json::Value object, std::string_view key, std::optional<bool>& hint) {
  std::optional<json::Value> value = object.Find(key);
  if (!value || value->is_null()) return absl::OkStatus();
  if (!value->is_bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat("annotation \"", ToAbsl(key), "\" is not a boolean"));
  }
  hint = value->bool_value();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Annotations> ParseAnnotations(json::Value object) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError("annotations are not a JSON object");
  }
  Annotations out;
  for (auto [key, hint] : {std::pair{"readOnlyHint", &out.read_only_hint},
                           std::pair{"destructiveHint", &out.destructive_hint},
                           std::pair{"idempotentHint", &out.idempotent_hint},
                           std::pair{"openWorldHint", &out.open_world_hint}}) {
    if (absl::Status s = ReadHint(object, key, *hint); !s.ok()) return s;
  }
  if (std::optional<json::Value> title = object.Find("title"); title && !title->is_null()) {
    if (!title->is_string()) {
      return absl::InvalidArgumentError("annotation \"title\" is not a string");
    }
    out.title = std::string(title->string_value());
  }
  out.json = json::WriteCanonical(object);
  return out;
}

std::string HintMismatch(SideEffect rule, const std::optional<Annotations>& annotations) {
  if (!annotations) return "";
  // A server can only make a classification stricter: calling a tool read-only never makes it
  // read_only, but failing to say so, or saying it destroys, contradicts the operator.
  bool read_only = annotations->read_only_hint.value_or(false);
  if (rule == SideEffect::kReadOnly && !read_only) {
    return "classified read_only, but the server does not claim readOnlyHint";
  }
  if (rule != SideEffect::kDestructive && !read_only &&
      annotations->destructive_hint.value_or(false)) {
    return absl::StrCat("classified ", ToAbsl(ToString(rule)),
                        ", but the server claims destructiveHint");
  }
  return "";
}

}  // namespace agentrt::mcp
