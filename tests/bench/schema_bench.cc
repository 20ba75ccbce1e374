// Compile and validate speed of agentrt::schema on the pinned filesystem server's 14 tool
// schemas and on a large generated schema. The floor for validation is json::Parse of the
// same instance (validation receives an already parsed document); the peer library is
// measured by schema_valijson_bench on the same inputs. Figures in docs/performance.md.
#include <vector>

#include "benchmark/benchmark.h"
#include "runtime/json/intake.h"
#include "runtime/schema/schema.h"
#include "tests/bench/schema_bench_inputs.h"

namespace agentrt::bench {
namespace {

const std::vector<SchemaCase>& Tools() { return FilesystemToolCases(); }
const SchemaCase& Large() { return LargeGeneratedCase(); }

void BM_SchemaCompile_FilesystemTools(benchmark::State& state) {
  for (auto _ : state) {
    for (const SchemaCase& c : Tools()) {
      absl::StatusOr<schema::Schema> s = schema::Schema::Compile(c.schema);
      if (!s.ok()) state.SkipWithError("compile failed");
      benchmark::DoNotOptimize(s);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * Tools().size()));
}

void BM_SchemaValidate_FilesystemTools(benchmark::State& state) {
  std::vector<schema::Schema> schemas;
  std::vector<json::Document> instances;
  for (const SchemaCase& c : Tools()) {
    schemas.push_back(*schema::Schema::Compile(c.schema));
    instances.push_back(*json::Parse(c.instance));
    if (!schemas.back().IsValid(instances.back().root())) state.SkipWithError("instance invalid");
  }
  for (auto _ : state) {
    for (std::size_t i = 0; i < schemas.size(); ++i) {
      benchmark::DoNotOptimize(schemas[i].IsValid(instances[i].root()));
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * schemas.size()));
}

void BM_SchemaCompile_Large(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<schema::Schema> s = schema::Schema::Compile(Large().schema);
    if (!s.ok()) state.SkipWithError("compile failed");
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Large().schema.size()));
}

void BM_SchemaValidate_Large(benchmark::State& state) {
  schema::Schema s = *schema::Schema::Compile(Large().schema);
  json::Document instance = *json::Parse(Large().instance);
  if (!s.IsValid(instance.root())) state.SkipWithError("instance invalid");
  for (auto _ : state) benchmark::DoNotOptimize(s.IsValid(instance.root()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Large().instance.size()));
}

void BM_ParseInstance_Large(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(json::Parse(Large().instance));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Large().instance.size()));
}

BENCHMARK(BM_SchemaCompile_FilesystemTools);
BENCHMARK(BM_SchemaValidate_FilesystemTools);
BENCHMARK(BM_SchemaCompile_Large);
BENCHMARK(BM_SchemaValidate_Large);
BENCHMARK(BM_ParseInstance_Large);

}  // namespace
}  // namespace agentrt::bench

BENCHMARK_MAIN();
