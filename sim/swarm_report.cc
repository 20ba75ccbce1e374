#include "sim/swarm_report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "sim/generate.h"
#include "sim/junit.h"

namespace agentrt::sim {
namespace {

std::string IntArray(const std::vector<std::int64_t>& values) {
  std::vector<std::string> items;
  items.reserve(values.size());
  for (std::int64_t v : values) items.push_back(absl::StrCat(v));
  return json::JsonArray(items);
}

std::string StringArray(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  items.reserve(values.size());
  for (const std::string& v : values) items.push_back(json::JsonString(v));
  return json::JsonArray(items);
}

// Reading a report: each function checks one field's kind and names it when it is wrong.
absl::StatusOr<json::Value> Required(json::Value object, std::string_view key, json::Kind kind,
                                     std::string_view path) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> value,
                           json::TypedMember(object, key, kind, path));
  if (!value) return absl::InvalidArgumentError(absl::StrCat(ToAbsl(path), " is missing"));
  return *value;
}

absl::StatusOr<std::int64_t> IntField(json::Value object, std::string_view key,
                                      std::string_view path, std::int64_t min) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value value, Required(object, key, json::Kind::kNumber, path));
  std::int64_t n = 0;
  if (!absl::SimpleAtoi(ToAbsl(value.number_literal()), &n) || n < min) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(path), " is ",
                                                   ToAbsl(value.number_literal()),
                                                   ", not an integer of at least ", min));
  }
  return n;
}

absl::StatusOr<std::string> StringField(json::Value object, std::string_view key,
                                        std::string_view path) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value value, Required(object, key, json::Kind::kString, path));
  return std::string(value.string_value());
}

absl::StatusOr<std::vector<std::string>> Strings(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value array, Required(object, key, json::Kind::kArray, key));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    json::Value item = array.element(i);
    if (!item.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(key), "[", i, "] is ", json::KindWithArticle(item.kind()), ", not a string"));
    }
    out.emplace_back(item.string_value());
  }
  return out;
}

// The shard indexes of `key`: integers in [0, count), ascending, none twice.
absl::StatusOr<std::vector<std::int64_t>> ShardList(json::Value object, std::string_view key,
                                                    std::int64_t count) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value array, Required(object, key, json::Kind::kArray, key));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    json::Value item = array.element(i);
    std::int64_t n = -1;
    if (!item.is_number() || !absl::SimpleAtoi(ToAbsl(item.number_literal()), &n) || n < 0 ||
        n >= count || (!out.empty() && n <= out.back())) {
      return absl::InvalidArgumentError(absl::StrCat(ToAbsl(key), "[", i,
                                                     "] is not a shard index below shard_count ",
                                                     count, " in ascending order"));
    }
    out.push_back(n);
  }
  return out;
}

absl::StatusOr<Reach> ReadReach(json::Value report) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value reach,
                           Required(report, "reach", json::Kind::kObject, "reach"));
  Reach out;
  AGENTRT_ASSIGN_OR_RETURN(json::Value statuses,
                           Required(reach, "statuses", json::Kind::kObject, "reach.statuses"));
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    std::string path = absl::StrCat("reach.statuses.", json::Sanitize(statuses.key(i)));
    AGENTRT_ASSIGN_OR_RETURN(std::int64_t n, IntField(statuses, statuses.key(i), path, /*min=*/0));
    out.statuses[std::string(statuses.key(i))] = static_cast<std::size_t>(n);
  }
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t effects,
                           IntField(reach, "with_effects", "reach.with_effects", 0));
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t restarted,
                           IntField(reach, "restarted", "reach.restarted", 0));
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t faults,
                           IntField(reach, "disk_faults", "reach.disk_faults", 0));
  out.with_effects = static_cast<std::size_t>(effects);
  out.restarted = static_cast<std::size_t>(restarted);
  out.disk_faults = static_cast<std::size_t>(faults);
  return out;
}

