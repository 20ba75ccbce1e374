// Drivers on one database, SQLite against PostgreSQL (figures in docs/performance.md, "Drivers on a
// PostgreSQL server"; docs/scale-out.md).
//  - BM_DriverProcesses/server:S/procs:P: P driver processes (tests/runtime/race_child.cc), each
//    running a run of kSteps read steps to completion, started together at a barrier on one
//    database: a SQLite file (S = 0) or a PostgreSQL server (S = 1) this program starts for itself
//    (tools/dev/postgres, fsync on). Timed from the start line to the last process's answer:
//    opening the store and making the driver are not timed. Counter: steps a second, all
//    processes together.
//  - BM_LibpqFloor: the floor. The statements one of those runs sent to the server (captured
//    from the server's statement log while a driver process ran it), sent again by one libpq
//    connection, prepared beforehand, each run into a new schema: what a run costs the server
//    and the round trips alone. Counter: steps a second.
// The server cases skip when no PostgreSQL server is installed.
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "tests/support/raced_children.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;

constexpr int kSteps = 20;

// The program's own server (fsync on), started at the first server case and stopped at exit:
// under the build folder when run from the source tree (tools/dev/run bench), else in the
// temporary folder.
test_support::OwnServer& Server() {
  static test_support::OwnServer server(
      (fs::exists(fs::current_path() / "build")
           ? fs::current_path() / "build" / "bench-postgres"
           : fs::temp_directory_path() / absl::StrCat("agentrt-bench-postgres-", ::getpid()))
          .string(),
      /*durable=*/true);
  return server;
}

// A new schema's URL on it, with `extra_options` (more of libpq's " -c" settings) added.
std::string NewSchema(const std::string& extra_options = "") {
  static int next = 0;
  return Server().NewSchema(absl::StrCat("b", next++)) + extra_options;
}

// Runs `procs` driver processes on `db` from one start line; returns the seconds from the start
// line to the last answer, or nullopt (with `error`) when a run did not complete. `after_ready`
// runs once every process is ready, before the start line.
std::optional<double> RaceDrivers(const std::string& db, int procs, std::string* error,
                                  const std::function<void()>& after_ready = {}) {
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < procs; ++i) {
    commands.push_back(
        {AGENTRT_RACE_CHILD, "start", db, absl::StrCat("run-", i), absl::StrCat(kSteps)});
  }
  test_support::Race race = test_support::RaceChildren(commands, after_ready);
  for (const std::string& ready : race.ready) {
    if (ready != "ready") *error = "a driver said: " + ready;
  }
  for (const std::string& done : race.said) {
    if (done != "ran COMPLETED") *error = "a driver said: " + done;
  }
  if (!error->empty()) return std::nullopt;
  return race.seconds;
}

