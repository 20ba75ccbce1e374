// Behaviour of the compiler and validator beyond the official suite: what production compiles
// refuse, the limits against hostile schemas, exact numbers, and the shape of errors.
#include "runtime/schema/schema.h"

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "tests/support/status_matchers.h"

namespace agentrt::schema {
namespace {

Schema CompileOrDie(std::string_view json, const CompileOptions& options = {}) {
  absl::StatusOr<Schema> schema = Schema::Compile(json, options);
  EXPECT_OK(schema) << "for " << json;
  return *std::move(schema);
}

json::Document ParseOrDie(std::string_view json) {
  absl::StatusOr<json::Document> doc = json::Parse(json);
  EXPECT_OK(doc);
  return *std::move(doc);
}

bool Valid(const Schema& schema, std::string_view instance) {
  json::Document doc = ParseOrDie(instance);
  bool fast = schema.IsValid(doc.root());
  ValidationResult full = schema.Validate(doc.root());
  EXPECT_EQ(fast, full.valid) << instance;
  EXPECT_EQ(full.valid, full.errors.empty()) << instance;
  return fast;
}

std::string Refusal(std::string_view json, const CompileOptions& options = {}) {
  absl::StatusOr<Schema> schema = Schema::Compile(json, options);
  EXPECT_THAT(schema, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  return schema.ok() ? "" : std::string(schema.status().message());
}

TEST(SchemaTest, SchemaWithoutDollarSchemaIsDraft2020_12) {
  EXPECT_EQ(CompileOrDie(R"({"type":"string"})").draft(), Draft::k2020_12);
  EXPECT_EQ(CompileOrDie(R"({"$schema":"http://json-schema.org/draft-07/schema#"})").draft(),
            Draft::k7);
  EXPECT_EQ(CompileOrDie(R"({"$schema":"https://json-schema.org/draft/2019-09/schema"})").draft(),
            Draft::k2019_09);
}

// Schemas a hostile server could send (docs/security.md): refused before anything else happens.
TEST(SchemaTest, ReferencesOutsideTheDocumentAreRefused) {
  const char* refused[] = {
      R"({"$ref":"http://evil.example/schema.json"})",
      R"({"$ref":"file:///etc/passwd"})",
      R"({"properties":{"a":{"$ref":"other.json#/x"}}})",
      R"({"$schema":"http://evil.example/schema"})",
      R"({"$id":"http://evil.example/root.json"})",
      R"({"$defs":{"x":{"$id":"https://evil.example/"}}})",
      R"({"$dynamicRef":"https://evil.example/x#meta"})",
      R"({"properties":{"a":{"default":{"$ref":"file:///etc/passwd"}}}})",
      R"({"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"id":"http://evil.example/"}}})",
      R"({"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveRef":"https://e.example/"})",
  };
  for (const char* json : refused) {
    SCOPED_TRACE(json);
    EXPECT_THAT(Refusal(json), HasSubstr("could make the schema compiler read outside"));
  }
}

TEST(SchemaTest, FragmentReferencesAndLookalikesAreAccepted) {
  const char* accepted[] = {
      R"({"$defs":{"y":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/y"}}})",
      R"({"$schema":"http://json-schema.org/draft-07/schema#","properties":{"id":{"type":"string"}}})",
      R"({"$schema":"https://json-schema.org/draft/2020-12/schema","examples":[{"id":"abc"}]})",
      R"({"$schema":"http://json-schema.org/draft-07/schema#","$id":"#x"})",
      R"({"$id":"https://json-schema.org/draft/2020-12/schema"})",
  };
  for (const char* json : accepted) {
    SCOPED_TRACE(json);
    EXPECT_OK(Schema::Compile(json));
  }
}

