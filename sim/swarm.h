// sim/swarm.h
//
// A seed's sequence and a swarm of them (`agentrt sim run --seed`, `sim swarm`, `sim shrink`),
// and swarms of generated worlds, where the seed is the whole world (generate.h).
// A seed stands for perturbations of the world (judge.h's Perturb) chosen among what the
// scenario's unperturbed play did: its answers, its calls. So a seed is judged in three steps,
// always the same: play the scenario unperturbed (Baseline), Perturb, Judge perturbed.
//
// The simulator starts no thread and reads no real clock: a swarm's parallelism is the
// caller's (SwarmOptions::parallel), and so is its timing. The verdicts do not depend on
// either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/world/filesystem.h"
#include "sim/judge.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// Baseline is the scenario's unperturbed play judged as a perturbed one, in memory: what a seed
// chooses among (Verdict::answers, answers_before_run, effects).
Verdict Baseline(const v1::Scenario& scenario, PlayDatabase* reuse = nullptr);

// JudgeSeed judges `scenario` under `seed`'s perturbations (Perturb over `baseline`), with
// `options` made perturbed; `options.determinism` is kept.
Verdict JudgeSeed(const v1::Scenario& scenario, const Verdict& baseline, std::int64_t seed,
                  JudgeOptions options);

// JudgeFile is `sim run`'s verdict on one file: read from `files`, then judged as written, or under
// `seed` (its baseline in memory, the perturbed plays where `options` says, played twice). A file
// that does not read fails with the reason, named by its path.
Verdict JudgeFile(world::Filesystem& files, const std::string& file, const JudgeOptions& options,
                  std::optional<std::int64_t> seed);

// A swarm plays only the seeds s with s % count == index: `count` machines split a swarm with no
// coordination.
struct Shard {
  std::int64_t index = 0;
  std::int64_t count = 1;
};

// ParseShard reads "I/K" (0 <= I < K); "" is the whole swarm. nullopt when it is not one.
std::optional<Shard> ParseShard(std::string_view text);

struct SwarmOptions {
  std::int64_t seeds = 100;  // per scenario, from first_seed
  std::int64_t first_seed = 1;
  Shard shard;
  // Runs `worker` on every thread the caller gives the swarm, the calling one included, and
  // returns once each call has returned. Unset: the worker runs once, on the calling thread.
  std::function<void(const std::function<void()>& worker)> parallel;
  // Called after each play with how many plays are done, of how many, and how many failed. The
  // calls never overlap; they may come from any thread `parallel` gave.
  std::function<void(std::size_t done, std::size_t total, std::size_t failed)> progress;
};

struct SwarmScenario {
  std::string file;  // where it was read, for the command that reproduces a failure
  v1::Scenario scenario;
};

struct SwarmFailure {
  const SwarmScenario* scenario;  // one of RunSwarm's; nullptr for a generated world
  std::int64_t seed = 0;
  Verdict verdict;
};

// How far a swarm's plays reached: a swarm whose worlds never make a run, or never restart the
// runtime, checks less than its play count says.
struct Reach {
  std::map<std::string, std::size_t> statuses;  // by StatusText: "no run", "COMPLETED", ...
  std::size_t with_effects = 0;                 // plays where a call reached a server
  std::size_t restarted = 0;    // plays where the runtime died or stopped and another went on
  std::size_t disk_faults = 0;  // plays where a crash at a commit or a storage fault fired
};

struct SwarmResult {
  std::size_t plays = 0;
  Reach reach;
  std::vector<SwarmFailure> failures;  // by scenario, then seed: the same on every run
};

// RunSwarm plays every scenario under every seed of its shard, each worker on an in-memory
// database of its own. Errors: the store's, making a worker's database.
absl::StatusOr<SwarmResult> RunSwarm(const std::vector<SwarmScenario>& scenarios,
                                     const SwarmOptions& options);

// JudgeGenerated judges the generated world of `seed` (generate.h): `options` made perturbed,
// so the invariants are what counts (a generated world expects nothing).
Verdict JudgeGenerated(std::int64_t seed, const JudgeOptions& options);

// RunGeneratedSwarm plays the generated world of every seed of its shard (`sim swarm
// --generate`), each played once, on the threads `options.parallel` gives. Failures have no
// scenario: the seed is the world. Errors: as RunSwarm.
absl::StatusOr<SwarmResult> RunGeneratedSwarm(const SwarmOptions& options);

}  // namespace agentrt::sim