absl::StatusOr<std::vector<ReportedFailure>> ReadFailures(json::Value report) {
  AGENTRT_ASSIGN_OR_RETURN(json::Value array,
                           Required(report, "failures", json::Kind::kArray, "failures"));
  std::vector<ReportedFailure> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::string path = absl::StrCat("failures[", i, "]");
    json::Value item = array.element(i);
    if (!item.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " is ", json::KindWithArticle(item.kind()), ", not an object"));
    }
    ReportedFailure f;
    AGENTRT_ASSIGN_OR_RETURN(f.name, StringField(item, "name", path + ".name"));
    AGENTRT_ASSIGN_OR_RETURN(f.file, StringField(item, "file", path + ".file"));
    AGENTRT_ASSIGN_OR_RETURN(
        f.seed, IntField(item, "seed", path + ".seed", std::numeric_limits<std::int64_t>::min()));
    AGENTRT_ASSIGN_OR_RETURN(f.difference, StringField(item, "difference", path + ".difference"));
    out.push_back(std::move(f));
  }
  return out;
}

// Where a failure sorts: by the scenario's place among the files, then by seed.
std::pair<std::size_t, std::int64_t> FailureOrder(const SwarmReport& report,
                                                  const ReportedFailure& f) {
  auto it = std::find(report.files.begin(), report.files.end(), f.file);
  return {static_cast<std::size_t>(it - report.files.begin()), f.seed};
}

}  // namespace

SwarmReport MakeReport(bool generate, const std::vector<SwarmScenario>& scenarios,
                       const SwarmOptions& options, const SwarmResult& result,
                       std::vector<std::string> unreadable, std::int64_t wall_ms) {
  SwarmReport report;
  report.generate = generate;
  for (const SwarmScenario& s : scenarios) {
    report.files.push_back(s.file);
    report.scenarios.push_back(s.scenario.name());
  }
  report.seeds = options.seeds;
  report.first_seed = options.first_seed;
  report.shard_count = options.shard.count;
  report.shards = {options.shard.index};
  report.plays = static_cast<std::int64_t>(result.plays);
  report.unreadable = std::move(unreadable);
  for (const SwarmFailure& f : result.failures) {
    ReportedFailure r;
    r.name = f.scenario != nullptr ? f.scenario->scenario.name() : GeneratedName(f.seed);
    r.file = f.scenario != nullptr ? f.scenario->file : "";
    r.seed = f.seed;
    r.difference = f.verdict.difference;
    report.failures.push_back(std::move(r));
  }
  report.reach = result.reach;
  report.wall_ms = wall_ms;
  return report;
}

std::string ShrinkCommand(const ReportedFailure& failure) {
  if (failure.file.empty()) {
    return absl::StrCat("agentrt sim shrink --generate --seed ", failure.seed);
  }
  return absl::StrCat("agentrt sim shrink ", json::Sanitize(failure.file), " --seed ",
                      failure.seed);
}

bool ReportPassed(const SwarmReport& report) {
  return report.failures.empty() && report.unreadable.empty() && report.missing_shards.empty();
}

std::string ReportJson(const SwarmReport& report) {
  std::vector<std::string> failures;
  for (const ReportedFailure& f : report.failures) {
    failures.push_back(json::JsonObject()
                           .String("name", f.name)
                           .String("file", f.file)
                           .Int("seed", f.seed)
                           .String("difference", f.difference)
                           .String("shrink", ShrinkCommand(f))
                           .Build());
  }
  json::JsonObject statuses;
  for (const auto& [status, count] : report.reach.statuses) {
    statuses.Int(status, static_cast<std::int64_t>(count));
  }
  std::string reach = json::JsonObject()
                          .Raw("statuses", statuses.Build())
                          .Int("with_effects", static_cast<std::int64_t>(report.reach.with_effects))
                          .Int("restarted", static_cast<std::int64_t>(report.reach.restarted))
                          .Int("disk_faults", static_cast<std::int64_t>(report.reach.disk_faults))
                          .Build();
  return json::JsonObject()
      .String("format", kSwarmReportFormat)
      .Bool("generate", report.generate)
      .Raw("files", StringArray(report.files))
      .Raw("scenarios", StringArray(report.scenarios))
      .Int("seeds", report.seeds)
      .Int("first_seed", report.first_seed)
      .Int("shard_count", report.shard_count)
      .Raw("shards", IntArray(report.shards))
      .Raw("missing_shards", IntArray(report.missing_shards))
      .Int("plays", report.plays)
      .Raw("unreadable", StringArray(report.unreadable))
      .Raw("failures", json::JsonArray(failures))
      .Raw("reach", reach)
      .Int("wall_ms", report.wall_ms)
      .Build();
}

