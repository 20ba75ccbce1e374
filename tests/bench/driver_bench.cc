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
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "runtime/world/timestamp.h"
#include "tests/bench/reading_run.h"
#include "tests/support/tamper.h"

namespace agentrt {
namespace {

constexpr int kSteps = 20;

using bench::ReadingAgent;
using bench::ReadTool;

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
    auto store = file ? records::OpenStore(path, clock) : records::OpenStoreInMemory(clock);
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
  auto store = *records::OpenStoreInMemory(clock);
  ReadTool tool(SideEffect::kReadOnly, 100);
  ReadingAgent agent(1);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  for (auto _ : state) {
    DriverOptions options{&agent, policy.get(), {&tool}, "bench"};
    options.scheduler = &scheduler;
    benchmark::DoNotOptimize(*Driver::Create(*store, clock, entropy, options));
  }
}

// Empties an in-memory store between iterations: every row a run writes, and the event
// sequence's memory, go; the migrations' record stays, and so do the connection's prepared
// statements (a fresh connection per iteration would measure their preparation too). The rows
// that name a run go before the runs, so no foreign key is ever dangling.
absl::Status EmptyRuns(store::Store& store) {
  absl::StatusOr<std::vector<store::SqlRow>> tables = test_support::Peek(
      store, "the tables a run writes",
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
      "name <> 'schema_migrations' ORDER BY name = 'runs', name");
  if (!tables.ok()) return tables.status();
  return store.Write([&](store::Transaction& tx) -> absl::Status {
    for (const store::SqlRow& table : *tables) {
      absl::StatusOr<std::int64_t> deleted =
          test_support::TamperIn(tx, "a table emptied for the next iteration",
                                 absl::StrCat("DELETE FROM \"", table.at(0), "\""));
      if (!deleted.ok()) return deleted.status();
    }
    return test_support::TamperIn(tx, "the event sequence forgotten",
                                  "DELETE FROM sqlite_sequence WHERE name <> 'schema_migrations'")
        .status();
  });
}

// A driver over `store` for the reading run (reading_run.h) of `calls` reads of `bytes`, in the
// production world: the real clock, and one heartbeat thread for every run.
class ReadingDriver {
 public:
  ReadingDriver(store::Store& store, int calls, SideEffect effect, std::size_t bytes)
      : tool_(effect, bytes), agent_(calls) {
    DriverOptions options{&agent_, policy_.get(), {&tool_}, "bench"};
    options.scheduler = &scheduler_;
    driver_ = *Driver::Create(store, clock_, entropy_, options);
    limits_.max_steps = calls + 1;
  }

  // Runs one, and says whether it completed; the benchmark is skipped with the reason when not.
  bool Completed(benchmark::State& state) {
    absl::StatusOr<Run> run = driver_->Start("bench", limits_);
    if (run.ok() && run->status == RunStatus::kCompleted) return true;
    state.SkipWithError(run.ok() ? (run->reason + ": " + run->reason_detail).c_str()
                                 : std::string(run.status().message()).c_str());
    return false;
  }