TEST(SchemaTest, SchemaInvalidAgainstItsMetaschemaIsRefusedWithTheReason) {
  EXPECT_THAT(Refusal(R"({"type":"strng"})"), HasSubstr("not a valid 2020-12 schema: #/type"));
  EXPECT_THAT(Refusal(R"({"minLength":-1})"), HasSubstr("#/minLength"));
  EXPECT_THAT(Refusal(R"({"$schema":"http://json-schema.org/draft-07/schema#","required":"a"})"),
              HasSubstr("not a valid draft-07 schema: #/required"));
  EXPECT_THAT(Refusal(R"([1])"), HasSubstr("must be an object or a boolean"));
}

TEST(SchemaTest, PatternsRe2CannotRunExactlyAreRefusedAtCompile) {
  EXPECT_THAT(Refusal(R"({"pattern":"^(a)\\1$"})"), HasSubstr("backreferences and lookaround"));
  EXPECT_THAT(Refusal(R"js({"pattern":"^(?=a)"})js"), HasSubstr("cannot be run exactly"));
  EXPECT_THAT(Refusal(R"({"patternProperties":{"(?<!x)y":{}}})"), HasSubstr("cannot be run"));
  Schema unicode = CompileOrDie(R"({"pattern":"^\\p{Letter}+\\u00e9$"})");
  EXPECT_TRUE(Valid(unicode, "\"\xCF\x80\xC3\xA9\""));
  EXPECT_FALSE(Valid(unicode, "\"1\xC3\xA9\""));
}

TEST(SchemaTest, UnknownDraftIsRefused) {
  CompileOptions test_only;
  Registry registry;
  test_only.registry = &registry;
  EXPECT_THAT(Refusal(R"({"$schema":"http://example.com/mine"})", test_only),
              HasSubstr("is not a known JSON Schema draft"));
}

TEST(SchemaTest, InPlaceReferenceCyclesAreRefused) {
  EXPECT_THAT(Refusal(R"({"$ref":"#"})"), HasSubstr("refers back to itself"));
  EXPECT_THAT(Refusal(R"({"anyOf":[{"type":"string"},{"$ref":"#"}]})"),
              HasSubstr("refers back to itself"));
  // Recursion through a keyword that descends into the instance is fine.
  Schema tree = CompileOrDie(R"({"type":"object","properties":{"child":{"$ref":"#"}}})");
  EXPECT_TRUE(Valid(tree, R"({"child":{"child":{}}})"));
  EXPECT_FALSE(Valid(tree, R"({"child":{"child":1}})"));
}

TEST(SchemaTest, ExponentialSchemasStopAtTheEvaluationBudget) {
  // Each level tries both branches of anyOf on the same instance: 2^40 evaluations without
  // the budget.
  std::string defs;
  for (int i = 0; i < 40; ++i) {
    defs += "\"d" + std::to_string(i) + "\":{\"anyOf\":[{\"$ref\":\"#/$defs/d" +
            std::to_string(i + 1) + "\"},{\"$ref\":\"#/$defs/d" + std::to_string(i + 1) + "\"}]},";
  }
  defs += "\"d40\":{\"type\":\"string\"}";
  CompileOptions options;
  options.limits.max_evaluations_per_validation = 100'000;
  Schema schema = CompileOrDie("{\"$defs\":{" + defs + "},\"$ref\":\"#/$defs/d0\"}", options);
  json::Document instance = ParseOrDie("1");
  ValidationResult result = schema.Validate(instance.root());
  EXPECT_FALSE(result.valid);
  ASSERT_THAT(result.errors, SizeIs(1));
  EXPECT_THAT(result.errors[0].message, HasSubstr("validation stopped"));
  EXPECT_FALSE(schema.IsValid(instance.root()));
}

TEST(SchemaTest, CompiledNodesAreBounded) {
  std::string properties;
  for (int i = 0; i < 50; ++i) properties += "\"p" + std::to_string(i) + "\":{},";
  properties.pop_back();
  CompileOptions options;
  options.limits.max_nodes = 20;
  EXPECT_THAT(Refusal("{\"properties\":{" + properties + "}}", options),
              HasSubstr("more than 20 subschemas"));
  options.limits.max_schema_bytes = 10;
  EXPECT_THAT(Refusal(R"({"type":"string"})", options), HasSubstr("larger than the limit"));
}

TEST(SchemaTest, IntegerMeansMathematicalInteger) {
  Schema schema = CompileOrDie(R"({"type":"integer"})");
  for (const char* yes : {"1", "1.0", "-2e3", "1.5e1", "100000000000000000000000000001"}) {
    SCOPED_TRACE(yes);
    EXPECT_TRUE(Valid(schema, yes));
  }
  for (const char* no : {"1.5", "1e-1", "\"1\"", "9007199254740993.5"}) {
    SCOPED_TRACE(no);
    EXPECT_FALSE(Valid(schema, no));
  }
}

TEST(SchemaTest, NumbersAreComparedExactlyFromTheirLiterals) {
  Schema bounds = CompileOrDie(R"({"minimum":9007199254740993,"exclusiveMaximum":1e400})");
  EXPECT_FALSE(Valid(bounds, "9007199254740992"));  // equal as doubles, not as numbers
  EXPECT_TRUE(Valid(bounds, "9007199254740993"));
  EXPECT_TRUE(Valid(bounds, "9.99e399"));
  EXPECT_FALSE(Valid(bounds, "1e400"));
  Schema step = CompileOrDie(R"({"multipleOf":0.01})");
  EXPECT_TRUE(Valid(step, "19.99"));  // 19.99 / 0.01 is not an integer in binary floating point
  EXPECT_TRUE(Valid(step, "1e300"));
  EXPECT_FALSE(Valid(step, "0.001"));
  Schema constant = CompileOrDie(R"({"const":{"a":[1.0,9007199254740993]}})");
  EXPECT_TRUE(Valid(constant, R"({"a":[1,9007199254740993.0]})"));
  EXPECT_FALSE(Valid(constant, R"({"a":[1,9007199254740992]})"));
  EXPECT_THAT(Refusal(R"({"multipleOf":1.0000000000000000000000000000000000001})"),
              HasSubstr("at most 36 significant digits"));
}

TEST(SchemaTest, StringLengthCountsCodePoints) {
  Schema schema = CompileOrDie(R"({"maxLength":2})");
  EXPECT_TRUE(Valid(schema, "\"\xF0\x9F\x98\x82\xC3\xA9\""));
  EXPECT_FALSE(Valid(schema, "\"abc\""));
}

TEST(SchemaTest, FormatIsAnAnnotationNotAnAssertion) {
  Schema schema = CompileOrDie(R"({"format":"email"})");
  EXPECT_TRUE(Valid(schema, "\"not an email\""));
}

TEST(SchemaTest, ErrorsNameInstanceLocationSchemaLocationAndKeyword) {
  Schema schema = CompileOrDie(
      R"({"properties":{"items":{"type":"array","items":{"type":"string"}}},"required":["name"]})");
  json::Document instance = ParseOrDie(R"({"items":["a",3]})");
  ValidationResult result = schema.Validate(instance.root());
  ASSERT_FALSE(result.valid);
  ASSERT_THAT(result.errors, SizeIs(2));
  EXPECT_EQ(result.errors[0].keyword, "required");
  EXPECT_EQ(result.errors[0].instance_location, "");
  EXPECT_EQ(result.errors[0].schema_location, "#/required");
  EXPECT_THAT(result.errors[0].message, HasSubstr("missing required property \"name\""));
  EXPECT_EQ(result.errors[1].instance_location, "/items/1");
  EXPECT_EQ(result.errors[1].schema_location, "#/properties/items/items/type");
  EXPECT_THAT(result.errors[1].message, HasSubstr("expected string, got number"));
  EXPECT_THAT(result.Summary(), HasSubstr("/items/1: expected string, got number (type at "));
}

TEST(SchemaTest, ErrorsAreBoundedInNumberAndLengthAndEscaped) {
  Schema schema = CompileOrDie(R"({"additionalProperties":false})");
  std::string instance = "{";
  for (int i = 0; i < 50; ++i) instance += "\"k" + std::to_string(i) + "\":1,";
  instance += "\"\\u001b[2J" + std::string(5000, 'x') + "\":1}";
  json::Document doc = ParseOrDie(instance);
  ValidationResult result = schema.Validate(doc.root(), 5);
  EXPECT_FALSE(result.valid);
  EXPECT_THAT(result.errors, SizeIs(5));
  EXPECT_TRUE(result.errors_truncated);
  ValidationResult all = schema.Validate(doc.root(), 100);
  for (const ValidationError& e : all.errors) {
    EXPECT_LE(e.message.size(), 300u);
    EXPECT_LE(e.instance_location.size(), 300u);
    EXPECT_EQ(e.message.find('\x1b'), std::string::npos);
    EXPECT_EQ(e.instance_location.find('\x1b'), std::string::npos);
  }
}

TEST(SchemaTest, UnevaluatedPropertiesSeesThroughReferencesAndConditionals) {
  Schema schema = CompileOrDie(R"({
    "$defs": {"base": {"properties": {"a": true}}},
    "$ref": "#/$defs/base",
    "if": {"required": ["b"]}, "then": {"properties": {"b": true}},
    "unevaluatedProperties": false})");
  EXPECT_TRUE(Valid(schema, R"({"a":1})"));
  EXPECT_TRUE(Valid(schema, R"({"a":1,"b":2})"));
  EXPECT_FALSE(Valid(schema, R"({"a":1,"c":2})"));
}

TEST(SchemaTest, DynamicRefToTheDocumentsOwnAnchorRecurses) {
  Schema schema = CompileOrDie(R"({
    "$dynamicAnchor": "node", "type": "object",
    "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}})");
  EXPECT_TRUE(Valid(schema, R"({"children":[{"children":[]}]})"));
  EXPECT_FALSE(Valid(schema, R"({"children":[{"children":[1]}]})"));
}

TEST(SchemaTest, ValidationIsSafeFromManyThreads) {
  Schema schema = CompileOrDie(
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]})");
  json::Document good = ParseOrDie(R"({"n":1})");
  json::Document bad = ParseOrDie(R"({"n":-1})");
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if (!schema.IsValid(good.root())) ++wrong[t];
        if (schema.Validate(bad.root()).valid) ++wrong[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(wrong, ::testing::Each(0));
}

}  // namespace
}  // namespace agentrt::schema