absl::StatusOr<SwarmReport> ParseReport(std::string_view text) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, json::Parse(text));
  json::Value root = doc.root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the report is ", json::KindWithArticle(root.kind()), ", not an object"));
  }
  AGENTRT_ASSIGN_OR_RETURN(std::string format, StringField(root, "format", "format"));
  if (format != kSwarmReportFormat) {
    return absl::InvalidArgumentError(absl::StrCat("format is \"", json::Sanitize(format),
                                                   "\", not \"", ToAbsl(kSwarmReportFormat),
                                                   "\" (a report of `agentrt sim swarm --json`)"));
  }
  SwarmReport report;
  AGENTRT_ASSIGN_OR_RETURN(json::Value generate,
                           Required(root, "generate", json::Kind::kBool, "generate"));
  report.generate = generate.bool_value();
  AGENTRT_ASSIGN_OR_RETURN(report.files, Strings(root, "files"));
  AGENTRT_ASSIGN_OR_RETURN(report.scenarios, Strings(root, "scenarios"));
  if (report.scenarios.size() != report.files.size()) {
    return absl::InvalidArgumentError(absl::StrCat("scenarios has ", report.scenarios.size(),
                                                   " names for ", report.files.size(), " files"));
  }
  if (report.generate && !report.files.empty()) {
    return absl::InvalidArgumentError("files is not empty in a report of generated worlds");
  }
  AGENTRT_ASSIGN_OR_RETURN(report.seeds, IntField(root, "seeds", "seeds", 1));
  AGENTRT_ASSIGN_OR_RETURN(report.first_seed, IntField(root, "first_seed", "first_seed",
                                                       std::numeric_limits<std::int64_t>::min()));
  AGENTRT_ASSIGN_OR_RETURN(report.shard_count, IntField(root, "shard_count", "shard_count", 1));
  AGENTRT_ASSIGN_OR_RETURN(report.shards, ShardList(root, "shards", report.shard_count));
  AGENTRT_ASSIGN_OR_RETURN(report.missing_shards,
                           ShardList(root, "missing_shards", report.shard_count));
  AGENTRT_ASSIGN_OR_RETURN(report.plays, IntField(root, "plays", "plays", 0));
  AGENTRT_ASSIGN_OR_RETURN(report.unreadable, Strings(root, "unreadable"));
  AGENTRT_ASSIGN_OR_RETURN(report.failures, ReadFailures(root));
  for (std::size_t i = 0; i < report.failures.size(); ++i) {
    const ReportedFailure& f = report.failures[i];
    bool known = report.generate ? f.file.empty()
                                 : std::find(report.files.begin(), report.files.end(), f.file) !=
                                       report.files.end();
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "failures[", i, "].file \"", json::Sanitize(f.file), "\" is not ",
          report.generate ? "empty in a report of generated worlds" : "one of the report's files"));
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(report.reach, ReadReach(root));
  AGENTRT_ASSIGN_OR_RETURN(report.wall_ms, IntField(root, "wall_ms", "wall_ms", 0));
  return report;
}

