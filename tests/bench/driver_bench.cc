// The step loop's cost per step against a floor (figures in docs/performance.md): opening a
// store and creating a driver are measured apart (BM_StoreOpen, BM_DriverCreate); the loop
// (BM_DriverLoop) runs 10 and 400 tool steps with 100-byte and 8 KiB observations, in memory
// and on a file, so a cost that grows with the run's length shows; its floor (BM_StepFloor)
// writes what a crash-safe step must write and nothing else. A model call accounted
// (BM_ModelCallAccounted) has its own floor (BM_BareSqliteModelCallWrites).
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
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
// whose start the driver makes durable before it runs. Its observation is `bytes` long (the
// reference's shapes: 100 bytes and 8 KiB).
class ReadTool final : public Tool {
 public:
  ReadTool(SideEffect effect, std::size_t bytes)
      : effect_(effect),
        content_(
            absl::StrCat(R"({"text":")", std::string(bytes > 12 ? bytes - 12 : 0, 'x'), R"("})")) {}
  ToolSpec Spec() const override {
    return ToolSpec{"read_file",
                    "Read a text file.",
                    R"({"type":"object","properties":{"path":{"type":"string","minLength":1}},)"
                    R"("required":["path"],"additionalProperties":false})",
                    effect_,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{content_, "read the file"};
  }

 private:
  SideEffect effect_;
  std::string content_;
};

// Asks for `calls` reads of distinct files, then completes: stateless (it reads the step
// count), so one agent serves every run of a benchmark. Distinct calls are what an agent makes;
// a run of identical ones is a loop the runtime ends at its threshold.
class ReadingAgent final : public Agent {
 public:
  explicit ReadingAgent(int calls) : calls_(calls) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    Decision d;
    if (input.run.step_count <= calls_) {
      d.kind = "tool_call";
      d.tool = "read_file";
      d.args = absl::StrCat(R"({"path":"/var/notes/)", input.run.step_count, R"("})");
    } else {
      d.kind = "complete";
    }
    return d;
  }

 private:
  int calls_;
};

