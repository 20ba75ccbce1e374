// The peer: the same inputs as schema_bench through valijson (draft-07, RapidJSON adapter).
// Built only when valijson's headers were extracted under build/valijson (tools/dev/run bench
// does it); valijson is a benchmark peer, never a dependency of agentrt.
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "rapidjson/document.h"
#include "tests/bench/schema_bench_inputs.h"
#include "valijson/adapters/rapidjson_adapter.hpp"
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validator.hpp"

namespace agentrt::bench {
namespace {

struct Compiled {
  rapidjson::Document schema_document;
  std::unique_ptr<valijson::Schema> schema;
  rapidjson::Document instance;
};

std::unique_ptr<Compiled> CompileCase(const SchemaCase& c) {
  auto compiled = std::make_unique<Compiled>();
  compiled->schema_document.Parse(c.schema.data(), c.schema.size());
  compiled->schema = std::make_unique<valijson::Schema>();
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::RapidJsonAdapter adapter(compiled->schema_document);
  parser.populateSchema(adapter, *compiled->schema);
  compiled->instance.Parse(c.instance.data(), c.instance.size());
  return compiled;
}

bool Valid(const Compiled& c) {
  valijson::Validator validator;
  valijson::adapters::RapidJsonAdapter instance(c.instance);
  return validator.validate(*c.schema, instance, nullptr);
}

const std::vector<SchemaCase>& Tools() { return FilesystemToolCases(); }
const SchemaCase& Large() { return LargeGeneratedCase(); }

void BM_ValijsonCompile_FilesystemTools(benchmark::State& state) {
  for (auto _ : state) {
    for (const SchemaCase& c : Tools()) benchmark::DoNotOptimize(CompileCase(c));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * Tools().size()));
}

void BM_ValijsonValidate_FilesystemTools(benchmark::State& state) {
  std::vector<std::unique_ptr<Compiled>> compiled;
  for (const SchemaCase& c : Tools()) {
    compiled.push_back(CompileCase(c));
    if (!Valid(*compiled.back())) state.SkipWithError("instance invalid");
  }
  for (auto _ : state) {
    for (const auto& c : compiled) benchmark::DoNotOptimize(Valid(*c));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * compiled.size()));
}

void BM_ValijsonCompile_Large(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(CompileCase(Large()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Large().schema.size()));
}

void BM_ValijsonValidate_Large(benchmark::State& state) {
  std::unique_ptr<Compiled> c = CompileCase(Large());
  if (!Valid(*c)) state.SkipWithError("instance invalid");
  for (auto _ : state) benchmark::DoNotOptimize(Valid(*c));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Large().instance.size()));
}

BENCHMARK(BM_ValijsonCompile_FilesystemTools);
BENCHMARK(BM_ValijsonValidate_FilesystemTools);
BENCHMARK(BM_ValijsonCompile_Large);
BENCHMARK(BM_ValijsonValidate_Large);

}  // namespace
}  // namespace agentrt::bench

BENCHMARK_MAIN();
