// A seed's sequence and a swarm (sim/swarm.h): the verdicts do not depend on how the caller runs
// the workers, a shard plays only its seeds, failures come in one order naming their seed, a
// perturbed judge holds a scenario to its expectations only when they are robust, and a shrunk
// seed is a scenario of its own name.
#include "sim/swarm.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/atomic_file.h"
#include "sim/judge.h"
#include "sim/scenario_file.h"
#include "sim/shrink.h"
#include "tests/sim/reads_scenario.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::sim {
namespace {

using test_support::StatusIs;
using test_support::TestFile;
using test_support::TestFolder;

using test_scenarios::kReadsScenario;

v1::Scenario Parse(std::string_view text) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(text, "reads.textproto");
  EXPECT_OK(scenario);
  return *scenario;
}

// kReadsScenario expecting an end no seed can give, robustly: every seed fails the same way.
v1::Scenario AlwaysFailing() {
  v1::Scenario scenario = Parse(kReadsScenario);
  scenario.mutable_expect()->set_status("cancelled");
  scenario.mutable_expect()->set_robust(true);
  return scenario;
}

std::vector<std::int64_t> SeedsOf(const SwarmResult& result) {
  std::vector<std::int64_t> seeds;
  for (const SwarmFailure& f : result.failures) seeds.push_back(f.seed);
  return seeds;
}

TEST(SwarmTest, TheVerdictsDoNotDependOnHowTheWorkersRun) {
  std::vector<SwarmScenario> scenarios = {{"reads.textproto", Parse(kReadsScenario)},
                                          {"failing.textproto", AlwaysFailing()}};
  SwarmOptions options;
  options.seeds = 6;
  absl::StatusOr<SwarmResult> alone = RunSwarm(scenarios, options);
  ASSERT_OK(alone);

  int parallel_calls = 0;
  options.parallel = [&](const std::function<void()>& worker) {
    ++parallel_calls;
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
  };
  absl::StatusOr<SwarmResult> threaded = RunSwarm(scenarios, options);
  ASSERT_OK(threaded);

  EXPECT_EQ(parallel_calls, 1);
  EXPECT_EQ(alone->plays, 12u);
  EXPECT_EQ(threaded->plays, 12u);
  // The first scenario keeps every invariant; the second fails at every seed, in seed order.
  EXPECT_THAT(SeedsOf(*alone), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(SeedsOf(*threaded), SeedsOf(*alone));
  for (std::size_t i = 0; i < alone->failures.size(); ++i) {
    EXPECT_EQ(threaded->failures[i].scenario, &scenarios[1]);
    EXPECT_EQ(threaded->failures[i].verdict.difference, alone->failures[i].verdict.difference);
    EXPECT_THAT(alone->failures[i].verdict.difference, HasSubstr("status: expected cancelled"));
  }
}

TEST(SwarmTest, AShardPlaysOnlyItsSeedsAndProgressCountsEveryPlay) {
  std::vector<SwarmScenario> scenarios = {{"failing.textproto", AlwaysFailing()}};
  SwarmOptions options;
  options.seeds = 10;
  options.shard = {.index = 1, .count = 3};
  std::vector<std::size_t> done;
  options.progress = [&](std::size_t d, std::size_t total, std::size_t failed) {
    EXPECT_EQ(total, 4u);
    EXPECT_EQ(failed, d);
    done.push_back(d);
  };
  absl::StatusOr<SwarmResult> result = RunSwarm(scenarios, options);
  ASSERT_OK(result);
  EXPECT_EQ(result->plays, 4u);
  EXPECT_THAT(SeedsOf(*result), ElementsAre(1, 4, 7, 10));
  EXPECT_THAT(done, ElementsAre(1, 2, 3, 4));
}

TEST(SwarmTest, AShardIsIOfK) {
  struct Row {
    std::string text;
    std::optional<std::pair<std::int64_t, std::int64_t>> shard;
  } rows[] = {{"", std::pair{0, 1}}, {"0/1", std::pair{0, 1}}, {"2/3", std::pair{2, 3}},
              {"3/3", std::nullopt}, {"-1/3", std::nullopt},   {"1/0", std::nullopt},
              {"1", std::nullopt},   {"1/2/3", std::nullopt},  {"a/b", std::nullopt}};
  for (const Row& row : rows) {
    SCOPED_TRACE(row.text);
    std::optional<Shard> shard = ParseShard(row.text);
    ASSERT_EQ(shard.has_value(), row.shard.has_value());
    if (shard) EXPECT_EQ(std::pair(shard->index, shard->count), *row.shard);
  }
}

TEST(JudgeTest, UnderPerturbationsOnlyRobustExpectationsCount) {
  v1::Scenario scenario = Parse(kReadsScenario);
  scenario.mutable_expect()->set_status("cancelled");
  EXPECT_THAT(Judge(scenario).difference, HasSubstr("status: expected cancelled"));
  // Perturbed, the expectations were the unperturbed story's: only the invariants count...
  Verdict perturbed = Judge(scenario, PerturbedOnce());
  EXPECT_TRUE(perturbed.passed) << perturbed.difference;
  // ...unless the scenario says its expectations hold under any perturbation.
  scenario.mutable_expect()->set_robust(true);
  EXPECT_THAT(Judge(scenario, PerturbedOnce()).difference, HasSubstr("status: expected cancelled"));
}

TEST(JudgeTest, ASeedIsJudgedOverTheBaselinesAnswers) {
  v1::Scenario scenario = Parse(kReadsScenario);
  Verdict baseline = Baseline(scenario);
  ASSERT_TRUE(baseline.passed) << baseline.difference;
  EXPECT_EQ(baseline.effects, 2u);
  EXPECT_GT(baseline.answers, baseline.answers_before_run);
  for (std::int64_t seed = 1; seed <= 20; ++seed) {
    Verdict verdict = JudgeSeed(scenario, baseline, seed, {});
    EXPECT_TRUE(verdict.passed) << "seed " << seed << ": " << verdict.difference;
  }
}

TEST(JudgeFileTest, AFileThatDoesNotReadFailsNamingIt) {
  std::string missing = TestFile("missing.textproto");
  Verdict verdict = JudgeFile(test_support::RealFiles(), missing, {}, std::nullopt);
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.name, missing);
  EXPECT_THAT(verdict.difference, HasSubstr("missing.textproto"));
  EXPECT_EQ(verdict.status, std::nullopt);
}