void BM_DriverProcesses(benchmark::State& state) {
  const bool server = state.range(0) == 1;
  const int procs = static_cast<int>(state.range(1));
  if (server && Server().url().empty()) {
    state.SkipWithError("no PostgreSQL server (install postgresql-15)");
    return;
  }
  double seconds = 0;
  std::int64_t runs = 0;
  int file = 0;
  for (auto _ : state) {
    std::string db = server ? NewSchema()
                            : (fs::temp_directory_path() /
                               absl::StrCat("agentrt-scale-", ::getpid(), "-", file++, ".db"))
                                  .string();
    {
      world::ManualClock clock(absl::Now());  // the tables made before the race
      if (!records::OpenStore(db, clock).ok()) {
        state.SkipWithError("cannot make the database");
        return;
      }
    }
    std::string error;
    std::optional<double> took = RaceDrivers(db, procs, &error);
    if (!server) {
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
    }
    if (!took) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(*took);
    seconds += *took;
    runs += procs;
  }
  state.counters["steps_per_s"] = static_cast<double>(runs * kSteps) / seconds;
  state.counters["us_per_step"] = seconds * 1e6 / static_cast<double>(runs * kSteps);
}
BENCHMARK(BM_DriverProcesses)
    ->ArgNames({"server", "procs"})
    ->ArgsProduct({{0, 1}, {1, 4, 16}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// --- The floor: the same statements through libpq ------------------------------------------

struct Statement {
  std::string sql;  // $N parameters
  std::vector<std::string> params;
  bool null_param = false;
};

// The statements the log holds after `offset` bytes: "execute <name>: SQL" with its "DETAIL:
// parameters: $1 = '...', ..." line, and "statement: SQL".
std::vector<Statement> ReadStatements(const std::string& log, std::streamoff offset) {
  std::ifstream in(log);
  in.seekg(offset);
  std::vector<Statement> statements;
  std::string line;
  while (std::getline(in, line)) {
    if (!statements.empty() && line.starts_with("\t")) {  // a statement's next line
      statements.back().sql += "\n" + line.substr(1);
      continue;
    }
    for (std::string_view tag : {"LOG:  statement: ", "LOG:  execute "}) {
      std::size_t at = line.find(tag);
      if (at == std::string::npos) continue;
      std::string sql = line.substr(at + tag.size());
      if (tag == "LOG:  execute ") sql = sql.substr(sql.find(": ") + 2);
      statements.push_back({sql, {}});
    }
    std::size_t detail = line.find("DETAIL:  parameters: ");
    if (detail == std::string::npos || statements.empty()) continue;
    // $1 = 'text with '' doubled', $2 = '5', $3 = NULL
    std::string rest = line.substr(detail + 21);
    std::size_t i = 0;
    while (i < rest.size()) {
      std::size_t eq = rest.find(" = ", i);
      if (eq == std::string::npos) break;
      i = eq + 3;
      if (rest.compare(i, 4, "NULL") == 0) {
        statements.back().params.push_back("");
        statements.back().null_param = true;
        i += 4;
      } else {
        std::string value;
        for (++i; i < rest.size(); ++i) {
          if (rest[i] == '\'') {
            if (i + 1 < rest.size() && rest[i + 1] == '\'') {
              value += '\'';
              ++i;
              continue;
            }
            ++i;
            break;
          }
          value += rest[i];
        }
        statements.back().params.push_back(value);
      }
      i = rest.find(", $", i);
      if (i == std::string::npos) break;
      i += 2;
    }
  }
  return statements;
}

// The statements one driver process's run sends, captured once.
const std::vector<Statement>& CapturedRun() {
  static const std::vector<Statement> run = [] {
    std::string db = NewSchema("%20-clog_statement%3Dall");
    world::ManualClock clock(absl::Now());
    if (!records::OpenStore(db, clock).ok()) return std::vector<Statement>();
    std::streamoff mark = 0;
    std::string error;
    RaceDrivers(db, 1, &error,
                [&] { mark = static_cast<std::streamoff>(fs::file_size(Server().log())); });
    if (!error.empty()) return std::vector<Statement>();
    return ReadStatements(Server().log(), mark);
  }();
  return run;
}

void BM_LibpqFloor(benchmark::State& state) {
  if (Server().url().empty()) {
    state.SkipWithError("no PostgreSQL server (install postgresql-15)");
    return;
  }
  const std::vector<Statement>& run = CapturedRun();
  if (run.empty()) {
    state.SkipWithError("no statement was captured");
    return;
  }
  PGconn* conn = PQconnectdb(Server().url().c_str());
  PQclear(PQexec(conn, "SET synchronous_commit = off"));
  std::map<std::string, std::string> names;  // prepared once, by text
  double seconds = 0;
  std::int64_t runs = 0;
  std::string failed;
  for (auto _ : state) {
    state.PauseTiming();
    static int floors = 0;  // every repetition's runs in schemas of their own
    std::string schema = absl::StrCat("floor", floors++);
    {
      // A new schema holding the tables, as the driver's was when its run started.
      world::ManualClock clock(absl::Now());
      (void)records::OpenStore(Server().NewSchema(schema), clock);
    }
    PQclear(PQexec(conn, absl::StrCat("SET search_path = ", schema).c_str()));
    for (const Statement& s : run) {
      if (s.params.empty() || names.contains(s.sql)) continue;
      std::string name = absl::StrCat("floor_", names.size());
      PQclear(PQprepare(conn, name.c_str(), s.sql.c_str(), 0, nullptr));
      names[s.sql] = name;
    }
    state.ResumeTiming();
    auto start = std::chrono::steady_clock::now();
    for (const Statement& s : run) {
      PGresult* r;
      if (s.params.empty()) {
        r = PQexec(conn, s.sql.c_str());
      } else {
        std::vector<const char*> values;
        for (const std::string& p : s.params) values.push_back(p.c_str());
        r = PQexecPrepared(conn, names[s.sql].c_str(), static_cast<int>(values.size()),
                           values.data(), nullptr, nullptr, 0);
      }
      ExecStatusType status = PQresultStatus(r);
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && failed.empty()) {
        failed = absl::StrCat(PQresultErrorMessage(r), " in: ", s.sql.substr(0, 200));
      }
      PQclear(r);
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++runs;
  }
  PQfinish(conn);
  if (!failed.empty()) {
    state.SkipWithError(failed.c_str());
    return;
  }
  state.counters["statements_per_step"] = static_cast<double>(run.size()) / kSteps;
  state.counters["steps_per_s"] = static_cast<double>(runs * kSteps) / seconds;
  state.counters["us_per_step"] = seconds * 1e6 / static_cast<double>(runs * kSteps);
}
BENCHMARK(BM_LibpqFloor)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace agentrt

BENCHMARK_MAIN();
