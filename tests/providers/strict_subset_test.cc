// Strict tool use's subset of JSON Schema (providers/anthropic/strict_subset.h): what the cut
// removes and adds, that it walks the schema by structure (a property named "pattern" is a
// property, an enum value is a value), that it keeps the top level's other keywords so a $ref
// still resolves, and what StrictRefusal turns away before anything is sent.
#include "providers/anthropic/strict_subset.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/canonical_json.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::testing::AnyOf;

// The canonical bytes of a schema written readably in the test.
std::string Canonical(std::string_view json) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json);
  EXPECT_OK(canonical) << json;
  return canonical.ok() ? *canonical : std::string(json);
}

// StrictSubset's output, which must already be canonical JSON.
std::string SubsetOrDie(std::string_view schema) {
  absl::StatusOr<std::string> subset = StrictSubset(schema);
  EXPECT_OK(subset) << schema;
  if (!subset.ok()) return "";
  EXPECT_EQ(*subset, Canonical(*subset)) << "the subset is not canonical";
  return *subset;
}

// ---- The cut ----

TEST(StrictSubsetTest, RemovesRejectedKeywordsAndClosesObjects) {
  const std::string schema = R"({
    "type": "object",
    "properties": {
      "tags": {"type": "array",
               "items": {"type": "string", "minLength": 1, "maxLength": 20,
                         "pattern": "^[a-z]+$"},
               "minItems": 2, "maxItems": 5, "uniqueItems": true},
      "scores": {"type": "array",
                 "items": {"type": "number", "minimum": 0, "maximum": 10,
                           "exclusiveMinimum": -1, "exclusiveMaximum": 11, "multipleOf": 0.5},
                 "minItems": 1},
      "notes": {"type": "array", "items": {"type": "string"}, "minItems": 0},
      "owner": {"type": "object",
                "properties": {"name": {"type": "string", "maxLength": 64}},
                "required": ["name"]}
    },
    "required": ["tags", "owner"]
  })";

  // minItems 2 goes, 0 and 1 stay; required stays; every object schema, nested too, is closed.
  EXPECT_EQ(SubsetOrDie(schema), Canonical(R"({
    "additionalProperties": false,
    "properties": {
      "notes": {"items": {"type": "string"}, "minItems": 0, "type": "array"},
      "owner": {"additionalProperties": false,
                "properties": {"name": {"type": "string"}},
                "required": ["name"], "type": "object"},
      "scores": {"items": {"type": "number"}, "minItems": 1, "type": "array"},
      "tags": {"items": {"type": "string"}, "type": "array"}
    },
    "required": ["tags", "owner"],
    "type": "object"
  })"));
}

TEST(StrictSubsetTest, PropertyNamesAndValuesAreNotKeywords) {
  const std::string schema = R"({
    "type": "object",
    "properties": {
      "pattern": {"type": "string", "pattern": "^x+$"},
      "maximum": {"type": "integer", "maximum": 5, "default": 3},
      "mode": {"type": "string", "enum": ["minimum", "maxLength"], "default": "minimum"},
      "level": {"const": {"maxItems": 2, "pattern": "a"}},
      "filter": {"type": ["object", "null"],
                 "properties": {"minLength": {"type": "integer", "minimum": 0}},
                 "default": {"minLength": 2, "pattern": "a"}}
    },
    "$defs": {"id": {"type": "string", "maxLength": 8}},
    "required": ["pattern", "maximum"]
  })";

  // The properties named "pattern", "maximum" and "minLength" stay (their own keywords go);
  // enum, const and default values are untouched; a type that includes "object" is closed; the
  // definitions are cut like any schema.
  EXPECT_EQ(SubsetOrDie(schema), Canonical(R"({
    "$defs": {"id": {"type": "string"}},
    "additionalProperties": false,
    "properties": {
      "filter": {"additionalProperties": false,
                 "default": {"minLength": 2, "pattern": "a"},
                 "properties": {"minLength": {"type": "integer"}},
                 "type": ["object", "null"]},
      "level": {"const": {"maxItems": 2, "pattern": "a"}},
      "maximum": {"default": 3, "type": "integer"},
      "mode": {"default": "minimum", "enum": ["minimum", "maxLength"], "type": "string"},
      "pattern": {"type": "string"}
    },
    "required": ["pattern", "maximum"],
    "type": "object"
  })"));
}

