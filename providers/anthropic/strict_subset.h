// providers/anthropic/strict_subset.h
//
// Strict tool use (Anthropic's structured tool inputs) accepts a subset of JSON Schema. An
// adapter configured strict sends each tool's schema cut to that subset, and refuses first, with
// nothing sent, a schema the subset cannot express at all:
//   - "oneOf" anywhere;
//   - an "additionalProperties" that is a schema rather than true or false;
//   - a "$ref" to the root ("#"), or a cycle of "$ref"s through "$defs" or "definitions".
// The cut walks the schema by structure: keywords count only in schema positions (the members of
// properties, patternProperties, $defs, definitions and dependentSchemas; the elements of allOf,
// anyOf, oneOf and prefixItems; items, additionalProperties, not, if, then, else, contains,
// propertyNames, additionalItems, unevaluatedProperties and unevaluatedItems), so a property
// named "pattern" is a property, not a keyword, and enum, const and default values are never
// touched. In every schema it removes minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf, minLength, maxLength, maxItems, pattern and uniqueItems, and minItems above 1 (0
// and 1 are kept); it sets additionalProperties false on every schema whose type is or includes
// "object", and on the top level whatever its type. Everything else at the top (description,
// $defs, ...) is kept, so a $ref still resolves. The result is canonical JSON.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"

namespace agentrt::providers {

// StrictRefusal: OK, or InvalidArgument naming what strict mode cannot express and where
// ("oneOf at #/properties/a", "schema-valued additionalProperties at #", "$ref to the root at
// #/properties/self", "$ref cycle through #/$defs/node"). InvalidArgument too for a schema that is
// not a JSON object.
absl::Status StrictRefusal(std::string_view schema_json);

// StrictSubset cuts `schema_json` (a JSON object) to the subset, as the header says.
absl::StatusOr<std::string> StrictSubset(std::string_view schema_json);

// The same for a schema already parsed (the adapter's, which parses each tool's schema once).
// `schema` must be an object for StrictSubset.
absl::Status StrictRefusal(json::Value schema);
std::string StrictSubset(json::Value schema);

}  // namespace agentrt::providers
