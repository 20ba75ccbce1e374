#include "tests/bench/schema_bench_inputs.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace agentrt::bench {
namespace {

// A plausible valid value for a schema of the simple shapes tool schemas use.
std::string Example(json::Value schema) {
  if (auto e = schema.Find("enum"); e && e->size() > 0) return json::WriteCanonical(e->element(0));
  std::optional<json::Value> type = schema.Find("type");
  std::string_view t = type && type->is_string() ? type->string_value() : "string";
  if (t == "object") {
    std::string out = "{";
    if (auto properties = schema.Find("properties")) {
      for (std::size_t i = 0; i < properties->size(); ++i) {
        if (out.size() > 1) out += ",";
        json::AppendCanonicalString(properties->key(i), out);
        out += ":" + Example(properties->member(i));
      }
    }
    return out + "}";
  }
  if (t == "array") {
    std::optional<json::Value> items = schema.Find("items");
    std::string one = items ? Example(*items) : "\"x\"";
    return "[" + one + "," + one + "]";
  }
  if (t == "number" || t == "integer") return "42";
  if (t == "boolean") return "true";
  return "\"/srv/projects/agentrt/README.md\"";
}

std::vector<SchemaCase> ReadFilesystemToolCases() {
  std::string path =
      std::string(AGENTRT_SOURCE_DIR) + "/fixtures/schemas/server-filesystem-tools.json";
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  absl::StatusOr<json::Document> tools = json::Parse(bytes.str());
  if (!tools.ok() || !tools->root().is_array()) {
    std::cerr << "cannot read " << path << "\n";
    std::abort();
  }
  std::vector<SchemaCase> cases;
  for (std::size_t i = 0; i < tools->root().size(); ++i) {
    json::Value tool = tools->root().element(i);
    json::Value schema = *tool.Find("inputSchema");
    cases.push_back(SchemaCase{std::string(tool.Find("name")->string_value()),
                               json::WriteCanonical(schema), Example(schema)});
  }
  return cases;
}

SchemaCase GenerateLargeCase(int properties) {
  std::string schema =
      R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{)";
  std::string instance = "{";
  std::string required;
  for (int i = 0; i < properties; ++i) {
    std::string name = absl::StrCat("field_", i);
    if (i > 0) {
      schema += ",";
      instance += ",";
    }
    switch (i % 5) {
      case 0:
        absl::StrAppend(
            &schema, "\"", name,
            R"(":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z][a-z0-9_]*$"})");
        absl::StrAppend(&instance, "\"", name, "\":\"value_", i, "\"");
        break;
      case 1:
        absl::StrAppend(&schema, "\"", name,
                        R"(":{"type":"integer","minimum":0,"maximum":100000,"multipleOf":1})");
        absl::StrAppend(&instance, "\"", name, "\":", i * 7);
        break;
      case 2:
        absl::StrAppend(&schema, "\"", name, R"(":{"enum":["read","write","append","delete"]})");
        absl::StrAppend(&instance, "\"", name, "\":\"append\"");
        break;
      case 3:
        absl::StrAppend(
            &schema, "\"", name,
            R"(":{"type":"array","items":{"type":"number","exclusiveMinimum":0},"maxItems":16,"uniqueItems":true})");
        absl::StrAppend(&instance, "\"", name, "\":[1.5,2.5,3.5,4.5]");
        break;
      case 4:
        absl::StrAppend(
            &schema, "\"", name,
            R"(":{"type":"object","properties":{"enabled":{"type":"boolean"},"label":{"type":"string"}},"required":["enabled"],"additionalProperties":false})");
        absl::StrAppend(&instance, "\"", name, "\":{\"enabled\":true,\"label\":\"x\"}");
        break;
    }
    if (i % 3 == 0) absl::StrAppend(&required, required.empty() ? "" : ",", "\"", name, "\"");
  }
  absl::StrAppend(&schema, "},\"required\":[", required, "],\"additionalProperties\":false}");
  instance += "}";
  return SchemaCase{absl::StrCat("generated_", properties), schema, instance};
}

}  // namespace

const std::vector<SchemaCase>& FilesystemToolCases() {
  static const auto* cases = new std::vector<SchemaCase>(ReadFilesystemToolCases());
  return *cases;
}

const SchemaCase& LargeGeneratedCase() {
  static const auto* large = new SchemaCase(GenerateLargeCase(500));
  return *large;
}

}  // namespace agentrt::bench
