// What a run holds in the driver as it grows (the aim: a long run holds a few steps' worth, not
// all of them). The program links the test support that replaces operator new and delete and
// counts the bytes live at any moment (SQLite's own memory is not counted: it allocates with
// malloc). An agent that reads only the count of the steps before it asks for `steps` reads of
// 100-byte or 8 KiB results, then completes; at its last decision it notes the C++ bytes live
// beyond those before the run started. Figures in docs/performance.md.
#include <cstddef>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "runtime/driver.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/largest_allocation.h"

namespace agentrt {
namespace {

class ReadTool final : public Tool {
 public:
  explicit ReadTool(std::size_t bytes)
      : content_(absl::StrCat(R"({"text":")", std::string(bytes - 12, 'x'), R"("})")) {}
  ToolSpec Spec() const override {
    return ToolSpec{"read_file",
                    "Read a text file.",
                    R"({"type":"object","properties":{"path":{"type":"string"}},)"
                    R"("required":["path"]})",
                    SideEffect::kReadOnly,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{content_, "read the file"};
  }

 private:
  std::string content_;
};

// Reads distinct files until `calls` steps are behind it; at its last decision it notes what
// is live.
class CountingAgent final : public Agent {
 public:
  explicit CountingAgent(int calls) : calls_(calls) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    Decision d;
    if (static_cast<int>(input.steps.size()) >= calls_) {
      held_at_end = test_support::LiveBytes() - baseline;
      d.kind = "complete";
      return d;
    }
    d.kind = "tool_call";
    d.tool = "read_file";
    d.args = absl::StrCat(R"({"path":"/data/file-)", input.steps.size(), R"(.txt"})");
    return d;
  }
  std::int64_t baseline = 0;
  std::int64_t held_at_end = 0;

 private:
  int calls_;
};

void BM_DriverHeldBytes(benchmark::State& state) {
  int calls = static_cast<int>(state.range(0));
  auto bytes = static_cast<std::size_t>(state.range(1));
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  world::SeededEntropy entropy(1);
  ReadTool tool(bytes);
  CountingAgent agent(calls);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  std::int64_t held = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto store = *store::Store::OpenInMemory(clock);
    DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
    options.scheduler = &clock;
    auto driver = *Driver::Create(*store, clock, entropy, options);
    Limits limits;
    limits.max_steps = calls + 1;
    limits.loop_threshold = calls + 1;
    agent.baseline = test_support::LiveBytes();
    state.ResumeTiming();
    absl::StatusOr<Run> run = driver->Start("hold", limits);
    if (!run.ok() || run->status != RunStatus::kCompleted) {
      state.SkipWithError(run.ok() ? run->reason.c_str()
                                   : std::string(run.status().message()).c_str());
      break;
    }
    held = agent.held_at_end;
  }
  state.counters["held_bytes"] = static_cast<double>(held);
  state.counters["held_bytes_per_step"] = static_cast<double>(held) / calls;
  state.SetItemsProcessed(state.iterations() * (calls + 1));
}

BENCHMARK(BM_DriverHeldBytes)
    ->ArgsProduct({{100, 1000, 10000}, {100, 8192}})
    ->ArgNames({"steps", "bytes"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
