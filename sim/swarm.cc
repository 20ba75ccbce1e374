#include "sim/swarm.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "sim/generate.h"
#include "sim/play.h"
#include "sim/scenario_file.h"

namespace agentrt::sim {

Verdict Baseline(const v1::Scenario& scenario, PlayDatabase* reuse) {
  return Judge(scenario, PerturbedOnce(reuse));
}

Verdict JudgeSeed(const v1::Scenario& scenario, const Verdict& baseline, std::int64_t seed,
                  JudgeOptions options) {
  options.perturbed = true;
  return Judge(Perturb(scenario, static_cast<std::uint64_t>(seed), baseline), options);
}

Verdict JudgeFile(world::Filesystem& files, const std::string& file, const JudgeOptions& options,
                  std::optional<std::int64_t> seed) {
  absl::StatusOr<v1::Scenario> scenario = ReadScenario(files, file);
  if (!scenario.ok()) {
    Verdict verdict;
    verdict.name = file;
    verdict.difference = std::string(ToStd(scenario.status().message()));
    return verdict;
  }
  if (!seed) return Judge(*scenario, options);
  // The unperturbed play only says what the seed can perturb: its databases are not kept, so
  // the perturbed plays' are the ones at `<name>.db` and `<name>.2.db`.
  Verdict baseline = Baseline(*scenario, options.reuse);
  JudgeOptions twice = options;
  twice.determinism = true;
  return JudgeSeed(*scenario, baseline, *seed, twice);
}

std::optional<Shard> ParseShard(std::string_view text) {
  Shard shard;
  if (text.empty()) return shard;
  std::vector<std::string> parts = absl::StrSplit(ToAbsl(text), '/');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &shard.index) ||
      !absl::SimpleAtoi(parts[1], &shard.count) || shard.count < 1 || shard.index < 0 ||
      shard.index >= shard.count) {
    return std::nullopt;
  }
  return shard;
}

namespace {

// Plays items 0..count-1 on the threads options.parallel gives, each worker on a database of its
// own (emptied before each play, sim/play.h), reporting progress; returns the failing items'
// verdicts in item order. Errors: the store's, making a worker's database.
absl::StatusOr<std::vector<std::pair<std::size_t, Verdict>>> PlayItems(
    std::size_t count, const std::function<Verdict(std::size_t, PlayDatabase*)>& judge,
    const SwarmOptions& options, Reach& reach) {
  std::atomic<std::size_t> next{0};
  absl::Mutex mu;
  std::size_t done = 0;                                   // guarded by mu
  std::vector<std::pair<std::size_t, Verdict>> failures;  // guarded by mu; by item
  absl::Status worker_error;                              // guarded by mu
  // `reach` is guarded by mu too.
  auto worker = [&] {
    absl::StatusOr<std::unique_ptr<PlayDatabase>> own = PlayDatabase::Create();
    if (!own.ok()) {
      absl::MutexLock lock(&mu);
      worker_error.Update(own.status());
      return;
    }
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      Verdict verdict = judge(i, own->get());
      absl::MutexLock lock(&mu);
      ++done;
      ++reach.statuses[std::string(StatusText(verdict))];
      if (verdict.effects > 0) ++reach.with_effects;
      if (verdict.restarts > 0) ++reach.restarted;
      if (verdict.disk_faults > 0) ++reach.disk_faults;
      if (!verdict.passed) failures.emplace_back(i, std::move(verdict));
      if (options.progress) options.progress(done, count, failures.size());
    }
  };
  if (options.parallel) {
    options.parallel(worker);
  } else {
    worker();
  }
  if (!worker_error.ok()) return worker_error;
  std::sort(failures.begin(), failures.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return failures;
}

// The seeds of the swarm's shard, in order.
std::vector<std::int64_t> ShardSeeds(const SwarmOptions& options) {
  std::vector<std::int64_t> seeds;
  for (std::int64_t seed = options.first_seed; seed < options.first_seed + options.seeds; ++seed) {
    if (seed % options.shard.count == options.shard.index) seeds.push_back(seed);
  }
  return seeds;
}

}  // namespace

absl::StatusOr<SwarmResult> RunSwarm(const std::vector<SwarmScenario>& scenarios,
                                     const SwarmOptions& options) {
  struct Item {
    const SwarmScenario* scenario;
    const Verdict* baseline;
    std::int64_t seed;
  };
  absl::StatusOr<std::unique_ptr<PlayDatabase>> schema = PlayDatabase::Create();
  if (!schema.ok()) return schema.status();
  std::vector<Verdict> baselines;
  baselines.reserve(scenarios.size());
  for (const SwarmScenario& s : scenarios) baselines.push_back(Baseline(s.scenario, schema->get()));
  std::vector<Item> items;
  std::vector<std::int64_t> seeds = ShardSeeds(options);
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    for (std::int64_t seed : seeds) items.push_back({&scenarios[i], &baselines[i], seed});
  }
  Reach reach;
  AGENTRT_ASSIGN_OR_RETURN(auto failures, PlayItems(
                                              items.size(),
                                              [&](std::size_t i, PlayDatabase* db) {
                                                const Item& item = items[i];
                                                return JudgeSeed(item.scenario->scenario,
                                                                 *item.baseline, item.seed,
                                                                 PerturbedOnce(db));
                                              },
                                              options, reach));
  SwarmResult result;
  result.reach = std::move(reach);
  result.plays = items.size();
  for (auto& [i, verdict] : failures) {
    result.failures.push_back(SwarmFailure{items[i].scenario, items[i].seed, std::move(verdict)});
  }
  return result;
}

Verdict JudgeGenerated(std::int64_t seed, const JudgeOptions& options) {
  JudgeOptions perturbed = options;
  perturbed.perturbed = true;
  return Judge(GenerateWorld(seed), perturbed);
}

absl::StatusOr<SwarmResult> RunGeneratedSwarm(const SwarmOptions& options) {
  std::vector<std::int64_t> seeds = ShardSeeds(options);
  Reach reach;
  AGENTRT_ASSIGN_OR_RETURN(auto failures, PlayItems(
                                              seeds.size(),
                                              [&](std::size_t i, PlayDatabase* db) {
                                                return JudgeGenerated(seeds[i], PerturbedOnce(db));
                                              },
                                              options, reach));
  SwarmResult result;
  result.reach = std::move(reach);
  result.plays = seeds.size();
  for (auto& [i, verdict] : failures) {
    result.failures.push_back(SwarmFailure{nullptr, seeds[i], std::move(verdict)});
  }
  return result;
}

}  // namespace agentrt::sim