 private:
  world::RealClock clock_;
  world::RealScheduler scheduler_;
  world::SeededEntropy entropy_{1};
  ReadTool tool_;
  ReadingAgent agent_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  Limits limits_;
  std::unique_ptr<Driver> driver_;
};

// The loop alone: a run of `steps` read calls and a `complete`, per step, with the store opened
// and the driver created once, outside the timing. The per-step figure at 400 steps must be the
// one at 10: a cost that grows with the run's length shows as a difference.
//
// In memory, the store is emptied before each run, outside the timing, as the simulator empties
// its database before each play: SQLite keeps every page of an in-memory database in its page
// cache, and a commit after a B-tree balance that moved pages walks that whole cache
// (docs/performance.md, "An in-memory store that keeps growing"), so without it the figure
// would grow with the number of runs the benchmark happened to make.
void BM_DriverLoop(benchmark::State& state) {
  bool file = state.range(0) == 1;
  int calls = static_cast<int>(state.range(1));
  auto bytes = static_cast<std::size_t>(state.range(2));
  bool side_effects = state.range(3) == 1;
  world::RealClock clock;
  std::string path = TempDb("loop");
  auto store = file ? *records::OpenStore(path, clock) : *records::OpenStoreInMemory(clock);
  auto driver = std::make_unique<ReadingDriver>(
      *store, calls, side_effects ? SideEffect::kLocalMutation : SideEffect::kReadOnly, bytes);
  for (auto _ : state) {
    if (!file) {
      state.PauseTiming();
      if (absl::Status emptied = EmptyRuns(*store); !emptied.ok()) {
        state.SkipWithError(std::string(emptied.message()).c_str());
        break;
      }
      state.ResumeTiming();
    }
    if (!driver->Completed(state)) break;
  }
  state.SetItemsProcessed(state.iterations() * (calls + 1));
  state.SetLabel("items = steps");
  driver.reset();
  store.reset();
  RemoveDb(path);
}

// One in-memory store that keeps every run: `held` finished runs of 10 read steps are written
// first (outside the timing), then runs of 10 steps are timed on top of them. A commit whose
// cost grows with what the database holds shows as a per-step figure above the one at held:0.
void BM_InMemoryStoreHolding(benchmark::State& state) {
  const int held = static_cast<int>(state.range(0));
  constexpr int kCalls = 10;
  world::RealClock clock;
  auto store = *records::OpenStoreInMemory(clock);
  ReadingDriver driver(*store, kCalls, SideEffect::kReadOnly, 100);
  for (int i = 0; i < held; ++i) {
    if (!driver.Completed(state)) return;
  }
  for (auto _ : state) {
    if (!driver.Completed(state)) break;
  }
  state.SetItemsProcessed(state.iterations() * (kCalls + 1));
  state.SetLabel("items = steps");
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
//
// `schema` 0 writes minimal tables (integer keys, no index, no constraint); 1 writes the same
// statements into the store's own tables (its migrations, foreign keys on): the text ids'
// unique indexes, a step naming its run's integer key found from the run's id (as the store's
// statements do), events with an explicit seq, a 64-character hash on each and the events_run
// index, and the event log's high-water mark raised once per transaction that appended. The
// difference between the two is what the schema costs; what is left between schema 1 and
// BM_DriverLoop is the engine's.
void BM_StepFloor(benchmark::State& state) {
  bool file = state.range(0) == 1;
  int calls = static_cast<int>(state.range(1));
  auto bytes = static_cast<std::size_t>(state.range(2));
  bool ours = state.range(3) == 1;
  std::string path = TempDb("floor");
  sqlite3* db = nullptr;
  sqlite3_open(file ? path.c_str() : ":memory:", &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
               nullptr);
  if (ours) {
    for (const store::Migration& m : records::Migrations()) {
      char* error = nullptr;
      if (sqlite3_exec(db, std::string(m.sql).c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        state.SkipWithError(absl::StrCat("migration ", m.version, ": ", error).c_str());
        sqlite3_free(error);
        return;
      }
    }
    sqlite3_exec(db, "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr);
  } else {
    sqlite3_exec(db,
                 "CREATE TABLE runs (id INTEGER PRIMARY KEY, steps INTEGER, state TEXT); "
                 "CREATE TABLE steps (id INTEGER PRIMARY KEY, run INTEGER, decision TEXT, "
                 "observation TEXT); "
                 "CREATE TABLE events (seq INTEGER PRIMARY KEY, run INTEGER, payload TEXT)",
                 nullptr, nullptr, nullptr);
  }
  auto prepare = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
      state.SkipWithError(sqlite3_errmsg(db));
    }
    return stmt;
  };
  sqlite3_stmt* begin = prepare("BEGIN IMMEDIATE");
  sqlite3_stmt* commit = prepare("COMMIT");
  sqlite3_stmt* new_run = ours ? prepare(
                                     "INSERT INTO runs (id, goal, status, limits_json, created_at) "
                                     "VALUES (?1, 'a goal', 'RUNNING', '{}', ?2)")
                               : prepare("INSERT INTO runs (steps, state) VALUES (0, ?2)");
  sqlite3_stmt* new_step =
      ours ? prepare(
                 "INSERT INTO steps (id, run_key, idx, status, started_at) "
                 "VALUES (?3, (SELECT run_key FROM runs WHERE id = ?1), ?2, 'DECIDING', "
                 "'2027-01-15T08:00:00.000000000Z')")
           : prepare("INSERT INTO steps (run, decision) VALUES (?1, '')");
  sqlite3_stmt* decide = ours ? prepare("UPDATE steps SET decision_json = ?1 WHERE id = ?2")
                              : prepare("UPDATE steps SET decision = ?1 WHERE id = ?2");
  sqlite3_stmt* observe =
      ours ? prepare("UPDATE steps SET observation_json = ?1, status = 'DONE' WHERE id = ?2")
           : prepare("UPDATE steps SET observation = ?1 WHERE id = ?2");
  sqlite3_stmt* count =
      ours ? prepare(
                 "UPDATE runs SET step_count = step_count + 1, reason_detail = ?1 "
                 "WHERE id = ?2")
           : prepare("UPDATE runs SET steps = steps + 1, state = ?1 WHERE id = ?2");
  sqlite3_stmt* event =
      ours ? prepare(
                 "INSERT INTO events (seq, run_id, step_id, at, type, payload_json, hash) "
                 "VALUES (?3, ?1, ?4, '2027-01-15T08:00:00.000000000Z', 'step.event', ?2, "
                 "?5)")
           : prepare("INSERT INTO events (run, payload) VALUES (?1, ?2)");
  sqlite3_stmt* high_water =
      ours ? prepare(
                 "INSERT INTO event_log_high_water (only, seq) VALUES (1, ?1) "
                 "ON CONFLICT (only) DO UPDATE SET seq = excluded.seq WHERE seq < excluded.seq")
           : nullptr;
  std::string small(100, 'e'), medium(200, 'e'), large(400, 'e'), decision(100, 'd');
  std::string observation(bytes, 'o'), hash(64, 'h');
  // Keys: integers in the minimal tables, 26-character text ids (the store's) in ours.
  std::string run_id, step_id;
  sqlite3_int64 run = 0, step_row = 0, seq = 0, ids = 0;
  bool failed = false;  // a statement refused (a constraint, say) would make the floor a lie
  auto run_stmt = [&](sqlite3_stmt* stmt) {
    if (stmt == commit && high_water != nullptr) {  // every transaction here appends events
      sqlite3_bind_int64(high_water, 1, seq);
      failed |= sqlite3_step(high_water) != SQLITE_DONE;
      sqlite3_reset(high_water);
    }
    failed |= sqlite3_step(stmt) != SQLITE_DONE;
    sqlite3_reset(stmt);
  };
  auto text = [](sqlite3_stmt* stmt, int i, const std::string& v) {
    sqlite3_bind_text(stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  };
  auto bind_key = [&](sqlite3_stmt* stmt, int i, sqlite3_int64 row, const std::string& id) {
    if (ours) {
      text(stmt, i, id);
    } else {
      sqlite3_bind_int64(stmt, i, row);
    }
  };
  auto new_id = [&] { return absl::StrCat("01J", std::string(17, '0'), 100000 + ++ids); };
  auto put_event = [&](const std::string& payload) {
    bind_key(event, 1, run, run_id);
    text(event, 2, payload);
    if (ours) {
      sqlite3_bind_int64(event, 3, ++seq);
      text(event, 4, step_id);
      text(event, 5, hash);
    }
    run_stmt(event);
  };
  for (auto _ : state) {
    if (!file) {  // the same conditions as BM_DriverLoop's: one run's worth in memory
      state.PauseTiming();
      sqlite3_exec(db, "DELETE FROM events; DELETE FROM steps; DELETE FROM runs", nullptr, nullptr,
                   nullptr);
      state.ResumeTiming();
    }
    run_stmt(begin);
    run_id = new_id();
    if (ours) text(new_run, 1, run_id);
    text(new_run, 2, medium);
    run_stmt(new_run);
    run = sqlite3_last_insert_rowid(db);
    step_id.clear();
    put_event(medium);  // run.created
    put_event(small);   // run.started
    run_stmt(commit);
    for (int step = 0; step <= calls; ++step) {
      run_stmt(begin);
      step_id = new_id();
      bind_key(new_step, 1, run, run_id);
      if (ours) {
        sqlite3_bind_int64(new_step, 2, step);
        text(new_step, 3, step_id);
      }
      run_stmt(new_step);
      step_row = sqlite3_last_insert_rowid(db);
      put_event(small);  // step.started
      run_stmt(commit);
      run_stmt(begin);
      text(decide, 1, decision);
      bind_key(decide, 2, step_row, step_id);
      run_stmt(decide);
      put_event(medium);  // step.decided
      if (step < calls) {
        put_event(large);   // step.policy
        put_event(medium);  // step.tool_started
        run_stmt(commit);
        run_stmt(begin);
        text(observe, 1, observation);
        bind_key(observe, 2, step_row, step_id);
        run_stmt(observe);
        put_event(medium);  // step.tool_finished
      }
      text(count, 1, small);
      bind_key(count, 2, run, run_id);
      run_stmt(count);
      if (step == calls) put_event(medium);  // run.finished
      run_stmt(commit);
    }
    if (failed) {
      state.SkipWithError(sqlite3_errmsg(db));
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * (calls + 1));
  for (sqlite3_stmt* stmt :
       {begin, commit, new_run, new_step, decide, observe, count, event, high_water}) {
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
// completes. Only the calls are timed: the run's creation, its step and its end are not a
// model call's cost (the benchmark pauses the timer around the run, the agent resumes it
// around its calls).
constexpr int kModelCalls = 20;
class CallingAgent final : public Agent {
 public:
  explicit CallingAgent(benchmark::State& state) : state_(state) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    ModelRequest request;
    request.messages.push_back(Message{"user", {ContentBlock{.type = "text", .text = "go on"}}});
    request.max_output_tokens = 256;
    state_.ResumeTiming();
    for (int i = 0; i < kModelCalls; ++i) {
      absl::StatusOr<ModelResponse> r = input.model->Generate(request);
      if (!r.ok()) {
        state_.PauseTiming();
        return r.status();
      }
    }
    state_.PauseTiming();
    Decision d;
    d.kind = "complete";
    return d;
  }

 private:
  benchmark::State& state_;
};

// Per model call: reserve (a run read and the limit checks), the dispatch transaction (row and
// event) and the outcome transaction (row, run totals, event).
void BM_ModelCallAccounted(benchmark::State& state) {
  bool file = state.range(0) == 1;
  world::RealClock clock;
  world::RealScheduler scheduler;  // the production world: one heartbeat thread for every run
  world::SeededEntropy entropy(1);
  std::string path = TempDb("model");
  auto store = file ? *records::OpenStore(path, clock) : *records::OpenStoreInMemory(clock);
  InstantModel model;
  CallingAgent agent(state);
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
    state.PauseTiming();
    if (!file) EmptyRuns(*store).IgnoreError();  // as BM_DriverLoop does, and why
    absl::StatusOr<Run> run = driver->Start("bench", limits);
    state.ResumeTiming();
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

// The floor for one model call: two transactions through the bare library, the first (the
// dispatch: two rows) committed durably as a crash-safe call's must be before the model is
// asked, the second (the outcome: two rows and an update) not.
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
      sqlite3_exec(db, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr);
      sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      put();
      put();
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
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

// Reading one back: the engine's own form read by hand against the general parser it falls back
// to (the same instant, checked by TimestampTest.ReadsAsTheGeneralParserDoes).
void BM_ParseTimestamp(benchmark::State& state) {
  const std::string text = world::FormatTimestamp(absl::FromUnixNanos(1'800'000'000'123'456'789));
  for (auto _ : state) benchmark::DoNotOptimize(world::ParseTimestamp(text));
}

void BM_AbslParseTimeSameText(benchmark::State& state) {
  const std::string text = world::FormatTimestamp(absl::FromUnixNanos(1'800'000'000'123'456'789));
  for (auto _ : state) {
    absl::Time t;
    std::string error;
    benchmark::DoNotOptimize(
        absl::ParseTime("%Y-%m-%d%ET%H:%M:%E9SZ", text, absl::UTCTimeZone(), &t, &error));
    benchmark::DoNotOptimize(t);
  }
}

BENCHMARK(BM_FormatTimestamp);
BENCHMARK(BM_AbslFormatTimeSameText);
BENCHMARK(BM_ParseTimestamp);
BENCHMARK(BM_AbslParseTimeSameText);
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
BENCHMARK(BM_InMemoryStoreHolding)
    ->Arg(0)
    ->Arg(1000)
    ->Arg(10000)
    ->ArgName("held")
    ->Iterations(300)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StepFloor)->Apply([](benchmark::internal::Benchmark* b) {
  for (int file : {0, 1}) {
    for (int steps : {10, 400}) {
      for (int bytes : {100, 8192}) {
        for (int schema : {0, 1}) b->Args({file, steps, bytes, schema});
      }
    }
  }
  b->ArgNames({"file", "steps", "bytes", "schema"});
  b->Unit(benchmark::kMicrosecond);
});
BENCHMARK(BM_ModelCallAccounted)->Arg(0)->Arg(1)->ArgName("file");
BENCHMARK(BM_BareSqliteModelCallWrites)->Arg(0)->Arg(1)->ArgName("file");

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
