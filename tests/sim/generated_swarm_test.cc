// The fixed-seed regression set: the generated worlds of seeds 1 to 3,000, each judged by the
// invariants against the real MCP client, driver and store, in CI on every change. A seed that
// fails here is a finding: shrink it (`agentrt sim shrink --generate --seed S`), fix the code,
// and keep the shrunk world in fixtures/scenarios.
//
// Also: the worlds reach what they are meant to (runs, calls, restarts, disk faults), a world is
// played the same way twice (its chain head), and how the swarm's workers are run changes
// nothing of its verdicts.
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/generate.h"
#include "sim/judge.h"
#include "sim/swarm.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

// 3,000 take about 3 s in the default build; under ASan+UBSan a play is about 17× slower, so
// the sanitizer build plays the first 1,000 (the default build plays all of them).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGENTRT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(AGENTRT_SANITIZED)
constexpr std::int64_t kRegressionSeeds = 1000;
#else
constexpr std::int64_t kRegressionSeeds = 3000;
#endif

TEST(GeneratedSwarmTest, TheRegressionSeedsKeepEveryInvariant) {
  absl::StatusOr<SwarmResult> swarm =
      RunGeneratedSwarm({.seeds = kRegressionSeeds, .first_seed = 1});
  ASSERT_OK(swarm);
  EXPECT_EQ(swarm->plays, static_cast<std::size_t>(kRegressionSeeds));
  for (const SwarmFailure& f : swarm->failures) {
    ADD_FAILURE() << GeneratedName(f.seed) << ": " << f.verdict.difference
                  << "\n  reproduce: agentrt sim shrink --generate --seed " << f.seed;
  }
  // What the worlds reached: most make a run, many reach a server, a good share restart the
  // runtime or fault its disk, and every way a run settles is among them.
  const Reach& reach = swarm->reach;
  std::size_t no_run = reach.statuses.contains("no run") ? reach.statuses.at("no run") : 0;
  EXPECT_LT(no_run, swarm->plays / 3);
  EXPECT_GT(reach.with_effects, swarm->plays / 4);
  EXPECT_GT(reach.restarted, swarm->plays / 20);
  EXPECT_GT(reach.disk_faults, swarm->plays / 20);
  for (const char* status : {"COMPLETED", "FAILED", "CANCELLED", "WAITING_FOR_APPROVAL"}) {
    EXPECT_GT(reach.statuses.contains(status) ? reach.statuses.at(status) : 0, 20u) << status;
  }
}

// Each world played twice gives the same chain head, events and effects: a generated world is
// as deterministic as a written one, faults, restarts and stale owners included.
TEST(GeneratedSwarmTest, AGeneratedWorldPlaysTheSameTwice) {
  for (std::int64_t seed = 1; seed <= 150; ++seed) {
    Verdict verdict = JudgeGenerated(seed, {.determinism = true});
    EXPECT_TRUE(verdict.passed) << seed << ": " << verdict.difference;
  }
}

TEST(GeneratedSwarmTest, TheWorkersChangeNothing) {
  SwarmOptions one{.seeds = 200, .first_seed = 5000};
  SwarmOptions two = one;
  two.parallel = [](const std::function<void()>& worker) {
    std::thread other(worker);
    worker();
    other.join();
  };
  absl::StatusOr<SwarmResult> a = RunGeneratedSwarm(one);
  absl::StatusOr<SwarmResult> b = RunGeneratedSwarm(two);
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(a->reach.statuses, b->reach.statuses);
  EXPECT_EQ(a->reach.with_effects, b->reach.with_effects);
  EXPECT_EQ(a->reach.restarted, b->reach.restarted);
  EXPECT_EQ(a->reach.disk_faults, b->reach.disk_faults);
  EXPECT_EQ(a->failures.size(), b->failures.size());

  // A shard plays its seeds only.
  SwarmOptions shard = one;
  shard.shard = {.index = 1, .count = 4};
  absl::StatusOr<SwarmResult> part = RunGeneratedSwarm(shard);
  ASSERT_OK(part);
  EXPECT_EQ(part->plays, 50u);
}

}  // namespace
}  // namespace agentrt::sim
