// The step loop's cost per step against a floor: the same number of SQLite transactions and
// rows written through the bare library with no validation, policy, canonical JSON or hash
// chain. A tool step of the driver is four transactions (start, decision, tool start,
// outcome) carrying five events. Figures in docs/performance.md.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "benchmark/benchmark.h"
#include "runtime/driver.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

constexpr int kSteps = 20;

// Reads a file, or (as a local mutation) stands for a call whose effect cannot be taken back,
// whose start the driver makes durable before it runs.
class ReadTool final : public Tool {
 public:
  explicit ReadTool(SideEffect effect = SideEffect::kReadOnly) : effect_(effect) {}
  ToolSpec Spec() const override {
    return ToolSpec{"read_file",
                    "Read a text file.",
                    R"({"type":"object","properties":{"path":{"type":"string","minLength":1}},)"
                    R"("required":["path"],"additionalProperties":false})",
                    effect_,
                    absl::Seconds(5),
                    false};
  }
  SideEffect effect_;
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{R"({"text":"127.0.0.1 localhost"})", "read 19 bytes"};
  }
};

std::string TempDb(const char* name) {
  std::string path =
      (std::filesystem::temp_directory_path() /
       (std::string("agentrt_bench_") + name + "_" + std::to_string(::getpid()) + ".db"))
          .string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

void BM_DriverRun(benchmark::State& state) {
  bool file = state.range(0) == 1;
  bool side_effects = state.range(1) == 1;
  world::RealClock clock;
  world::RealScheduler scheduler;  // the production world: one heartbeat thread for every run
  world::SeededEntropy entropy(1);
  std::string path = TempDb("driver");
  auto store = file ? *store::Store::Open(path, clock) : *store::Store::OpenInMemory(clock);
  ReadTool tool(side_effects ? SideEffect::kLocalMutation : SideEffect::kReadOnly);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  Limits limits;
  limits.max_steps = kSteps + 1;
  limits.loop_threshold = kSteps + 1;
  for (auto _ : state) {
    std::vector<Decision> script;
    for (int i = 0; i < kSteps; ++i) {
      Decision d;
      d.kind = "tool_call";
      d.tool = "read_file";
      d.args = R"({"path":"/etc/hosts"})";
      script.push_back(d);
    }
    Decision done;
    done.kind = "complete";
    script.push_back(done);
    ScriptedAgent agent(script);
    DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
    options.scheduler = &scheduler;
    auto driver = *Driver::Create(*store, clock, entropy, options);
    absl::StatusOr<Run> run = driver->Start("bench", limits);
    if (!run.ok() || run->status != RunStatus::kCompleted) {
      state.SkipWithError(run.ok() ? (run->reason + ": " + run->reason_detail).c_str()
                                   : std::string(run.status().message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * (kSteps + 1));
  state.SetLabel("items = steps");
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void BM_BareSqliteSameWrites(benchmark::State& state) {
  bool file = state.range(0) == 1;
  std::string path = TempDb("bare");
  sqlite3* db = nullptr;
  sqlite3_open(file ? path.c_str() : ":memory:", &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
               nullptr);
  sqlite3_exec(db, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)", nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (?1)", -1, &insert, nullptr);
  std::string row(200, 'x');
  for (auto _ : state) {
    for (int step = 0; step < kSteps + 1; ++step) {
      for (int tx = 0; tx < 4; ++tx) {
        sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        for (int r = 0; r < 2; ++r) {  // a state row and an event
          sqlite3_bind_text(insert, 1, row.data(), static_cast<int>(row.size()), SQLITE_STATIC);
          sqlite3_step(insert);
          sqlite3_reset(insert);
        }
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * (kSteps + 1));
  sqlite3_finalize(insert);
  sqlite3_close(db);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// A model that answers at once: what remains is the accounting around each call.
class InstantModel final : public Model {
 public:
  std::string Name() const override { return "instant"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
    ModelResponse r;
    r.text = "ok";
    r.stop_reason = "end_turn";
    r.usage = Usage{1200, 80, 0};
    return r;
  }
};

// One step that makes kModelCalls model calls through the step's accounting caller, then
// completes.
constexpr int kModelCalls = 20;
class CallingAgent final : public Agent {
 public:
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    ModelRequest request;
    request.messages.push_back(Message{"user", {ContentBlock{.type = "text", .text = "go on"}}});
    request.max_output_tokens = 256;
    for (int i = 0; i < kModelCalls; ++i) {
      absl::StatusOr<ModelResponse> r = input.model->Generate(request);
      if (!r.ok()) return r.status();
    }
    Decision d;
    d.kind = "complete";
    return d;
  }
};

// Per model call: reserve (a run read and the limit checks), the dispatch transaction (row and
// event) and the outcome transaction (row, run totals, event).
void BM_ModelCallAccounted(benchmark::State& state) {
  bool file = state.range(0) == 1;
  world::RealClock clock;
  world::RealScheduler scheduler;  // the production world: one heartbeat thread for every run
  world::SeededEntropy entropy(1);
  std::string path = TempDb("model");
  auto store = file ? *store::Store::Open(path, clock) : *store::Store::OpenInMemory(clock);
  InstantModel model;
  CallingAgent agent;
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options{&agent, policy.get(), {}, "bench"};
  options.scheduler = &scheduler;
  options.model.model = &model;
  options.model.prices["instant"] = Price{3'000'000, 15'000'000, 300'000};
  auto driver = *Driver::Create(*store, clock, entropy, options);
  Limits limits;
  limits.max_model_calls = 1'000'000'000;
  limits.max_total_tokens = INT64_MAX / 2;
  for (auto _ : state) {
    absl::StatusOr<Run> run = driver->Start("bench", limits);
    if (!run.ok() || run->status != RunStatus::kCompleted) {
      state.SkipWithError(run.ok() ? (run->reason + ": " + run->reason_detail).c_str()
                                   : std::string(run.status().message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kModelCalls);
  state.SetLabel("items = model calls");
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// The floor for one model call: two transactions, the first writing two rows, the second two
// rows and an update, through the bare library.
void BM_BareSqliteModelCallWrites(benchmark::State& state) {
  bool file = state.range(0) == 1;
  std::string path = TempDb("baremodel");
  sqlite3* db = nullptr;
  sqlite3_open(file ? path.c_str() : ":memory:", &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
               nullptr);
  sqlite3_exec(db,
               "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); "
               "CREATE TABLE totals (k INTEGER PRIMARY KEY, n INTEGER); "
               "INSERT INTO totals VALUES (1, 0)",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (?1)", -1, &insert, nullptr);
  sqlite3_stmt* update = nullptr;
  sqlite3_prepare_v2(db, "UPDATE totals SET n = n + 1 WHERE k = 1", -1, &update, nullptr);
  std::string row(200, 'x');
  auto put = [&] {
    sqlite3_bind_text(insert, 1, row.data(), static_cast<int>(row.size()), SQLITE_STATIC);
    sqlite3_step(insert);
    sqlite3_reset(insert);
  };
  for (auto _ : state) {
    for (int call = 0; call < kModelCalls; ++call) {
      sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      put();
      put();
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      put();
      put();
      sqlite3_step(update);
      sqlite3_reset(update);
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
  }
  state.SetItemsProcessed(state.iterations() * kModelCalls);
  sqlite3_finalize(insert);
  sqlite3_finalize(update);
  sqlite3_close(db);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// The timestamp every write stamps: the hand-written fixed-width formatter against the general
// one it replaced (the same text, checked by TimestampTest.AgreesWithTheGeneralFormatter).
void BM_FormatTimestamp(benchmark::State& state) {
  absl::Time t = absl::FromUnixNanos(1'800'000'000'123'456'789);
  for (auto _ : state) {
    benchmark::DoNotOptimize(world::FormatTimestamp(t));
    t += absl::Nanoseconds(1'000'003);
  }
}

void BM_AbslFormatTimeSameText(benchmark::State& state) {
  absl::Time t = absl::FromUnixNanos(1'800'000'000'123'456'789);
  for (auto _ : state) {
    benchmark::DoNotOptimize(absl::FormatTime("%Y-%m-%d%ET%H:%M:%E9SZ", t, absl::UTCTimeZone()));
    t += absl::Nanoseconds(1'000'003);
  }
}

BENCHMARK(BM_FormatTimestamp);
BENCHMARK(BM_AbslFormatTimeSameText);
BENCHMARK(BM_DriverRun)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->ArgNames({"file", "side_effects"});
BENCHMARK(BM_ModelCallAccounted)->Arg(0)->Arg(1)->ArgName("file");
BENCHMARK(BM_BareSqliteModelCallWrites)->Arg(0)->Arg(1)->ArgName("file");
BENCHMARK(BM_BareSqliteSameWrites)->Arg(0)->Arg(1)->ArgName("file");

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
