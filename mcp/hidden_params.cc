#include "mcp/hidden_params.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace agentrt::mcp {
namespace {

// The top-level keywords under which a hidden name could still be described or required.
constexpr std::string_view kSearched[] = {"allOf",
                                          "anyOf",
                                          "oneOf",
                                          "not",
                                          "if",
                                          "then",
                                          "else",
                                          "dependentRequired",
                                          "dependentSchemas",
                                          "dependencies",
                                          "$defs",
                                          "definitions"};

// Whether `name` appears beneath `value` as a string or as an object key. Numbers and booleans
// never mention a name.
bool Mentions(json::Value value, std::string_view name) {
  switch (value.kind()) {
    case json::Kind::kString:
      return value.string_value() == name;
    case json::Kind::kArray:
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (Mentions(value.element(i), name)) return true;
      }
      return false;
    case json::Kind::kObject:
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (value.key(i) == name || Mentions(value.member(i), name)) return true;
      }
      return false;
    default:
      return false;
  }
}

bool IsHidden(std::string_view name, const std::vector<std::string>& hidden) {
  return std::find(hidden.begin(), hidden.end(), name) != hidden.end();
}

absl::StatusOr<json::Document> ParseSchema(std::string_view schema_json) {
  absl::StatusOr<json::Document> document = json::Parse(schema_json);
  if (!document.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input schema cannot be restricted: ", document.status().message()));
  }
  return document;
}

}  // namespace

absl::Status CheckHideable(std::string_view schema_json, const std::vector<std::string>& hidden) {
  if (hidden.empty()) return absl::OkStatus();
  AGENTRT_ASSIGN_OR_RETURN(json::Document document, ParseSchema(schema_json));
  json::Value root = document.root();
  std::optional<json::Value> properties;
  if (root.is_object()) properties = root.Find("properties");
  for (const std::string& name : hidden) {
    if (!properties || !properties->is_object() || !properties->Find(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the rule hides ", Quote(name),
                       ", which is not a top-level property of the input schema"));
    }
  }
  if (root.Find("patternProperties")) {
    return absl::InvalidArgumentError(
        "the rule hides parameters and the input schema has patternProperties, which could "
        "still match them");
  }
  for (std::string_view keyword : kSearched) {
    std::optional<json::Value> value = root.Find(keyword);
    if (!value) continue;
    for (const std::string& name : hidden) {
      if (Mentions(*value, name)) {
        return absl::InvalidArgumentError(absl::StrCat("the rule hides ", Quote(name),
                                                       " and the input schema's ", ToAbsl(keyword),
                                                       " mentions it"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Restrict(std::string_view schema_json,
                                     const std::vector<std::string>& hidden) {
  if (hidden.empty()) return std::string(schema_json);
  AGENTRT_ASSIGN_OR_RETURN(json::Document document, ParseSchema(schema_json));
  json::Value root = document.root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        "the input schema cannot be restricted: it is not a JSON object");
  }
  // The document is immutable: write the root member by member, in its canonical order,
  // leaving out what is hidden.
  std::string out = "{";
  bool first = true;
  auto begin_member = [&](std::string_view key) {
    if (!first) out.push_back(',');
    first = false;
    json::AppendCanonicalString(key, out);
    out.push_back(':');
  };
  for (std::size_t i = 0; i < root.size(); ++i) {
    std::string_view key = root.key(i);
    json::Value value = root.member(i);
    if (key == "properties" && value.is_object()) {
      begin_member(key);
      out.push_back('{');
      bool first_property = true;
      for (std::size_t j = 0; j < value.size(); ++j) {
        if (IsHidden(value.key(j), hidden)) continue;
        if (!first_property) out.push_back(',');
        first_property = false;
        json::AppendCanonicalString(value.key(j), out);
        out.push_back(':');
        json::AppendCanonical(value.member(j), out);
      }
      out.push_back('}');
    } else if (key == "required" && value.is_array()) {
      std::string kept;
      for (std::size_t j = 0; j < value.size(); ++j) {
        json::Value entry = value.element(j);
        if (entry.is_string() && IsHidden(entry.string_value(), hidden)) continue;
        if (!kept.empty()) kept.push_back(',');
        json::AppendCanonical(entry, kept);
      }
      if (kept.empty()) continue;  // an empty `required` is dropped
      begin_member(key);
      absl::StrAppend(&out, "[", kept, "]");
    } else {
      begin_member(key);
      json::AppendCanonical(value, out);
    }
  }
  out.push_back('}');
  return out;
}

}  // namespace agentrt::mcp
