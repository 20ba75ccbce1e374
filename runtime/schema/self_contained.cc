#include "runtime/schema/self_contained.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::schema {
namespace {

bool Refused(std::string_view key, std::string_view value, bool draft4) {
  if (key == "$ref" || key == "$dynamicRef" || key == "$recursiveRef") {
    return !value.starts_with("#");
  }
  if (key == "$id") return !value.starts_with("#") && !IsWellKnownDraftUri(value);
  if (key == "$schema") return !IsWellKnownDraftUri(value);
  if (key == "id" && draft4) {
    return !value.starts_with("#") &&
           (value.find(':') != std::string_view::npos || value.starts_with("//"));
  }
  return false;
}

absl::Status Walk(json::Value value, const std::string& path, bool draft4) {
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (absl::Status s = Walk(value.element(i), absl::StrCat(path, "/", i), draft4); !s.ok()) {
        return s;
      }
    }
  } else if (value.is_object()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      std::string_view key = value.key(i);
      json::Value member = value.member(i);
      if (member.is_string() && Refused(key, member.string_value(), draft4)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "schema: ", ToAbsl(json::Sanitize(key)), " at ", ToAbsl(json::Sanitize(path)), " is \"",
            ToAbsl(json::Truncate(json::Sanitize(member.string_value()), 200)),
            "\", which could make the schema compiler read outside it (only \"#...\" "
            "references and the well-known draft URIs are allowed)"));
      }
      if (absl::Status s = Walk(member, absl::StrCat(path, "/", ToAbsl(key)), draft4); !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsWellKnownDraftUri(std::string_view uri) {
  if (uri.starts_with("https://")) {
    uri.remove_prefix(8);
  } else if (uri.starts_with("http://")) {
    uri.remove_prefix(7);
  } else {
    return false;
  }
  if (uri.ends_with("#")) uri.remove_suffix(1);
  for (std::string_view known :
       {"json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema",
        "json-schema.org/draft-07/schema", "json-schema.org/draft/2019-09/schema",
        "json-schema.org/draft/2020-12/schema", "json-schema.org/schema"}) {
    if (uri == known) return true;
  }
  return false;
}

absl::Status CheckSelfContained(json::Value root) {
  bool draft4 = false;
  if (root.is_object()) {
    if (auto schema = root.Find("$schema"); schema && schema->is_string()) {
      draft4 = schema->string_value().find("draft-04") != std::string_view::npos;
    }
  }
  return Walk(root, "#", draft4);
}

}  // namespace agentrt::schema