TEST(JudgeFileTest, UnderASeedBothPerturbedPlaysAreKept) {
  std::string file = TestFile("reads.textproto");
  ASSERT_OK(WriteFileAtomically(file, kReadsScenario, "scenario"));
  JudgeOptions options;
  options.db_dir = TestFolder().string();
  options.files = &test_support::RealFiles();
  Verdict verdict = JudgeFile(test_support::RealFiles(), file, options, 7);
  EXPECT_TRUE(verdict.passed) << verdict.difference;
  EXPECT_THAT(verdict.status, Optional(RunStatus::kCompleted));
  // The baseline is played in memory: the files are the perturbed plays', the second for
  // determinism.
  EXPECT_TRUE(std::filesystem::exists(TestFolder() / "reads.db"));
  EXPECT_TRUE(std::filesystem::exists(TestFolder() / "reads.2.db"));
}

TEST(ShrinkSeedTest, TheShrunkScenarioIsNamedForItsSeedAndStillFails) {
  absl::StatusOr<Shrunk> shrunk = ShrinkSeed(AlwaysFailing(), 5);
  ASSERT_OK(shrunk);
  EXPECT_EQ(shrunk->scenario.name(), "reads-seed-5-shrunk");
  EXPECT_THAT(shrunk->verdict.difference, HasSubstr("status: expected cancelled"));
  // Robust expectations are kept as written: they are what fails.
  EXPECT_EQ(shrunk->scenario.expect().status(), "cancelled");
  EXPECT_FALSE(Judge(shrunk->scenario, PerturbedOnce()).passed);
}

TEST(ShrinkSeedTest, ASeedThatDoesNotFailHasNothingToShrink) {
  EXPECT_THAT(ShrinkSeed(Parse(kReadsScenario), 5),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("does not fail")));
}

}  // namespace
}  // namespace agentrt::sim
