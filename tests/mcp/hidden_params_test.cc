// Hiding denied and fixed parameters from the model's schema only when that is sound
// (docs/mcp.md, "Check").
#include "mcp/hidden_params.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

constexpr char kWriteSchema[] =
    R"({"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"},)"
    R"("force":{"type":"boolean"}},"required":["path","text"])";

// kWriteSchema with `extra` members added at the top.
std::string WriteSchemaWith(const std::string& extra) {
  return std::string(kWriteSchema) + extra + "}";
}

TEST(CheckHideableTest, RefusesWhatCouldStillDescribeOrRequireAHiddenName) {
  struct Row {
    const char* label;
    std::string schema;
    std::vector<std::string> hidden;
    std::string error;
  };
  const std::string kNotTop = ", which is not a top-level property of the input schema";
  for (const Row& row : std::vector<Row>{
           {"misspelt deny", WriteSchemaWith(""), {"forse"}, "the rule hides \"forse\"" + kNotTop},
           {"fixed not a property",
            WriteSchemaWith(""),
            {"force", "nonexistent"},
            "the rule hides \"nonexistent\"" + kNotTop},
           {"no properties",
            R"({"type":"object"})",
            {"force"},
            "the rule hides \"force\"" + kNotTop},
           {"properties not an object",
            R"({"type":"object","properties":["force"]})",
            {"force"},
            "the rule hides \"force\"" + kNotTop},
           {"not an object schema",
            R"([{"properties":{"force":{}}}])",
            {"force"},
            "the rule hides \"force\"" + kNotTop},
           {"nested only",
            R"({"type":"object","properties":{"opts":{"properties":{"force":{}}}}})",
            {"force"},
            "the rule hides \"force\"" + kNotTop},
           {"anyOf requires it",
            WriteSchemaWith(R"(,"anyOf":[{"required":["force"]},{"required":["path"]}])"),
            {"force"},
            "the rule hides \"force\" and the input schema's anyOf mentions it"},
           {"patternProperties",
            WriteSchemaWith(R"(,"patternProperties":{"^f":{"type":"boolean"}})"),
            {"force"},
            "the rule hides parameters and the input schema has patternProperties, which could "
            "still match them"},
           {"dependentRequired",
            WriteSchemaWith(R"(,"dependentRequired":{"path":["force"]})"),
            {"force"},
            "the rule hides \"force\" and the input schema's dependentRequired mentions it"},
           {"then requires the fixed root",
            R"({"type":"object","properties":{"path":{"type":"string"},"root":{"type":"string"}},)"
            R"("if":{"properties":{"path":{"const":"/"}}},"then":{"required":["root"]}})",
            {"root"},
            "the rule hides \"root\" and the input schema's then mentions it"},
           {"$defs key",
            WriteSchemaWith(R"(,"$defs":{"force":{"type":"boolean"}})"),
            {"force"},
            "the rule hides \"force\" and the input schema's $defs mentions it"},
           {"keyword order before name order",
            WriteSchemaWith(R"(,"not":{"required":["text"]},"allOf":[{"required":["force"]}])"),
            {"text", "force"},
            "the rule hides \"force\" and the input schema's allOf mentions it"},
           {"name order within a keyword",
            WriteSchemaWith(R"(,"oneOf":[{"required":["force"]},{"required":["text"]}])"),
            {"text", "force"},
            "the rule hides \"text\" and the input schema's oneOf mentions it"},
           {"dependencies",
            WriteSchemaWith(R"(,"dependencies":{"force":["path"]})"),
            {"force"},
            "the rule hides \"force\" and the input schema's dependencies mentions it"},
           {"definitions value",
            WriteSchemaWith(R"(,"definitions":{"x":{"enum":["force"]}})"),
            {"force"},
            "the rule hides \"force\" and the input schema's definitions mentions it"},
           {"not JSON", "{", {"force"}, "the input schema cannot be restricted: json: "},
           {"repeated key",
            R"({"properties":{},"properties":{}})",
            {"force"},
            "the input schema cannot be restricted: json: duplicate object key"},
       }) {
    SCOPED_TRACE(row.label);
    absl::Status s = CheckHideable(row.schema, row.hidden);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr(row.error));
  }
}

TEST(CheckHideableTest, AcceptsWhatCannotReachTheHiddenName) {
  struct Row {
    const char* label;
    std::string schema;
    std::vector<std::string> hidden;
  };
  for (const Row& row : std::vector<Row>{
           {"nested: force also under a nested property",
            R"({"type":"object","properties":{"force":{"type":"boolean"},)"
            R"("opts":{"type":"object","properties":{"force":{"type":"string"}}}}})",
            {"force"}},
           {"unrelated",
            WriteSchemaWith(R"(,"oneOf":[{"required":["path"]},{"required":["text"]}])"),
            {"force"}},
           {"numbers and booleans never mention",
            WriteSchemaWith(R"(,"allOf":[{"maximum":1,"x":true}])"),
            {"force"}},
           {"nothing hidden, not even JSON", "not json", {}},
           {"several", WriteSchemaWith(""), {"force", "text"}},
       }) {
    SCOPED_TRACE(row.label);
    absl::Status s = CheckHideable(row.schema, row.hidden);
    EXPECT_OK(s);
  }
}

TEST(RestrictTest, RemovesAFixedRootEverywhereItWasAndKeepsTheRest) {
  absl::StatusOr<std::string> restricted = Restrict(
      R"({"type":"object","properties":{"path":{"type":"string"},"root":{"type":"string"}},)"
      R"("required":["path","root"]})",
      {"root"});
  ASSERT_OK(restricted);
  EXPECT_EQ(*restricted,
            R"({"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"})");
  EXPECT_THAT(*restricted, Not(HasSubstr("root")));
}

TEST(RestrictTest, DropsAnEmptiedRequiredAndKeepsOtherEntriesAndLiterals) {
  absl::StatusOr<std::string> restricted = Restrict(
      R"({"type" : "object", "maximum": 9007199254740993, "properties": {"force": {}, "z": {"default": 1.0}},)"
      R"( "required": ["force"], "additionalProperties": false})",
      {"force"});
  ASSERT_OK(restricted);
  EXPECT_EQ(*restricted, R"({"additionalProperties":false,"maximum":9007199254740993,)"
                         R"("properties":{"z":{"default":1}},"type":"object"})");

  restricted = Restrict(R"({"properties":{"a":{},"b":{}},"required":[1,"a","b",null]})", {"a"});
  ASSERT_OK(restricted);
  EXPECT_EQ(*restricted, R"({"properties":{"b":{}},"required":[1,"b",null]})");
}

TEST(RestrictTest, NothingHiddenKeepsTheSchemaBytes) {
  const std::string schema = "{ \"type\" : \"object\" }";
  absl::StatusOr<std::string> restricted = Restrict(schema, {});
  ASSERT_OK(restricted);
  EXPECT_EQ(*restricted, schema);
}

TEST(RestrictTest, RefusesWhatIsNotAnObject) {
  EXPECT_THAT(std::string(Restrict("[]", {"a"}).status().message()),
              HasSubstr("the input schema cannot be restricted: it is not a JSON object"));
  EXPECT_THAT(std::string(Restrict("{", {"a"}).status().message()),
              HasSubstr("the input schema cannot be restricted: json: "));
}

}  // namespace
}  // namespace agentrt::mcp