std::string TempDb(const char* name) {
  std::string path =
      (std::filesystem::temp_directory_path() /
       (std::string("agentrt_bench_") + name + "_" + std::to_string(::getpid()) + ".db"))
          .string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

void RemoveDb(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// Opening a store: a new database created and migrated (a file in WAL mode, or in memory).
void BM_StoreOpen(benchmark::State& state) {
  bool file = state.range(0) == 1;
  world::RealClock clock;
  std::string path = TempDb("open");
  for (auto _ : state) {
    auto store = file ? store::Store::Open(path, clock) : store::Store::OpenInMemory(clock);
    if (!store.ok()) {
      state.SkipWithError(std::string(store.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    store->reset();
    RemoveDb(path);
    state.ResumeTiming();
  }
}

// Creating a driver: options checked, the tool's spec recorded (its schema compiled).
void BM_DriverCreate(benchmark::State& state) {
  world::RealClock clock;
  world::RealScheduler scheduler;
  world::SeededEntropy entropy(1);
  auto store = *store::Store::OpenInMemory(clock);
  ReadTool tool(SideEffect::kReadOnly, 100);
  ReadingAgent agent(1);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  for (auto _ : state) {
    DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
    options.scheduler = &scheduler;
    benchmark::DoNotOptimize(*Driver::Create(*store, clock, entropy, options));
  }
}

// The loop alone: a run of `steps` read calls and a `complete`, per step, with the store opened
// and the driver created once, outside the timing. The per-step figure at 400 steps must be the
// one at 10: a cost that grows with the run's length shows as a difference.
void BM_DriverLoop(benchmark::State& state) {
  bool file = state.range(0) == 1;
  int calls = static_cast<int>(state.range(1));
  auto bytes = static_cast<std::size_t>(state.range(2));
  bool side_effects = state.range(3) == 1;
  world::RealClock clock;
  world::RealScheduler scheduler;  // the production world: one heartbeat thread for every run
  world::SeededEntropy entropy(1);
  std::string path = TempDb("loop");
  auto store = file ? *store::Store::Open(path, clock) : *store::Store::OpenInMemory(clock);
  ReadTool tool(side_effects ? SideEffect::kLocalMutation : SideEffect::kReadOnly, bytes);
  ReadingAgent agent(calls);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
  options.scheduler = &scheduler;
  auto driver = *Driver::Create(*store, clock, entropy, options);
  Limits limits;
  limits.max_steps = calls + 1;
  for (auto _ : state) {
    absl::StatusOr<Run> run = driver->Start("bench", limits);
    if (!run.ok() || run->status != RunStatus::kCompleted) {
      state.SkipWithError(run.ok() ? (run->reason + ": " + run->reason_detail).c_str()
                                   : std::string(run.status().message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * (calls + 1));
  state.SetLabel("items = steps");
  driver.reset();
  store.reset();
  RemoveDb(path);
}

// The floor for the same run: what a crash-safe step must write, and nothing else, through the
// bare library with every statement prepared once (BEGIN and COMMIT included). Per tool step,
// three transactions: the step started (its row and an event); the decision and the intent,
// committed before the tool would run (the step row updated, three events: decided, policy,
// tool started); the outcome and the run's totals (the step row updated with the observation,
// the run row updated, an event). Rows and events are the size of ours: 100 to 400-byte
// events, the observation `bytes` long. The final `complete` step is two transactions. It
// leaves out everything that makes the step governed: intake and canonical JSON, the schema,
// the policy, SHA-256 of the content and of every event's chain link, the guards that a run is
// still this driver's, and the lease.
void BM_StepFloor(benchmark::State& state) {
  bool file = state.range(0) == 1;
  int calls = static_cast<int>(state.range(1));
  auto bytes = static_cast<std::size_t>(state.range(2));
  std::string path = TempDb("floor");
  sqlite3* db = nullptr;
  sqlite3_open(file ? path.c_str() : ":memory:", &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
               nullptr);
  sqlite3_exec(db,
               "CREATE TABLE runs (id INTEGER PRIMARY KEY, steps INTEGER, state TEXT); "
               "CREATE TABLE steps (id INTEGER PRIMARY KEY, run INTEGER, decision TEXT, "
               "observation TEXT); "
               "CREATE TABLE events (seq INTEGER PRIMARY KEY, run INTEGER, payload TEXT)",
               nullptr, nullptr, nullptr);
  auto prepare = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    return stmt;
  };
  sqlite3_stmt* begin = prepare("BEGIN IMMEDIATE");
  sqlite3_stmt* commit = prepare("COMMIT");
  sqlite3_stmt* new_run = prepare("INSERT INTO runs (steps, state) VALUES (0, ?1)");
  sqlite3_stmt* new_step = prepare("INSERT INTO steps (run, decision) VALUES (?1, '')");
  sqlite3_stmt* decide = prepare("UPDATE steps SET decision = ?1 WHERE id = ?2");
  sqlite3_stmt* observe = prepare("UPDATE steps SET observation = ?1 WHERE id = ?2");
  sqlite3_stmt* count = prepare("UPDATE runs SET steps = steps + 1, state = ?1 WHERE id = ?2");
  sqlite3_stmt* event = prepare("INSERT INTO events (run, payload) VALUES (?1, ?2)");
  std::string small(100, 'e'), medium(200, 'e'), large(400, 'e'), decision(100, 'd');
  std::string observation(bytes, 'o');
  auto run_stmt = [](sqlite3_stmt* stmt) {
    sqlite3_step(stmt);
    sqlite3_reset(stmt);
  };
  auto text = [](sqlite3_stmt* stmt, int i, const std::string& v) {
    sqlite3_bind_text(stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  };
  auto put_event = [&](sqlite3_int64 run, const std::string& payload) {
    sqlite3_bind_int64(event, 1, run);
    text(event, 2, payload);
    run_stmt(event);
  };
  for (auto _ : state) {
    run_stmt(begin);
    text(new_run, 1, medium);
    run_stmt(new_run);
    sqlite3_int64 run = sqlite3_last_insert_rowid(db);
    put_event(run, medium);  // run.created
    put_event(run, small);   // run.started
    run_stmt(commit);
    for (int step = 0; step <= calls; ++step) {
      run_stmt(begin);
      sqlite3_bind_int64(new_step, 1, run);
      run_stmt(new_step);
      sqlite3_int64 id = sqlite3_last_insert_rowid(db);
      put_event(run, small);  // step.started
      run_stmt(commit);
      run_stmt(begin);
      text(decide, 1, decision);
      sqlite3_bind_int64(decide, 2, id);
      run_stmt(decide);
      put_event(run, medium);  // step.decided
      if (step < calls) {
        put_event(run, large);   // step.policy
        put_event(run, medium);  // step.tool_started
        run_stmt(commit);
        run_stmt(begin);
        text(observe, 1, observation);
        sqlite3_bind_int64(observe, 2, id);
        run_stmt(observe);
        put_event(run, medium);  // step.tool_finished
      }
      text(count, 1, small);
      sqlite3_bind_int64(count, 2, run);
      run_stmt(count);
      if (step == calls) put_event(run, medium);  // run.finished
      run_stmt(commit);
    }
  }
  state.SetItemsProcessed(state.iterations() * (calls + 1));
  for (sqlite3_stmt* stmt : {begin, commit, new_run, new_step, decide, observe, count, event}) {
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  RemoveDb(path);
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
BENCHMARK(BM_StoreOpen)->Arg(0)->Arg(1)->ArgName("file")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DriverCreate)->Unit(benchmark::kMicrosecond);
// file, steps (tool calls), observation bytes, side effects.
void StepArgs(benchmark::internal::Benchmark* b) {
  for (int file : {0, 1}) {
    for (int steps : {10, 400}) {
      for (int bytes : {100, 8192}) b->Args({file, steps, bytes, 0});
    }
  }
  b->Args({1, 10, 100, 1});
  b->ArgNames({"file", "steps", "bytes", "side_effects"});
  b->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_DriverLoop)->Apply(StepArgs);
BENCHMARK(BM_StepFloor)->Apply([](benchmark::internal::Benchmark* b) {
  for (int file : {0, 1}) {
    for (int steps : {10, 400}) {
      for (int bytes : {100, 8192}) b->Args({file, steps, bytes});
    }
  }
  b->ArgNames({"file", "steps", "bytes"});
  b->Unit(benchmark::kMicrosecond);
});
BENCHMARK(BM_ModelCallAccounted)->Arg(0)->Arg(1)->ArgName("file");
BENCHMARK(BM_BareSqliteModelCallWrites)->Arg(0)->Arg(1)->ArgName("file");

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
