// sim/swarm_report.h
//
// A swarm's report as a file (`agentrt sim swarm --json`, `sim merge`, docs/scale-out.md): what
// was played (the scenario files or generated worlds, the seeds, the shard), how many plays,
// which seeds failed and how, and how far the plays reached. A swarm split over K machines
// (`--shard I/K`) writes K reports; MergeReports makes them one, as if one machine had played
// the whole swarm, and says which shards are missing.
//
// The JSON form (ReportJson, ParseReport) is the one a shard writes and merge reads:
//   {"format":"agentrt.sim.swarm/1", "generate":false, "files":["a.textproto",...],
//    "scenarios":["name-of-a",...], "seeds":100, "first_seed":1, "shard_count":4,
//    "shards":[2], "missing_shards":[], "plays":50, "unreadable":["reason",...],
//    "failures":[{"name":..., "file":..., "seed":7, "difference":..., "shrink":...}],
//    "reach":{"statuses":{"COMPLETED":40,...}, "with_effects":N, "restarted":N,
//             "disk_faults":N},
//    "wall_ms":1234}
// ParseReport reads what someone else's machine wrote: every field is checked, an error names
// the field and why, and nothing it reads is trusted beyond the report (a name, a difference and
// a file are text to show, sanitized wherever they are printed).
//
// The JUnit form (ReportJunit) is derived from a report, so merging the reports merges the
// JUnit: one test case per scenario (or one for the generated worlds) and one per failing seed,
// its failure message the difference and its text the command that shrinks it.
//
// Pure functions: no clock, no files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/swarm.h"

namespace agentrt::sim {

inline constexpr std::string_view kSwarmReportFormat = "agentrt.sim.swarm/1";

struct ReportedFailure {
  std::string name;  // the scenario's name, or generated-<seed>
  std::string file;  // the scenario file as named to the swarm; "" for a generated world
  std::int64_t seed = 0;
  std::string difference;
};

struct SwarmReport {
  bool generate = false;
  std::vector<std::string> files;      // scenario files played, in the order played
  std::vector<std::string> scenarios;  // their names, one per file
  std::int64_t seeds = 0;              // per scenario (or generated worlds), from first_seed
  std::int64_t first_seed = 1;
  std::int64_t shard_count = 1;
  std::vector<std::int64_t> shards;          // the shard indexes played, ascending
  std::vector<std::int64_t> missing_shards;  // of a merge: those no report covered
  std::int64_t plays = 0;
  std::vector<std::string> unreadable;    // why each scenario that could not be read failed
  std::vector<ReportedFailure> failures;  // by scenario (in `files` order), then seed
  Reach reach;
  std::int64_t wall_ms = 0;  // the machines' wall time, summed
};

// MakeReport is the report of one swarm: `scenarios` as RunSwarm played them (empty for a
// generated swarm), the options it ran with, its result.
SwarmReport MakeReport(bool generate, const std::vector<SwarmScenario>& scenarios,
                       const SwarmOptions& options, const SwarmResult& result,
                       std::vector<std::string> unreadable, std::int64_t wall_ms);

// ShrinkCommand is the command that reproduces and shrinks a failing seed.
std::string ShrinkCommand(const ReportedFailure& failure);

// Whether the report holds no failure, no unreadable scenario and no missing shard.
bool ReportPassed(const SwarmReport& report);

std::string ReportJson(const SwarmReport& report);

// ParseReport reads a report written by ReportJson. Errors: InvalidArgument naming the field
// and what is wrong with it ("failures[3].seed is a string, not a number").
absl::StatusOr<SwarmReport> ParseReport(std::string_view text);

// MergeReports makes the shards' reports one: the same swarm (kind, files, seeds, first seed
// and shard count must agree), each shard at most once; plays, failures, reach and wall time
// combined; the shards no report covers listed in missing_shards. `sources` names each report
// (a file), one name per report, in errors. Errors: InvalidArgument naming the report that
// disagrees and on what, or when the names do not match the reports one for one.
absl::StatusOr<SwarmReport> MergeReports(const std::vector<SwarmReport>& reports,
                                         const std::vector<std::string>& sources);

// ReportJunit is the report as JUnit XML (header comment above).
std::string ReportJunit(const SwarmReport& report);

}  // namespace agentrt::sim
