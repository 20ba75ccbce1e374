#include "providers/anthropic/strict_subset.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/pointer.h"
#include "runtime/json/sanitize.h"

namespace agentrt::providers {
namespace {

// Where subschemas sit (the header comment).
bool MapOfSchemas(std::string_view k) {
  return k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" ||
         k == "dependentSchemas";
}
bool ListOfSchemas(std::string_view k) {
  return k == "allOf" || k == "anyOf" || k == "oneOf" || k == "prefixItems";
}
bool OneSchema(std::string_view k) {
  return k == "items" || k == "additionalProperties" || k == "not" || k == "if" || k == "then" ||
         k == "else" || k == "contains" || k == "propertyNames" || k == "additionalItems" ||
         k == "unevaluatedProperties" || k == "unevaluatedItems";
}
bool Removed(std::string_view k) {
  return k == "minimum" || k == "maximum" || k == "exclusiveMinimum" || k == "exclusiveMaximum" ||
         k == "multipleOf" || k == "minLength" || k == "maxLength" || k == "maxItems" ||
         k == "pattern" || k == "uniqueItems";
}

// Calls `visit(schema, pointer)` for every schema in schema position under `schema` (itself
// first).
template <typename Visit>
void Walk(json::Value schema, const std::string& pointer, Visit& visit) {
  if (!schema.is_object()) return;
  visit(schema, pointer);
  for (std::size_t i = 0; i < schema.size(); ++i) {
    std::string_view k = schema.key(i);
    json::Value v = schema.member(i);
    std::string at = pointer + "/";
    json::AppendPointerToken(k, at);
    if (MapOfSchemas(k) && v.is_object()) {
      for (std::size_t j = 0; j < v.size(); ++j) {
        std::string member = at + "/";
        json::AppendPointerToken(v.key(j), member);
        Walk(v.member(j), member, visit);
      }
    } else if ((ListOfSchemas(k) || k == "items") && v.is_array()) {
      for (std::size_t j = 0; j < v.size(); ++j) {
        Walk(v.element(j), absl::StrCat(at, "/", j), visit);
      }
    } else if (OneSchema(k)) {
      Walk(v, at, visit);
    }
  }
}

bool TypeIncludesObject(json::Value schema) {
  std::optional<json::Value> type = schema.Find("type");
  if (!type) return false;
  if (type->is_string()) return type->string_value() == "object";
  if (type->is_array()) {
    for (std::size_t i = 0; i < type->size(); ++i) {
      json::Value t = type->element(i);
      if (t.is_string() && t.string_value() == "object") return true;
    }
  }
  return false;
}

bool MinItemsAboveOne(json::Value v) {
  if (!v.is_number()) return false;
  double n = 0;
  return absl::SimpleAtod(ToAbsl(v.number_literal()), &n) && n > 1;
}

std::string Subset(json::Value schema, bool top);

std::string SubsetOf(json::Value v, std::string_view key) {
  if (MapOfSchemas(key) && v.is_object()) {
    json::JsonObject map;
    for (std::size_t j = 0; j < v.size(); ++j) map.Raw(v.key(j), Subset(v.member(j), false));
    return map.Build();
  }
  if ((ListOfSchemas(key) || key == "items") && v.is_array()) {
    std::string out = "[";
    for (std::size_t j = 0; j < v.size(); ++j) {
      if (j > 0) out += ',';
      out += Subset(v.element(j), false);
    }
    return out + "]";
  }
  if (OneSchema(key)) return Subset(v, false);
  return json::WriteCanonical(v);
}

std::string Subset(json::Value schema, bool top) {
  if (!schema.is_object()) return json::WriteCanonical(schema);
  json::JsonObject out;
  bool closed = top || TypeIncludesObject(schema);
  for (std::size_t i = 0; i < schema.size(); ++i) {
    std::string_view k = schema.key(i);
    json::Value v = schema.member(i);
    if (Removed(k) || (k == "minItems" && MinItemsAboveOne(v))) continue;
    if (k == "additionalProperties" && closed) continue;
    out.Raw(k, SubsetOf(v, k));
  }
  if (closed) out.Bool("additionalProperties", false);
  return out.Build();
}

absl::StatusOr<json::Document> ParseSchema(std::string_view schema_json) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, json::Parse(schema_json));
  if (!doc.root().is_object()) {
    return absl::InvalidArgumentError("the input schema is not a JSON object");
  }
  return doc;
}

// The definition a "$ref" points into ("#/$defs/x" for "#/$defs/x" and for
// "#/$defs/x/properties/y"), or "" for one that points elsewhere.
std::string DefinitionOf(std::string_view ref) {
  for (std::string_view prefix : {"#/$defs/", "#/definitions/"}) {
    if (ref.starts_with(prefix)) return std::string(ref.substr(0, ref.find('/', prefix.size())));
  }
  return "";
}

}  // namespace

absl::Status StrictRefusal(std::string_view schema_json) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, ParseSchema(schema_json));
  return StrictRefusal(doc.root());
}

absl::Status StrictRefusal(json::Value schema) {
  if (!schema.is_object())
    return absl::InvalidArgumentError("the input schema is not a JSON object");
  std::string refusal;
  // Definition pointer ("#/$defs/x") -> the definitions its schema refers to.
  std::map<std::string, std::set<std::string>> refers;
  auto visit = [&](json::Value schema, const std::string& pointer) {
    if (!refusal.empty()) return;
    if (schema.Find("oneOf")) {
      refusal = absl::StrCat("oneOf at ", pointer);
    } else if (std::optional<json::Value> ap = schema.Find("additionalProperties");
               ap && !ap->is_bool()) {
      refusal = absl::StrCat("schema-valued additionalProperties at ", pointer);
    } else if (std::optional<json::Value> ref = schema.Find("$ref"); ref && ref->is_string()) {
      std::string_view target = ref->string_value();
      if (target == "#") {
        refusal = absl::StrCat("$ref to the root at ", pointer);
        return;
      }
      std::string def = DefinitionOf(target);
      if (def.empty()) return;
      // The definition this schema is inside of: the longest "#/$defs/<name>" prefix.
      for (std::string_view prefix : {"#/$defs/", "#/definitions/"}) {
        if (!pointer.starts_with(prefix)) continue;
        std::size_t end = pointer.find('/', prefix.size());
        refers[pointer.substr(0, end)].insert(def);
      }
      refers["#"].insert(def);
    }
  };
  Walk(schema, "#", visit);
  if (!refusal.empty()) return absl::InvalidArgumentError(json::Sanitize(refusal));
  // A cycle among the definitions: depth-first, colouring what is on the path.
  std::map<std::string, int> state;  // 1 on the path, 2 done
  std::string cycle;
  std::function<void(const std::string&)> visit_def = [&](const std::string& def) {
    if (!cycle.empty() || state[def] == 2) return;
    if (state[def] == 1) {
      cycle = def;
      return;
    }
    state[def] = 1;
    for (const std::string& next : refers[def]) visit_def(next);
    state[def] = 2;
  };
  for (const auto& [def, targets] : refers) {
    if (def != "#") visit_def(def);
  }
  if (!cycle.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("$ref cycle through ", json::Sanitize(cycle)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> StrictSubset(std::string_view schema_json) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, ParseSchema(schema_json));
  return StrictSubset(doc.root());
}

std::string StrictSubset(json::Value schema) { return Subset(schema, /*top=*/true); }

}  // namespace agentrt::providers