absl::StatusOr<SwarmReport> MergeReports(const std::vector<SwarmReport>& reports,
                                         const std::vector<std::string>& sources) {
  if (reports.empty()) return absl::InvalidArgumentError("no report to merge");
  if (sources.size() != reports.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(sources.size(), " names for ", reports.size(), " reports"));
  }
  const SwarmReport& first = reports.front();
  SwarmReport merged;
  merged.generate = first.generate;
  merged.files = first.files;
  merged.scenarios = first.scenarios;
  merged.seeds = first.seeds;
  merged.first_seed = first.first_seed;
  merged.shard_count = first.shard_count;
  std::map<std::int64_t, std::size_t> covered;  // shard index -> the report that played it
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const SwarmReport& report = reports[r];
    const std::string source = json::Sanitize(sources[r]);
    auto disagree = [&](std::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(source, " is of another swarm than ",
                                                     json::Sanitize(sources[0]), ": its ",
                                                     ToAbsl(what), " differ"));
    };
    if (report.generate != first.generate) return disagree("kinds (generated or scenarios)");
    if (report.files != first.files) return disagree("scenario files");
    if (report.seeds != first.seeds || report.first_seed != first.first_seed) {
      return disagree("seeds");
    }
    if (report.shard_count != first.shard_count) return disagree("shard counts");
    for (std::int64_t shard : report.shards) {
      auto [it, inserted] = covered.emplace(shard, r);
      if (!inserted) {
        return absl::InvalidArgumentError(
            absl::StrCat("shard ", shard, "/", first.shard_count, " is in both ",
                         json::Sanitize(sources[it->second]), " and ", source));
      }
    }
    merged.plays += report.plays;
    merged.wall_ms += report.wall_ms;
    merged.failures.insert(merged.failures.end(), report.failures.begin(), report.failures.end());
    for (const std::string& u : report.unreadable) {
      // Every shard reads every file: one unreadable file is reported once.
      if (std::find(merged.unreadable.begin(), merged.unreadable.end(), u) ==
          merged.unreadable.end()) {
        merged.unreadable.push_back(u);
      }
    }
    for (const auto& [status, count] : report.reach.statuses)
      merged.reach.statuses[status] += count;
    merged.reach.with_effects += report.reach.with_effects;
    merged.reach.restarted += report.reach.restarted;
    merged.reach.disk_faults += report.reach.disk_faults;
  }
  for (std::int64_t shard = 0; shard < merged.shard_count; ++shard) {
    if (covered.contains(shard)) {
      merged.shards.push_back(shard);
    } else {
      merged.missing_shards.push_back(shard);
    }
  }
  std::stable_sort(merged.failures.begin(), merged.failures.end(),
                   [&](const ReportedFailure& a, const ReportedFailure& b) {
                     return FailureOrder(merged, a) < FailureOrder(merged, b);
                   });
  return merged;
}

std::string ReportJunit(const SwarmReport& report) {
  std::vector<JunitCase> cases;
  // Per scenario: its plays pass unless one of its seeds failed, which has a case of its own.
  std::int64_t per_scenario = report.files.empty()
                                  ? report.plays
                                  : report.plays / static_cast<std::int64_t>(report.files.size());
  auto seed_range =
      absl::StrCat("seeds ", report.first_seed, "..", report.first_seed + report.seeds - 1);
  if (report.generate) {
    cases.push_back({"agentrt.sim.swarm", absl::StrCat("generated worlds, ", seed_range), "",
                     absl::StrCat(per_scenario, " plays"), ""});
  }
  for (std::size_t i = 0; i < report.files.size(); ++i) {
    cases.push_back({"agentrt.sim.swarm", absl::StrCat(report.scenarios[i], ", ", seed_range),
                     report.files[i], absl::StrCat(per_scenario, " plays"), ""});
  }
  for (const ReportedFailure& f : report.failures) {
    cases.push_back({"agentrt.sim.swarm", absl::StrCat(f.name, " seed ", f.seed), f.file,
                     absl::StrCat("reproduce: ", ShrinkCommand(f)), f.difference});
  }
  for (const std::string& u : report.unreadable) {
    cases.push_back({"agentrt.sim.swarm", "unreadable scenario", "", "", u});
  }
  for (std::int64_t shard : report.missing_shards) {
    cases.push_back({"agentrt.sim.swarm", absl::StrCat("shard ", shard, "/", report.shard_count),
                     "", "", "no report of this shard was merged"});
  }
  return JunitXml("agentrt-sim-swarm", cases, static_cast<double>(report.wall_ms) / 1000);
}

}  // namespace agentrt::sim
