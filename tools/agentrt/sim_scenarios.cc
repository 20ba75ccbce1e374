// `agentrt sim run | swarm | shrink`: the simulator's commands (docs/simulator.md).
#include "tools/agentrt/sim_scenarios.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/base/temp_dir.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/copy.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/real_filesystem.h"
#include "sim/generate.h"
#include "sim/judge.h"
#include "sim/junit.h"
#include "sim/scenario_file.h"
#include "sim/shrink.h"
#include "sim/swarm.h"
#include "sim/swarm_report.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/db_flag.h"

namespace agentrt::cli {
namespace {

constexpr char kRunHelp[] =
    R"(Usage: agentrt sim run PATH... [--json] [--junit FILE] [--db DIR] [--seed S]

Plays each scenario (a *.textproto file, or every *.textproto in a folder) in the simulator:
fake MCP servers on a virtual clock, the real MCP client, runtime and store on top. Each is
played twice; it passes when the first play is what the scenario expects, no invariant breaks
(no effect without authority or twice, every tool accounted for, the audit chain verifies, the
run ended or paused within its limits, nothing a server chose printed unescaped), and the
second play ends on the same chain head.

One line per scenario (PASS or FAIL, the first difference, the chain head), then a summary.
  --json        one JSON object instead: {"scenarios": [...], "passed": N, "failed": N}
  --junit FILE  also write JUnit XML, so a CI shows each scenario as a test
  --db DIR      keep each scenario's audit databases in DIR (created if missing) as
                <name>.db and <name>.2.db, always new files: a scenario whose file exists
                already fails, and the file is left as it was (default: in memory)
  --db URL      keep them on a PostgreSQL server instead (postgres://...), each copied once
                played into a new schema: sim_<name> and sim_<name>_2 (docs/scale-out.md)
  --seed S      play each scenario under swarm seed S's perturbations, as `sim swarm` does:
                the invariants and robust expectations are checked, and both plays must agree

Exit status: 0 every scenario passed, 1 one failed or could not be read, 2 usage error.
)";

constexpr char kSwarmHelp[] =
    R"(Usage: agentrt sim swarm PATH... [--seeds N] [--first_seed S] [--jobs J] [--shard I/K]
                         [--json] [--junit FILE]
       agentrt sim swarm --generate [--seeds N] [--first_seed S] [--jobs J] [--shard I/K]
                         [--keep DIR] [--json] [--junit FILE]

Plays each scenario under N seeds. Each seed perturbs the world: answers delayed, garbage
lines, stderr noise, dropped connections, answers in two pieces, the virtual clock jumping, and
one seed in four crashes the runtime after a call and resumes it. Outcomes may change; the
invariants may not (nor the expectations of a scenario marked `robust`). A failing seed is
printed with the command that reproduces and shrinks it.

With --generate each seed is a whole world instead (servers, tools, hostile behaviours, rules,
policy, agent, operator's actions, crashes, stale owners and storage faults), judged by the
invariants alone (`agentrt sim generate --seed S` writes one out).
  --seeds N       seeds per scenario, or generated worlds (default 100), from --first_seed
                  (default 1)
  --jobs J        threads (default 1); the verdicts do not depend on it
  --shard I/K     play only the seeds s with s % K == I: K machines split a swarm with no
                  coordination
  --keep DIR      with --generate: write each failing world to DIR/generated-<seed>.textproto
                  (DIR is created when missing; a file already there is left as it was)
  --json          the report as one JSON object instead of lines: what `sim merge` combines
  --junit FILE    also write the report as JUnit XML
A progress line is kept on a terminal; a long swarm (1,000 plays or more) writes a line to
stderr at every tenth otherwise.

Exit status: 0 no seed failed, 1 one did (or a scenario could not be read), 2 usage error.
)";

constexpr char kMergeHelp[] =
    R"(Usage: agentrt sim merge REPORT... [--json] [--junit FILE]

Combines the reports of a swarm's shards (each written by `agentrt sim swarm --shard I/K
--json`) into one, as if one machine had played the whole swarm: every failing seed with the
command that shrinks it, the plays and what they reached, summed. The reports must be of the
same swarm (the same scenarios or generated worlds, seeds, first seed and shard count), each
shard at most once; a shard no report covers is named and fails the merge, so a machine that
died is never mistaken for one that passed (docs/scale-out.md).
  --json        the merged report as one JSON object (the form a shard writes) instead of lines
  --junit FILE  also write it as JUnit XML: a test case per scenario, per failing seed, per
                missing shard

Exit status: 0 no seed failed and every shard is there, 1 a seed failed, a scenario could not be
read, a shard is missing or a report could not be read, 2 usage error.
)";

constexpr char kShrinkHelp[] =
    R"(Usage: agentrt sim shrink SCENARIO --seed S [--write FILE]
       agentrt sim shrink --generate --seed S [--write FILE]

Plays SCENARIO under seed S (as `sim swarm` does) and, when it fails, removes perturbations,
the crash, storage faults, approvals, agent steps, servers, tools, calls and pages one at a
time while it still fails the same way, then writes the minimal scenario (default:
SCENARIO.shrunk.textproto beside it), with the perturbations written out: `agentrt sim run`
on it shows the failure with no seed. With --generate it shrinks the world seed S generates
(as `sim swarm --generate` plays it), by default to generated-<S>.shrunk.textproto here.

Exit status: 0 it was shrunk and written, 1 it does not fail (or could not be read or
written), 2 usage error.
)";

constexpr char kGenerateHelp[] =
    R"(Usage: agentrt sim generate --seed S [--write FILE]

Writes the world seed S generates (as `sim swarm --generate` plays it) as a scenario file, on
stdout or to FILE (replaced atomically): `agentrt sim run` plays it with the same verdict, and
a person can read what the seed chose.

Exit status: 0 written, 1 it could not be written, 2 usage error.
)";

// The world of `seed` as a scenario file: how it was made, how it fails ("" when it does not),
// and the world. Sanitized, the failure stays on its comment line.
std::string GeneratedWorldText(std::int64_t seed, std::string_view failure = "") {
  return absl::StrCat(
      "# Generated by: agentrt sim generate --seed ", seed, "\n",
      failure.empty() ? "" : absl::StrCat("# It fails with: ", json::Sanitize(failure), "\n"),
      sim::ScenarioText(sim::GenerateWorld(seed)));
}

std::string ShortHead(const std::string& head) { return head.empty() ? "-" : head.substr(0, 16); }

std::string Seconds(absl::Duration d) {
  return absl::StrCat(absl::FDivDuration(d, absl::Milliseconds(1)) / 1000.0, "s");
}

// A shard's report is read whole; a million failing seeds take about 300 MB.
constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;

struct Played {
  std::string file;
  sim::Verdict verdict;
  double wall_ms = 0;
};

// Judges each file (sim::JudgeFile), read from `disk`, timing each on the wall clock for the
// report.
std::vector<Played> PlayAll(world::Filesystem& disk, const std::vector<std::string>& files,
                            const sim::JudgeOptions& opts, std::optional<std::int64_t> seed) {
  std::vector<Played> played;
  for (const std::string& file : files) {
    auto start = std::chrono::steady_clock::now();
    sim::Verdict verdict = sim::JudgeFile(disk, file, opts, seed);
    double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    played.push_back({file, std::move(verdict), wall_ms});
  }
  return played;
}

absl::Status WriteJunit(const std::string& path, const std::vector<Played>& played) {
  std::vector<sim::JunitCase> cases;
  double total = 0;
  for (const Played& p : played) {
    total += p.wall_ms;
    cases.push_back({"agentrt.sim", p.verdict.name, p.file, "",
                     p.verdict.passed ? "" : p.verdict.difference, p.wall_ms / 1000});
  }
  return WriteFileAtomically(path, sim::JunitXml("agentrt-sim", cases, total / 1000),
                             "JUnit report");
}

// Prints a swarm's report as lines: each unreadable scenario and failing seed (with the command
// that shrinks it), the count of plays and failures (then `timing`), and the reach.
void PrintReport(const sim::SwarmReport& report, std::string_view timing, Io& io) {
  for (const std::string& u : report.unreadable) io.out << "FAIL  " << json::Sanitize(u) << "\n";
  for (std::int64_t shard : report.missing_shards) {
    io.out << "MISSING  shard " << shard << "/" << report.shard_count
           << ": no report of it was merged; its seeds were not judged\n";
  }
  for (const sim::ReportedFailure& f : report.failures) {
    io.out << "FAIL  " << json::Sanitize(f.name);
    if (!f.file.empty()) io.out << " seed " << f.seed;
    io.out << ": " << json::Sanitize(f.difference) << "\n      reproduce: " << sim::ShrinkCommand(f)
           << "\n";
  }
  if (report.generate) {
    io.out << report.plays << " generated worlds";
  } else {
    io.out << report.plays << " seeds over " << report.files.size() << " scenarios";
  }
  if (report.shard_count > 1) {
    io.out << " (shard" << (report.shards.size() == 1 ? " " : "s ")
           << absl::StrJoin(report.shards, ",") << "/" << report.shard_count;
    if (!report.missing_shards.empty()) {
      io.out << "; missing " << absl::StrJoin(report.missing_shards, ",");
    }
    io.out << ")";
  }
  io.out << ": " << report.failures.size() << " failed, " << report.unreadable.size()
         << " unreadable (" << timing << ")\n";
  // What the plays reached, so a swarm that checks little says so.
  std::vector<std::string> statuses;
  for (const auto& [status, count] : report.reach.statuses) {
    statuses.push_back(absl::StrCat(count, " ", status));
  }
  io.out << "reach: " << absl::StrJoin(statuses, ", ") << "; " << report.reach.with_effects
         << " with a call that reached a server, " << report.reach.restarted
         << " with the runtime restarted, " << report.reach.disk_faults << " with a disk fault\n";
}

// Writes a swarm's report where its flags say: JSON on stdout or lines (`timing` ends the count),
// and JUnit XML to `junit` when set. False when the JUnit file could not be written (said).
bool OutputReport(const std::string& command, const sim::SwarmReport& report, bool as_json,
                  const std::string& junit, std::string_view timing, Io& io) {
  if (as_json) {
    io.out << sim::ReportJson(report) << "\n";
  } else {
    PrintReport(report, timing, io);
  }
  if (junit.empty()) return true;
  if (absl::Status s = WriteFileAtomically(junit, sim::ReportJunit(report), "JUnit report");
      !s.ok()) {
    io.err << "agentrt " << command << ": " << json::Sanitize(ToStd(s.message())) << "\n";
    return false;
  }
  return true;
}

// The schema a scenario's `play`-th database is kept in on a server: "sim_" and the name in
// [a-z0-9_], "_2" for the second play.
std::string SchemaOf(std::string_view name, int play) {
  std::string schema = "sim_";
  for (char c : name) {
    schema += absl::ascii_isalnum(c) ? absl::ascii_tolower(c) : '_';
  }
  schema = schema.substr(0, 60);
  return play == 1 ? schema : absl::StrCat(schema, "_", play);
}

// Copies each play's database file in `folder` to a new schema of its own on the server `url`;
// returns the schemas made. A schema that exists already is an error naming it: a kept database
// is never written over.
absl::StatusOr<std::vector<std::string>> CopyToServer(const std::vector<Played>& played,
                                                      const std::string& folder,
                                                      const std::string& url) {
  std::vector<std::string> schemas;
  world::RealClock clock;
  for (const Played& p : played) {
    for (int play : {1, 2}) {
      std::string file = (std::filesystem::path(folder) /
                          (play == 1 ? absl::StrCat(p.verdict.name, ".db")
                                     : absl::StrCat(p.verdict.name, ".", play, ".db")))
                             .string();
      if (!std::filesystem::exists(file)) continue;
      std::string schema = SchemaOf(p.verdict.name, play);
      AGENTRT_ASSIGN_OR_RETURN(std::string at, store::CreateServerSchema(url, schema));
      AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> to, records::OpenStore(at, clock));
      AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> from,
                               records::OpenExistingStore(file, /*read_only=*/true));
      AGENTRT_RETURN_IF_ERROR(records::CopyRecords(*from, *to));
      schemas.push_back(schema);
    }
  }
  return schemas;
}

}  // namespace

int SimRun(const SimRunOptions& o, Io& io) {
  const std::string command = "sim run";
  if (o.paths.empty()) return UsageError(io, command, "name at least one scenario or folder");
  world::RealFilesystem disk;
  absl::StatusOr<std::vector<std::string>> files = sim::ScenarioFiles(disk, o.paths);
  if (!files.ok()) return Failure(io, command, json::Sanitize(ToStd(files.status().message())));
  absl::StatusOr<std::unique_ptr<sim::PlayDatabase>> schema = sim::PlayDatabase::Create();
  if (!schema.ok()) return Failure(io, command, ToStd(schema.status().message()));
  sim::JudgeOptions options;
  options.db_dir = o.db;
  options.files = &disk;
  options.reuse = schema->get();
  // A server: the plays keep their databases in a folder of their own, copied to the server
  // once played (the simulator plays on its own disk, which it crashes at chosen writes).
  std::optional<TempDir> kept;
  if (store::IsServerUrl(o.db)) {
    absl::StatusOr<TempDir> folder = TempDir::Make("agentrt-sim-run-");
    if (!folder.ok()) return Failure(io, command, ToStd(folder.status().message()));
    kept.emplace(*std::move(folder));
    options.db_dir = kept->path();
  }
  if (!options.db_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.db_dir, error);
    if (error) {
      return Failure(
          io, command,
          absl::StrCat("cannot create ", json::Sanitize(options.db_dir), ": ", error.message()));
    }
  }
  std::vector<Played> played = PlayAll(disk, *files, options, o.seed);
  std::vector<std::string> copied;
  if (kept) {
    absl::StatusOr<std::vector<std::string>> schemas = CopyToServer(played, kept->path(), o.db);
    if (!schemas.ok()) {
      return Failure(io, command, json::Sanitize(ToStd(schemas.status().message())));
    }
    copied = *std::move(schemas);
  }
  std::size_t failed = 0;
  double wall = 0;
  absl::Duration virtual_time;
  for (const Played& p : played) {
    failed += p.verdict.passed ? 0 : 1;
    wall += p.wall_ms;
    virtual_time += p.verdict.virtual_time;
  }
  if (o.json) {
    std::string list = "[";
    for (const Played& p : played) {
      if (list.size() > 1) list += ",";
      list += json::JsonObject()
                  .String("name", p.verdict.name)
                  .String("file", p.file)
                  .Bool("passed", p.verdict.passed)
                  .String("difference", p.verdict.difference)
                  .String("status", sim::StatusText(p.verdict))
                  .String("chain_head", p.verdict.chain_head)
                  .Int("events", static_cast<std::int64_t>(p.verdict.events))
                  .Int("effects", static_cast<std::int64_t>(p.verdict.effects))
                  .Int("virtual_ms", absl::ToInt64Milliseconds(p.verdict.virtual_time))
                  .Build();
    }
    list += "]";
    io.out << json::JsonObject()
                  .Raw("scenarios", list)
                  .Int("passed", static_cast<std::int64_t>(played.size() - failed))
                  .Int("failed", static_cast<std::int64_t>(failed))
                  .Build()
           << "\n";
  } else {
    for (const Played& p : played) {
      io.out << (p.verdict.passed ? "PASS  " : "FAIL  ") << json::Sanitize(p.verdict.name);
      if (p.verdict.passed) {
        io.out << "  " << sim::StatusText(p.verdict) << ", " << p.verdict.events << " events, "
               << p.verdict.effects << " effects, head " << ShortHead(p.verdict.chain_head)
               << ", virtual " << Seconds(p.verdict.virtual_time) << "\n";
      } else {
        io.out << "  " << json::Sanitize(p.verdict.difference) << "\n";
      }
    }
    io.out << played.size() << " scenarios: " << played.size() - failed << " passed, " << failed
           << " failed (each played twice; " << static_cast<std::int64_t>(wall) << " ms wall, "
           << Seconds(virtual_time) << " virtual)\n";
    if (!copied.empty()) {
      io.out << "databases kept on " << json::Sanitize(store::RedactedUrl(o.db)) << " in schemas "
             << absl::StrJoin(copied, ", ") << "\n";
    }
  }
  if (const std::string& junit = o.junit; !junit.empty()) {
    if (absl::Status s = WriteJunit(junit, played); !s.ok()) {
      return Failure(io, command, json::Sanitize(ToStd(s.message())));
    }
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

int SimSwarm(const SimSwarmOptions& o, Io& io) {
  const std::string command = "sim swarm";
  if (o.generate && !o.paths.empty()) {
    return UsageError(io, command, "--generate plays generated worlds: name no scenario");
  }
  if (!o.keep.empty() && !o.generate) return UsageError(io, command, "--keep needs --generate");
  if (o.paths.empty() && !o.generate) {
    return UsageError(io, command, "name at least one scenario or folder (or --generate)");
  }
  std::int64_t seeds = o.seeds;
  std::int64_t first = o.first_seed;
  std::int64_t jobs = o.jobs;
  std::optional<sim::Shard> shard = sim::ParseShard(o.shard);
  if (seeds < 1) return UsageError(io, command, "--seeds must be at least 1");
  if (jobs < 1 || jobs > 256) return UsageError(io, command, "--jobs must be from 1 to 256");
  if (!shard) return UsageError(io, command, "--shard must be I/K with 0 <= I < K");
  world::RealFilesystem disk;
  absl::StatusOr<std::vector<std::string>> files =
      o.generate ? std::vector<std::string>() : sim::ScenarioFiles(disk, o.paths);
  if (!files.ok()) return Failure(io, command, json::Sanitize(ToStd(files.status().message())));
  if (!o.keep.empty()) {
    std::error_code error;
    std::filesystem::create_directories(o.keep, error);
    if (error) {
      return Failure(io, command,
                     absl::StrCat("cannot create ", json::Sanitize(o.keep), ": ", error.message()));
    }
  }

  std::vector<sim::SwarmScenario> scenarios;
  scenarios.reserve(files->size());
  std::vector<std::string> unreadable;
  for (const std::string& file : *files) {
    absl::StatusOr<sim::v1::Scenario> scenario = sim::ReadScenario(disk, file);
    if (!scenario.ok()) {
      unreadable.emplace_back(ToStd(scenario.status().message()));
      continue;
    }
    scenarios.push_back({file, *std::move(scenario)});
  }
  sim::SwarmOptions options;
  options.seeds = seeds;
  options.first_seed = first;
  options.shard = *shard;
  // The threads are the command's: the simulator starts none (sim/swarm.h).
  options.parallel = [jobs](const std::function<void()>& worker) {
    std::vector<std::thread> threads;
    for (std::int64_t j = 1; j < jobs; ++j) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
  };
  bool terminal = io.err_is_terminal;
  options.progress = [terminal, &io](std::size_t done, std::size_t total, std::size_t failed) {
    if (terminal && (done % 50 == 0 || done == total)) {
      io.err << "\r" << done << "/" << total << " seeds played, " << failed << " failed"
             << std::flush;
    } else if (!terminal && total >= 1000 && done % (total / 10) == 0) {
      // A log (a soak, a CI job) gets a line at every tenth of a long swarm.
      io.err << done << "/" << total << " seeds played, " << failed << " failed\n";
    }
  };
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<sim::SwarmResult> swarm =
      o.generate ? sim::RunGeneratedSwarm(options) : sim::RunSwarm(scenarios, options);
  if (!swarm.ok()) return Failure(io, command, ToStd(swarm.status().message()));
  if (terminal) io.err << "\n";
  int unkept = 0;
  for (const sim::SwarmFailure& f : swarm->failures) {
    if (f.scenario != nullptr || o.keep.empty()) continue;
    // Kept as a fixture would be: the world, and how it failed.
    std::string path =
        (std::filesystem::path(o.keep) / (sim::GeneratedName(f.seed) + ".textproto")).string();
    if (absl::Status kept =
            disk.WriteNew(path, GeneratedWorldText(f.seed, f.verdict.difference), "kept world");
        !kept.ok()) {
      io.err << "agentrt sim swarm: " << json::Sanitize(ToStd(kept.message())) << "\n";
      ++unkept;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sim::SwarmReport report =
      sim::MakeReport(o.generate, scenarios, options, *swarm, std::move(unreadable),
                      static_cast<std::int64_t>(seconds * 1000));
  std::string timing = absl::StrCat(
      report.wall_ms, " ms, ", static_cast<std::int64_t>(swarm->plays / std::max(seconds, 1e-9)),
      " plays/s",
      jobs > 1 ? absl::StrCat(
                     ", ", static_cast<std::int64_t>(swarm->plays / std::max(seconds * jobs, 1e-9)),
                     " per thread")
               : "");
  bool written = OutputReport(command, report, o.json, o.junit, timing, io);
  return sim::ReportPassed(report) && unkept == 0 && written ? kExitOk : kExitFailure;
}

int SimMerge(const SimMergeOptions& o, Io& io) {
  const std::string command = "sim merge";
  if (o.reports.empty()) return UsageError(io, command, "name at least one shard's report");
  world::RealFilesystem disk;
  std::vector<sim::SwarmReport> reports;
  for (const std::string& path : o.reports) {
    absl::StatusOr<std::string> text = disk.ReadFile(path, kMaxReportBytes);
    if (!text.ok()) return Failure(io, command, json::Sanitize(ToStd(text.status().message())));
    absl::StatusOr<sim::SwarmReport> report = sim::ParseReport(*text);
    if (!report.ok()) {
      return Failure(io, command,
                     absl::StrCat(json::Sanitize(path), ": ",
                                  json::Sanitize(ToStd(report.status().message()))));
    }
    reports.push_back(*std::move(report));
  }
  absl::StatusOr<sim::SwarmReport> merged = sim::MergeReports(reports, o.reports);
  if (!merged.ok()) return Failure(io, command, ToStd(merged.status().message()));
  std::string timing =
      absl::StrCat(o.reports.size(), " reports, ", merged->wall_ms, " ms on their machines in all");
  bool written = OutputReport(command, *merged, o.json, o.junit, timing, io);
  return sim::ReportPassed(*merged) && written ? kExitOk : kExitFailure;
}

int SimShrink(const SimShrinkOptions& o, Io& io) {
  const std::string command = "sim shrink";
  if (!o.seed) return UsageError(io, command, "--seed is required");
  const std::string& file = o.scenario;
  std::int64_t seed = *o.seed;
  absl::StatusOr<sim::Shrunk> shrunk;
  if (o.generate) {
    shrunk = sim::ShrinkGenerated(seed);
  } else {
    world::RealFilesystem disk;
    absl::StatusOr<sim::v1::Scenario> scenario = sim::ReadScenario(disk, file);
    if (!scenario.ok()) {
      return Failure(io, command, json::Sanitize(ToStd(scenario.status().message())));
    }
    shrunk = sim::ShrinkSeed(*scenario, seed);
  }
  if (!shrunk.ok()) return Failure(io, command, json::Sanitize(ToStd(shrunk.status().message())));
  std::string out = o.write;
  if (out.empty() && o.generate) out = sim::GeneratedName(seed) + ".shrunk.textproto";
  if (out.empty()) {
    std::string stem =
        file.size() > 10 && file.ends_with(".textproto") ? file.substr(0, file.size() - 10) : file;
    out = stem + ".shrunk.textproto";
  }
  // Sanitized, the path stays on its comment line: a line break in it would make the rest
  // scenario text.
  std::string text =
      absl::StrCat("# Shrunk by: agentrt sim shrink ",
                   o.generate ? std::string("--generate") : json::Sanitize(file), " --seed ", seed,
                   "\n# It fails with: ", json::Sanitize(shrunk->verdict.difference), "\n",
                   sim::ScenarioText(shrunk->scenario));
  // Replaced atomically: a symbolic link someone left at the path is replaced, never followed,
  // so the write lands where the path says, beside the scenario (or at --write).
  if (absl::Status written = WriteFileAtomically(out, text, "shrunk scenario"); !written.ok()) {
    return Failure(io, command, json::Sanitize(ToStd(written.message())));
  }
  io.out << "shrunk in " << shrunk->plays << " plays to " << json::Sanitize(out)
         << "\nit fails with: " << json::Sanitize(shrunk->verdict.difference) << "\n";
  return kExitOk;
}

int SimGenerate(const SimGenerateOptions& o, Io& io) {
  const std::string command = "sim generate";
  if (!o.seed) return UsageError(io, command, "--seed is required");
  std::string text = GeneratedWorldText(*o.seed);
  if (o.write.empty()) {
    io.out << text;
    return kExitOk;
  }
  if (absl::Status written = WriteFileAtomically(o.write, text, "generated world"); !written.ok()) {
    return Failure(io, command, json::Sanitize(ToStd(written.message())));
  }
  return kExitOk;
}

int RunSimRun(std::span<const std::string> args, Io& io) {
  SimRunOptions o;
  std::int64_t seed = 0;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed = ParseCommand(
      io, "sim run", args,
      FlagSet().Add("json", &o.json).Add("junit", &o.junit).Add("db", &o.db).Add("seed", &seed),
      kRunHelp, &exit);
  if (!parsed) return exit;
  o.paths = parsed->positional;
  if (parsed->Given("seed")) o.seed = seed;
  return SimRun(o, io);
}

int RunSimSwarm(std::span<const std::string> args, Io& io) {
  SimSwarmOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed = ParseCommand(io, "sim swarm", args,
                                                  FlagSet()
                                                      .Add("seeds", &o.seeds)
                                                      .Add("first_seed", &o.first_seed)
                                                      .Add("jobs", &o.jobs)
                                                      .Add("shard", &o.shard)
                                                      .Add("generate", &o.generate)
                                                      .Add("keep", &o.keep)
                                                      .Add("json", &o.json)
                                                      .Add("junit", &o.junit),
                                                  kSwarmHelp, &exit);
  if (!parsed) return exit;
  o.paths = parsed->positional;
  return SimSwarm(o, io);
}

int RunSimMerge(std::span<const std::string> args, Io& io) {
  SimMergeOptions o;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseCommand(io, "sim merge", args, FlagSet().Add("json", &o.json).Add("junit", &o.junit),
                   kMergeHelp, &exit);
  if (!parsed) return exit;
  o.reports = parsed->positional;
  return SimMerge(o, io);
}

int RunSimShrink(std::span<const std::string> args, Io& io) {
  SimShrinkOptions o;
  std::int64_t seed = 0;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseCommand(io, "sim shrink", args,
                   FlagSet().Add("seed", &seed).Add("write", &o.write).Add("generate", &o.generate),
                   kShrinkHelp, &exit);
  if (!parsed) return exit;
  if (o.generate && !parsed->positional.empty()) {
    return UsageError(io, "sim shrink", "--generate shrinks a generated world: name no scenario");
  }
  if (!o.generate && parsed->positional.size() != 1) {
    return UsageError(io, "sim shrink", "name exactly one scenario (or --generate)");
  }
  if (!o.generate) o.scenario = parsed->positional[0];
  if (parsed->Given("seed")) o.seed = seed;
  return SimShrink(o, io);
}

int RunSimGenerate(std::span<const std::string> args, Io& io) {
  SimGenerateOptions o;
  std::int64_t seed = 0;
  int exit = kExitOk;
  std::optional<ParsedArgs> parsed =
      ParseFlags(io, "sim generate", args, FlagSet().Add("seed", &seed).Add("write", &o.write),
                 kGenerateHelp, &exit);
  if (!parsed) return exit;
  if (parsed->Given("seed")) o.seed = seed;
  return SimGenerate(o, io);
}

}  // namespace agentrt::cli
