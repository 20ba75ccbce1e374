// What a run holds in the driver as it grows (the aim: a long run holds a few steps' worth, not
// all of them). The program links the test support that replaces operator new and delete and
// counts the bytes live at any moment (SQLite's own memory is not counted: it allocates with
// malloc). The benchmarks' reading run (reading_run.h), of `steps` reads of 100-byte or 8 KiB
// results, notes at its last decision the C++ bytes live beyond those before the run started.
// Figures in docs/performance.md.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/bench/reading_run.h"
#include "tests/support/largest_allocation.h"

namespace agentrt {
namespace {

void BM_DriverHeldBytes(benchmark::State& state) {
  int calls = static_cast<int>(state.range(0));
  auto bytes = static_cast<std::size_t>(state.range(1));
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  world::SeededEntropy entropy(1);
  bench::ReadTool tool(SideEffect::kReadOnly, bytes);
  std::int64_t baseline = 0;
  std::int64_t held_at_end = 0;
  bench::ReadingAgent agent(calls, [&] { held_at_end = test_support::LiveBytes() - baseline; });
  std::unique_ptr<Policy> policy = DefaultPolicy();
  for (auto _ : state) {
    state.PauseTiming();
    auto store = *records::OpenStoreInMemory(clock);
    DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
    options.scheduler = &clock;
    auto driver = *Driver::Create(*store, clock, entropy, options);
    Limits limits;
    limits.max_steps = calls + 1;
    baseline = test_support::LiveBytes();
    state.ResumeTiming();
    absl::StatusOr<Run> run = driver->Start("hold", limits);
    if (!run.ok() || run->status != RunStatus::kCompleted) {
      state.SkipWithError(run.ok() ? run->reason.c_str()
                                   : std::string(run.status().message()).c_str());
      break;
    }
  }
  state.counters["held_bytes"] = static_cast<double>(held_at_end);
  state.counters["held_bytes_per_step"] = static_cast<double>(held_at_end) / calls;
  state.SetItemsProcessed(state.iterations() * (calls + 1));
}

BENCHMARK(BM_DriverHeldBytes)
    // 100,000 steps with 8 KiB results would hold a gigabyte in the in-memory database alone.
    ->ArgsProduct({{100, 1000, 10000, 100000}, {100}})
    ->ArgsProduct({{100, 1000, 10000}, {8192}})
    ->ArgNames({"steps", "bytes"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
