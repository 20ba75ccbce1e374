// What replaying a recorded run costs against running the same run on in-process fakes: a run
// of 20 steps whose tools start a process (count_words: start, write, close stdin, read, wait)
// and ask an HTTP server (fetch: send, two body reads), over an in-memory store. The floor is
// the run with the fake world itself; the replay serves every exchange of the same run from a
// cassette through one cursor, comparing each request with the recorded one. Recording the run
// (every exchange appended to an in-memory cassette) is measured too. Store opening and driver
// creation are outside the timed part. Figures in docs/performance.md.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/replay/recording_world.h"
#include "runtime/replay/replaying_world.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/fake_world.h"
#include "tools/agentrt/demos/world_demo_tools.h"

namespace agentrt {
namespace {

using store::ChainHead;

constexpr int kSteps = 20;
constexpr absl::Time kStart = absl::FromUnixSeconds(1'767'225'600);

class FinishTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    return {
        "finish", "End the run.", R"({"type":"object"})", SideEffect::kReadOnly, absl::Seconds(5),
        true};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{R"({"done":true})", "done"};
  }
};

// 19 tool steps alternating count_words and fetch, then finish.
std::vector<Decision> Script() {
  std::vector<Decision> script;
  for (int i = 0; i + 1 < kSteps; ++i) {
    script.push_back(
        i % 2 == 0 ? scripted::Call("count_words", absl::StrCat(R"({"text":"step )", i,
                                                                R"( of the quick brown fox"})"))
                   : scripted::Call("fetch", absl::StrCat(R"({"path":"/page/)", i, R"("})")));
  }
  script.push_back(scripted::Call("finish", "{}"));
  return script;
}

// One run of Script() in `w`; setup (store, tools, driver) paused when `state` is given.
ChainHead RunOnce(const world::World& w, benchmark::State* state) {
  if (state != nullptr) state->PauseTiming();
  world::ManualClock setup_clock(kStart);
  std::unique_ptr<store::Store> store = *records::OpenStoreInMemory(setup_clock);
  cli::CountWordsTool count(*w.launcher);
  cli::FetchTool fetch(*w.network, "http://status.test");
  FinishTool finish;
  ScriptedAgent agent(Script());
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&count, &fetch, &finish};
  options.scheduler = w.scheduler;
  std::unique_ptr<Driver> driver = *Driver::Create(*store, *w.clock, *w.entropy, options);
  if (state != nullptr) state->ResumeTiming();
  absl::StatusOr<Run> run = driver->Start("twenty steps");
  if (!run.ok() || run->status != RunStatus::kCompleted || run->step_count != kSteps) {
    if (state != nullptr) state->SkipWithError("the run did not complete its 20 steps");
  }
  if (state != nullptr) state->PauseTiming();
  ChainHead head = *store->Head();
  driver.reset();
  store.reset();
  if (state != nullptr) state->ResumeTiming();
  return head;
}

struct FakeWorld {
  world::ManualClock clock{kStart, {.tick = absl::Milliseconds(1)}};
  world::SeededEntropy entropy{7};
  test_support::FakeLauncher launcher;
  test_support::FakeNetwork network;
  world::World world{&clock, &clock, &entropy, &launcher, &network};
};

// The run recorded once; every replay serves it.
struct Recorded {
  replay::Cassette cassette;
  ChainHead head;
};

const Recorded& Recording() {
  static const Recorded* const recorded = [] {
    FakeWorld fake;
    replay::CassetteRecorder recorder;
    ChainHead head;
    {
      replay::RecordingWorld recording(fake.world, recorder);
      head = RunOnce(recording.world(), nullptr);
    }
    recorder.SetChainHead(head).IgnoreError();
    return new Recorded{recorder.cassette(), head};
  }();
  return *recorded;
}

void BM_FakeWorldRun(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    FakeWorld fake;
    state.ResumeTiming();
    benchmark::DoNotOptimize(RunOnce(fake.world, &state));
  }
  state.counters["steps/s"] =
      benchmark::Counter(kSteps, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_FakeWorldRun)->Unit(benchmark::kMicrosecond);

void BM_ReplayRun(benchmark::State& state) {
  const Recorded& recorded = Recording();
  for (auto _ : state) {
    state.PauseTiming();
    auto replaying = std::make_unique<replay::ReplayingWorld>(recorded.cassette);
    state.ResumeTiming();
    ChainHead head = RunOnce(replaying->world(), &state);
    if (!replaying->Finish(head).ok()) state.SkipWithError("the replay differed");
    state.PauseTiming();
    replaying.reset();
    state.ResumeTiming();
  }
  state.counters["exchanges"] = static_cast<double>(recorded.cassette.size());
  state.counters["steps/s"] =
      benchmark::Counter(kSteps, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReplayRun)->Unit(benchmark::kMicrosecond);

void BM_RecordRun(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    FakeWorld fake;
    auto recorder = std::make_unique<replay::CassetteRecorder>();
    auto recording = std::make_unique<replay::RecordingWorld>(fake.world, *recorder);
    state.ResumeTiming();
    benchmark::DoNotOptimize(RunOnce(recording->world(), &state));
    state.PauseTiming();
    recording.reset();
    recorder.reset();
    state.ResumeTiming();
  }
  state.counters["steps/s"] =
      benchmark::Counter(kSteps, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RecordRun)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
