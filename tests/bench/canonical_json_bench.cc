// Canonicalization speed against a floor: RapidJSON parsing and writing the same bytes with no
// sorting, no literal keeping and no UTF-8 validation. Inputs are (a) a ~1 MiB tools/list
// result of 1,000 realistic tool schemas and (b) one ~2 KiB schema.
// Results and the ratio are recorded in docs/performance.md.
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "runtime/json/canonical_json.h"

namespace agentrt::json {
namespace {

// One tool whose schema resembles what MCP servers list: nested objects, enums, bounds,
// patterns, descriptions with escapes and non-ASCII text. `i` varies names and numbers.
std::string ToolJson(int i) {
  return absl::StrCat(
      R"({"name":"tool_)", i, R"(_search_files","title":"Search files )", i,
      R"(","description":"Recursively search for files and directories matching a pattern.\n)",
      R"(Searches through all subdirectories from the starting path. The search is )",
      R"(case-insensitive and matches partial names — returns full paths (\u00e9t\u00e9).",)",
      R"("inputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema",)",
      R"("properties":{"path":{"type":"string","description":"Directory to start from",)",
      R"("minLength":1,"maxLength":4096},"pattern":{"type":"string","pattern":"^[^\\u0000]+$"},)",
      R"("excludePatterns":{"type":"array","items":{"type":"string"},"default":[],"maxItems":)",
      64 + i % 7, R"(},"limit":{"type":"integer","minimum":1,"maximum":10000,"default":100},)",
      R"("mode":{"enum":["glob","regex","literal"],"default":"glob"},"depth":{"type":"number",)",
      R"("exclusiveMinimum":0,"multipleOf":0.5},"options":{"type":"object","properties":{)",
      R"("followSymlinks":{"type":"boolean"},"hidden":{"type":"boolean"}},)",
      R"("additionalProperties":false}},"required":["path","pattern"],)",
      R"("additionalProperties":false},"annotations":{"readOnlyHint":true,)",
      R"("destructiveHint":false,"idempotentHint":true,"openWorldHint":false}})");
}

std::string ToolListing(int tools) {
  std::string out = R"({"jsonrpc":"2.0","id":7,"result":{"tools":[)";
  for (int i = 0; i < tools; ++i) {
    if (i > 0) out += ",";
    out += ToolJson(i);
  }
  out += R"(],"nextCursor":null}})";
  return out;
}

std::string SchemaOf2KiB() {
  std::string tool = ToolJson(1);
  std::string schema = tool.substr(tool.find("{\"type\""));
  schema = schema.substr(0, schema.rfind(",\"annotations\""));
  // Two copies under $defs bring it to about 2 KiB, like a schema with shared definitions.
  return absl::StrCat(schema.substr(0, schema.size() - 1), R"(,"$defs":{"filter":)", schema,
                      R"(,"sort":)", schema, "}}");
}

const std::string& Input(int which) {
  static const std::string* listing = new std::string(ToolListing(1000));
  static const std::string* schema = new std::string(SchemaOf2KiB());
  return which == 0 ? *listing : *schema;
}

void BM_Canonicalize(benchmark::State& state, int which) {
  const std::string& input = Input(which);
  for (auto _ : state) {
    absl::StatusOr<std::string> out = Canonicalize(input);
    if (!out.ok()) state.SkipWithError("canonicalize failed");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.counters["input_bytes"] = static_cast<double>(input.size());
}

void BM_RapidJsonParseWrite(benchmark::State& state, int which) {
  const std::string& input = Input(which);
  for (auto _ : state) {
    rapidjson::Document document;
    document.Parse(input.data(), input.size());
    if (document.HasParseError()) state.SkipWithError("rapidjson parse failed");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    document.Accept(writer);
    benchmark::DoNotOptimize(buffer.GetString());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
}

BENCHMARK_CAPTURE(BM_Canonicalize, 1MiB_listing, 0);
BENCHMARK_CAPTURE(BM_RapidJsonParseWrite, 1MiB_listing, 0);
BENCHMARK_CAPTURE(BM_Canonicalize, 2KiB_schema, 1);
BENCHMARK_CAPTURE(BM_RapidJsonParseWrite, 2KiB_schema, 1);

}  // namespace
}  // namespace agentrt::json

BENCHMARK_MAIN();