TEST(StrictSubsetTest, KeepsTopLevelKeywordsSoARefResolves) {
  EXPECT_EQ(SubsetOrDie(R"({"type":"object","description":"top","$defs":{"x":{"type":"string",)"
                        R"("maxLength":3}},"properties":{"a":{"$ref":"#/$defs/x"}}})"),
            R"({"$defs":{"x":{"type":"string"}},"additionalProperties":false,"description":"top",)"
            R"("properties":{"a":{"$ref":"#/$defs/x"}},"type":"object"})");
}

TEST(StrictSubsetTest, CutsEverySchemaPositionAndClosesTheTopWhateverItSays) {
  const std::string schema = R"({
    "additionalProperties": true,
    "properties": {
      "value": {"anyOf": [{"type": "string", "maxLength": 3},
                          {"type": "object", "additionalProperties": true, "properties": {}}]},
      "pair": {"type": "array", "prefixItems": [{"type": "integer", "minimum": 1}],
               "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
      "open": {"type": "string", "not": {"type": "string", "pattern": "x"}}
    }
  })";

  // The top is closed though it had no type and said true; so is an object inside anyOf or
  // items; a string schema is not given additionalProperties.
  EXPECT_EQ(SubsetOrDie(schema), Canonical(R"({
    "additionalProperties": false,
    "properties": {
      "open": {"not": {"type": "string"}, "type": "string"},
      "pair": {"items": {"additionalProperties": false,
                         "properties": {"k": {"type": "string"}}, "type": "object"},
               "prefixItems": [{"type": "integer"}], "type": "array"},
      "value": {"anyOf": [{"type": "string"},
                          {"additionalProperties": false, "properties": {}, "type": "object"}]}
    }
  })"));
}

TEST(StrictSubsetTest, RefusesASchemaThatIsNotAnObject) {
  EXPECT_THAT(StrictSubset(R"(["type","object"])"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(StrictSubset(R"({"type":)"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(StrictRefusal(R"("object")"), StatusIs(absl::StatusCode::kInvalidArgument));
}

// ---- What strict mode cannot express ----

TEST(StrictRefusalTest, RefusesWhatStrictModeCannotExpressAndSaysWhere) {
  struct Row {
    std::string name;
    std::string schema;
    std::string refusal;
  };
  const std::vector<Row> rows = {
      {"oneOf in a property",
       R"({"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}})",
       "oneOf at #/properties/a"},
      {"oneOf in array items",
       R"({"type":"object","properties":{"list":{"type":"array","items":{"oneOf":[]}}}})",
       "oneOf at #/properties/list/items"},
      {"schema-valued additionalProperties",
       R"({"type":"object","additionalProperties":{"type":"string"}})",
       "schema-valued additionalProperties at #"},
      {"$ref to the root", R"({"type":"object","properties":{"self":{"$ref":"#"}}})",
       "$ref to the root at #/properties/self"},
      {"self-recursive definition",
       R"({"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},)"
       R"("$defs":{"node":{"type":"object","properties":{"value":{"type":"string"},)"
       R"("next":{"$ref":"#/$defs/node"}}}}})",
       "$ref cycle through #/$defs/node"},
      {"self-recursive through definitions and items",
       R"({"type":"object","properties":{"tree":{"$ref":"#/definitions/tree"}},)"
       R"("definitions":{"tree":{"type":"object","properties":{"children":{"type":"array",)"
       R"("items":{"$ref":"#/definitions/tree"}}}}}})",
       "$ref cycle through #/definitions/tree"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_THAT(StrictRefusal(row.schema),
                StatusIs(absl::StatusCode::kInvalidArgument, row.refusal));
  }
}

TEST(StrictRefusalTest, RefusesMutualRecursion) {
  // a -> b -> a: neither refers to itself, the pair does.
  EXPECT_THAT(
      StrictRefusal(R"({"type":"object","properties":{"start":{"$ref":"#/$defs/a"}},)"
                    R"("$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},)"
                    R"("b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}}})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AnyOf("$ref cycle through #/$defs/a", "$ref cycle through #/$defs/b")));
}

TEST(StrictRefusalTest, RefusesACycleThroughAPointerIntoADefinition) {
  // a's "child" is b's "inner", which is a again: a $ref cycle through $defs, though one of its
  // $refs names a schema inside a definition rather than the definition itself.
  EXPECT_THAT(
      StrictRefusal(R"({"type":"object","properties":{"start":{"$ref":"#/$defs/a"}},)"
                    R"("$defs":{"a":{"type":"object","properties":{"child":)"
                    R"({"$ref":"#/$defs/b/properties/inner"}}},)"
                    R"("b":{"type":"object","properties":{"inner":{"$ref":"#/$defs/a"}}}}})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("$ref cycle through #/$defs/")));
}

TEST(StrictRefusalTest, AcceptsWhatOnlyLooksRefusable) {
  const std::vector<std::string> schemas = {
      // Two definitions sharing a third (a diamond) is no cycle.
      R"({"type":"object","properties":{"from":{"$ref":"#/$defs/a"},"to":{"$ref":"#/$defs/b"}},)"
      R"("$defs":{"a":{"type":"object","properties":{"at":{"$ref":"#/$defs/c"}}},)"
      R"("b":{"type":"object","properties":{"at":{"$ref":"#/$defs/c"}}},"c":{"type":"string"}}})",
      // Boolean additionalProperties, and anyOf.
      R"({"type":"object","additionalProperties":false,"properties":{"v":{"anyOf":[)"
      R"({"type":"string"},{"type":"object","additionalProperties":true}]}}})",
      // Properties named like the refused keywords are properties.
      R"({"type":"object","properties":{"oneOf":{"type":"string"},)"
      R"("additionalProperties":{"type":"object","properties":{}}}})",
      // Values are not schemas: an enum member or a default that looks like one.
      R"({"type":"object","properties":{"shape":{"enum":[{"oneOf":[]}],)"
      R"("default":{"$ref":"#","additionalProperties":{"type":"string"}}}}})",
  };
  for (const std::string& schema : schemas) {
    SCOPED_TRACE(schema);
    EXPECT_OK(StrictRefusal(schema));
  }
}

}  // namespace
}  // namespace agentrt::providers
