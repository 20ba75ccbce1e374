// runtime/schema/internal/compiled.h
//
// The compiled form of a schema: a graph of Nodes, one per subschema location reached from the
// root (references are edges, so the graph may have cycles through keywords that descend into
// the instance). Built once by compiler.cc, never changed, read by validator.cc from any
// number of threads. Internal to agentrt::schema.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/json/decimal.h"
#include "runtime/json/document.h"
#include "runtime/schema/schema.h"

namespace re2 {
class RE2;
}

namespace agentrt::schema::internal {

// Type bits of the `type` keyword.
enum TypeBit : std::uint8_t {
  kTypeNull = 1,
  kTypeBoolean = 2,
  kTypeObject = 4,
  kTypeArray = 8,
  kTypeNumber = 16,
  kTypeString = 32,
  kTypeInteger = 64,
};

struct Regex {
  std::string source;
  std::shared_ptr<const re2::RE2> re;
};

struct Node;

struct Resource {
  std::string uri;
  const Node* root = nullptr;  // compiled when recursive_anchor is set
  std::map<std::string, const Node*, std::less<>> dynamic_anchors;  // 2020-12
  bool recursive_anchor = false;                                    // 2019-09
};

struct Node {
  // Where this subschema lives, for error reports: JSON Pointer within its document, with the
  // document's URI in front when it is not the schema being compiled.
  std::string location;
  Draft draft = Draft::k2020_12;
  int resource = 0;  // index into Compiled::resources

  // Boolean schemas (and `true`-like empty objects have no keywords set).
  bool is_false = false;

  // Collect annotations for unevaluatedProperties/Items: set on nodes that have either.
  bool needs_annotations = false;
  bool contains_counts_for_unevaluated = true;  // 2020-12 yes, 2019-09 no

  // Any type.
  std::uint8_t types = 0;  // 0 = no `type` keyword
  std::optional<json::Value> const_value;
  std::vector<json::Value> enum_values;
  bool has_enum = false;

  // Numbers.
  std::optional<json::Decimal> minimum, maximum, exclusive_minimum, exclusive_maximum;
  std::optional<json::Decimal> multiple_of;

  // Strings.
  std::optional<std::uint64_t> min_length, max_length;
  std::optional<Regex> pattern;

  // Arrays.
  std::vector<const Node*> prefix_items;
  const Node* items = nullptr;  // applies to every index at or after prefix_items.size()
  const Node* contains = nullptr;
  std::optional<std::uint64_t> min_contains, max_contains;
  std::optional<std::uint64_t> min_items, max_items;
  bool unique_items = false;
  const Node* unevaluated_items = nullptr;

  // Objects.
  std::vector<std::pair<std::string, const Node*>> properties;  // sorted by UTF-16 order
  std::vector<std::pair<Regex, const Node*>> pattern_properties;
  const Node* additional_properties = nullptr;
  const Node* property_names = nullptr;
  std::vector<std::string> required;
  std::optional<std::uint64_t> min_properties, max_properties;
  std::vector<std::pair<std::string, std::vector<std::string>>> dependent_required;
  std::vector<std::pair<std::string, const Node*>> dependent_schemas;
  const Node* unevaluated_properties = nullptr;

  // In-place applicators.
  std::vector<const Node*> all_of, any_of, one_of;
  const Node* not_schema = nullptr;
  const Node* if_schema = nullptr;
  const Node* then_schema = nullptr;
  const Node* else_schema = nullptr;
  const Node* ref = nullptr;
  // $dynamicRef: the statically resolved target, and the anchor name when the target is
  // "bookended" (it declares that $dynamicAnchor), in which case the dynamic scope decides.
  const Node* dynamic_ref = nullptr;
  std::string dynamic_ref_anchor;
  // $recursiveRef: the statically resolved target ("#"); the dynamic scope decides when the
  // target's resource has $recursiveAnchor: true.
  const Node* recursive_ref = nullptr;
};

}  // namespace agentrt::schema::internal

namespace agentrt::schema {

struct Schema::Compiled {
  Draft draft = Draft::k2020_12;
  CompileLimits limits;
  std::vector<std::shared_ptr<const json::Document>> documents;  // keep Values alive
  std::vector<std::unique_ptr<internal::Node>> nodes;
  std::vector<internal::Resource> resources;
  const internal::Node* root = nullptr;
};

}  // namespace agentrt::schema

namespace agentrt::schema::internal {

// Validation entry points (validator.cc).
bool IsValid(const Schema::Compiled& compiled, json::Value instance);
ValidationResult Validate(const Schema::Compiled& compiled, json::Value instance,
                          std::size_t max_errors);

// The bundled metaschemas (generated from runtime/schema/metaschemas/*.json at build time):
// the document for a URI without fragment, e.g. "https://json-schema.org/draft/2020-12/schema"
// or "http://json-schema.org/draft-07/schema"; nullptr when not bundled.
const std::string* FindBundledMetaschema(std::string_view uri);

}  // namespace agentrt::schema::internal
