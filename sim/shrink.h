// sim/shrink.h
//
// Shrinking a failing scenario (`agentrt sim shrink`): the perturbations and the scenario itself
// (servers, tools, calls and the lines before them, listings and pages, startups, transports'
// options, agent steps and model replies, approvals, the crash or stale owner, storage faults,
// limits, per-tool policy) are taken away one at a time, keeping
// each removal after which the scenario still fails the same way (the same first broken
// invariant or difference, counts and ids aside), until no single removal keeps it failing. The
// result is a scenario a person can read in a minute that shows the failure alone.
//
// Deterministic: the same scenario always shrinks to the same result. Each candidate is played
// (Judge, perturbed and once), so shrinking costs a few hundred plays at most for a fixture-sized
// scenario.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "sim/judge.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

struct Shrunk {
  v1::Scenario scenario;
  Verdict verdict;  // how the shrunk scenario fails
  std::size_t plays = 0;
};

// Shrink shrinks `failing`, which must fail (Judge, perturbed and once); `judge` decides
// failure (tests pass their own). Errors: FailedPrecondition when `failing` does not fail.
absl::StatusOr<Shrunk> Shrink(const v1::Scenario& failing,
                              const std::function<Verdict(const v1::Scenario&)>& judge = {});

// ShrinkSeed shrinks `scenario` under swarm seed `seed` (swarm.h's sequence) into a scenario that
// shows the failure with no seed: its perturbations written out, named
// `<name>-seed-<seed>-shrunk` (unless that name is past the limit: the shrunk scenario must read
// back), and, when its expectations are not robust, expecting what it does (the unperturbed
// story's expectations no longer apply), so `sim run` on it shows the broken invariant alone.
// Errors: Shrink's.
absl::StatusOr<Shrunk> ShrinkSeed(const v1::Scenario& scenario, std::int64_t seed);

// ShrinkGenerated shrinks the generated world of `seed` (generate.h) the same way: named
// `generated-<seed>-shrunk`, expecting what it does, so `sim run` on it shows the broken
// invariant alone. It keeps generated_from_seed. Errors: Shrink's.
absl::StatusOr<Shrunk> ShrinkGenerated(std::int64_t seed);

}  // namespace agentrt::sim
