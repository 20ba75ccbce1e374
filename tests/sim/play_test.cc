// Playing scenarios with the real MCP client, runtime and store on the simulated world: the
// same scenario gives the same chain head; a 30-second timeout costs virtual time only; a crash
// leaves the database as it was and the resumed run pauses before running the call again; the
// invariants catch what they promise to catch; seeds and shrinking are deterministic.
#include "sim/play.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/events.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "sim/judge.h"
#include "sim/scenario_file.h"
#include "sim/shrink.h"
#include "sim/swarm.h"
#include "sim/verdict.h"
#include "tests/sim/plays.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::sim {
namespace {

constexpr const char* kBase = test_plays::kReadThenWrite;

using test_plays::ExpectRun;
using test_plays::Parse;
using test_plays::PlayOk;

TEST(PlayTest, TheSameScenarioGivesTheSameChainHead) {
  v1::Scenario scenario = Parse(kBase);
  Outcome first = PlayOk(scenario);
  Outcome second = PlayOk(scenario);
  ASSERT_TRUE(first.run.has_value());
  EXPECT_EQ(first.run->status, RunStatus::kCompleted);
  EXPECT_FALSE(first.chain_head.empty());
  EXPECT_EQ(first.chain_head, second.chain_head);
  ASSERT_EQ(first.events.size(), second.events.size());
  for (std::size_t i = 0; i < first.events.size(); ++i) {
    EXPECT_EQ(first.events[i].payload_json, second.events[i].payload_json);
    EXPECT_EQ(first.events[i].at, second.events[i].at);
  }
  // Another seed gives other ids, so another chain.
  EXPECT_NE(PlayOk(scenario, 2).chain_head, first.chain_head);
  EXPECT_THAT(BrokenInvariants(first), IsEmpty());
  EXPECT_EQ(first.effects.size(), 2u);
}

// A play's chain head is the same across builds as well as across plays: the clock's readings,
// ids and payloads are all part of it, so a change that reads the clock once more, draws one id
// more or writes a byte otherwise shows here (one did: a reading taken for the liveness check).
// docs_rug_pull's is the head docs/simulator.md prints; the others cover a restart after a crash,
// a power cut and a stale owner. A change that means to move them says so, and updates them.
TEST(PlayTest, ThePinnedChainHeadsStay) {
  const std::pair<const char*, const char*> kPinned[] = {
      {"docs_rug_pull", "e358a23430fb26ceaef171b3eb2775190707be3ff4b5b6f0771c62828626376d"},
      {"crash_resume_side_effect",
       "bb28c31cfc59a25fc2773011abdb0de24b128a7b5b2c6811c79090f09bce9502"},
      {"power_cut_after_a_write",
       "444d412a9120f1d1e9d04f3ad7ebfe46edd2e9c024311297fc0c0a282b13d2a1"},
      {"stale_owner_refused", "3d205325a755f3b55688b4d9195371ecf1ac13aff90ad6a7ae84ed1fc7374871"},
  };
  for (const auto& [name, head] : kPinned) {
    absl::StatusOr<v1::Scenario> scenario =
        ReadScenario(test_support::RealFiles(),
                     absl::StrCat(AGENTRT_SOURCE_DIR, "/fixtures/scenarios/", name, ".textproto"));
    ASSERT_OK(scenario);
    EXPECT_EQ(PlayOk(*scenario).chain_head, head) << name;
  }
}

TEST(PlayTest, ADatabaseFilePlaysExactlyAsAFreshInMemoryOne) {
  v1::Scenario scenario = Parse(kBase);
  PlayOptions options;
  options.db_path = test_support::TestFile("play.db");
  options.files = &test_support::RealFiles();
  absl::StatusOr<Outcome> file = Play(scenario, options);
  ASSERT_OK(file);
  EXPECT_EQ(file->chain_head, PlayOk(scenario).chain_head);
}

TEST(PlayTest, EveryFixturePlaysOnAReusedDatabaseExactlyAsOnAFreshOne) {
  absl::StatusOr<std::vector<std::string>> files = ScenarioFiles(
      test_support::RealFiles(), {std::string(AGENTRT_SOURCE_DIR) + "/fixtures/scenarios"});
  ASSERT_OK(files);
  absl::StatusOr<std::unique_ptr<PlayDatabase>> reused = PlayDatabase::Create();
  ASSERT_OK(reused);
  PlayOptions options;
  options.reuse = reused->get();
  for (const std::string& file : *files) {
    SCOPED_TRACE(file);
    absl::StatusOr<v1::Scenario> scenario = ReadScenario(test_support::RealFiles(), file);
    ASSERT_OK(scenario);
    absl::StatusOr<Outcome> on_reused = Play(*scenario, options);
    ASSERT_OK(on_reused);
    Outcome fresh = PlayOk(*scenario);
    EXPECT_EQ(on_reused->chain_head, fresh.chain_head);
    ASSERT_EQ(on_reused->events.size(), fresh.events.size());
    for (std::size_t i = 0; i < fresh.events.size(); ++i) {
      EXPECT_EQ(on_reused->events[i].seq, fresh.events[i].seq);
      EXPECT_EQ(on_reused->events[i].hash, fresh.events[i].hash);
    }
  }
}

TEST(PlayTest, AHangPastItsTimeoutCostsVirtualTimeOnly) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_servers(0)->mutable_tools(0)->mutable_calls(0)->set_action(v1::Call::HANG);
  Outcome outcome = PlayOk(scenario);
  EXPECT_GE(outcome.virtual_time, absl::Seconds(30));
  EXPECT_LT(outcome.virtual_time, absl::Seconds(31));
  ASSERT_FALSE(outcome.observations.empty());
  EXPECT_THAT(outcome.observations[0], HasSubstr("tool_error"));
  EXPECT_THAT(BrokenInvariants(outcome), IsEmpty());
}

// A wait jumps the virtual clock to its deadline: the lease's heartbeat, due every 10 s on the
// way, runs once at its last beat instead of 8,640 times, so the longest timeout a scenario
// may name costs what a short one does.
TEST(PlayTest, AHangWithTheLongestTimeoutJumpsToItsDeadline) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_servers(0)->set_rules_json(
      R"({"read":{"side_effect":"read_only","timeout":"24h"},)"
      R"("write":{"side_effect":"local_mutation","timeout":"30s"}})");
  scenario.mutable_servers(0)->mutable_tools(0)->mutable_calls(0)->set_action(v1::Call::HANG);
  Outcome outcome = PlayOk(scenario);
  EXPECT_GE(outcome.virtual_time, absl::Hours(24));
  EXPECT_LT(outcome.virtual_time, absl::Hours(24) + absl::Seconds(1));
  EXPECT_LE(outcome.task_runs, 2);
  ASSERT_FALSE(outcome.observations.empty());
  EXPECT_THAT(outcome.observations[0], HasSubstr("tool_error"));
  ExpectRun(outcome, RunStatus::kCompleted, 2);
}

// The name becomes a path only as one component inside the folder, whoever built the scenario,
// and a play creates its database new: nothing already there is opened, replaced or removed.
TEST(JudgeTest, DatabasesAreOnlyEverNewFilesInsideTheFolder) {
  std::filesystem::path dir = test_support::TestFolder() / "dbs";
  std::filesystem::create_directories(dir);
  v1::Scenario scenario = Parse(kBase);
  scenario.set_name("../outside");
  Verdict escaped = Judge(scenario, {.db_dir = dir.string(), .files = &test_support::RealFiles()});
  EXPECT_FALSE(escaped.passed);
  EXPECT_THAT(escaped.difference, HasSubstr("the scenario's name cannot name a database file"));
  EXPECT_FALSE(std::filesystem::exists(test_support::TestFolder() / "outside.db"));

  scenario.set_name("kept");
  std::ofstream(dir / "kept.db") << "notes, not a database";
  Verdict existing = Judge(scenario, {.db_dir = dir.string(), .files = &test_support::RealFiles()});
  EXPECT_FALSE(existing.passed);
  EXPECT_THAT(existing.difference, HasSubstr("kept.db exists already"));
  std::ifstream kept(dir / "kept.db");
  std::string contents((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, "notes, not a database");

  // A link planted at the second play's path is refused too; its target is untouched.
  scenario.set_name("linked");
  std::ofstream(dir / "target") << "precious";
  std::filesystem::create_symlink(dir / "target", dir / "linked.2.db");
  Verdict linked = Judge(scenario, {.db_dir = dir.string(), .files = &test_support::RealFiles()});
  EXPECT_THAT(linked.difference, HasSubstr("linked.2.db exists already"));
  std::ifstream target(dir / "target");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(target)), std::istreambuf_iterator<char>()),
            "precious");

  scenario.set_name("fresh");
  EXPECT_TRUE(
      Judge(scenario, {.db_dir = dir.string(), .files = &test_support::RealFiles()}).passed);
  EXPECT_TRUE(std::filesystem::exists(dir / "fresh.db"));
  EXPECT_TRUE(std::filesystem::exists(dir / "fresh.2.db"));
}

TEST(PlayTest, ACrashAfterAWriteReachedTheServerPausesTheResumedRun) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_crash()->set_after_call(2);
  Outcome outcome = PlayOk(scenario);
  EXPECT_TRUE(outcome.crashed);
  // The write reached the server once; the restarted runtime did not run it again.
  ExpectRun(outcome, RunStatus::kWaitingForApproval, 2);
  std::vector<std::string> types;
  for (const store::Event& event : outcome.events) types.push_back(event.type);
  EXPECT_THAT(types, ::testing::Contains(std::string(event::kLeaseTakenOver)));
  EXPECT_THAT(types, ::testing::Contains(std::string(event::kStepInterrupted)));

  // Granting the interrupted call runs it again, once, by the operator's authority.
  scenario.add_approvals();
  ExpectRun(PlayOk(scenario), RunStatus::kCompleted, 3);
}

TEST(PlayTest, ACrashInsideTheResumeAfterAGrantRestartsAndAsksAgain) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_policy()->set_local_mutation(v1::REQUIRE_APPROVAL);
  scenario.add_approvals();  // grants the write; the runtime dies as it reaches the server
  scenario.mutable_crash()->set_after_call(2);
  Outcome paused = PlayOk(scenario);
  EXPECT_TRUE(paused.crashed);
  ExpectRun(paused, RunStatus::kWaitingForApproval, 2);

  // Granting the interrupted write resumes it under the policy asked again, which wants its own
  // approval for a write (docs/architecture.md, "Leases and interruption"): the run pauses once
  // more, then runs it.
  scenario.add_approvals();
  ExpectRun(PlayOk(scenario), RunStatus::kWaitingForApproval, 2);
  scenario.add_approvals();
  ExpectRun(PlayOk(scenario), RunStatus::kCompleted, 3);
}

TEST(PlayTest, AfterACrashTheDatabaseFileHoldsTheRestartedRuntimesRun) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_crash()->set_after_call(2);
  PlayOptions options;
  options.db_path = test_support::TestFile("crash.db");
  options.files = &test_support::RealFiles();
  absl::StatusOr<Outcome> outcome = Play(scenario, options);
  ASSERT_OK(outcome);
  absl::StatusOr<std::unique_ptr<store::Store>> file =
      records::OpenExistingStore(options.db_path, /*read_only=*/true);
  ASSERT_OK(file);
  absl::StatusOr<store::ChainHead> head = (*file)->Head();
  ASSERT_OK(head);
  EXPECT_EQ(head->hash, outcome->chain_head);
  absl::StatusOr<std::vector<store::Event>> events = (*file)->ListEvents(outcome->run->id);
  ASSERT_OK(events);
  EXPECT_EQ(events->size(), outcome->events.size());
}

TEST(VerdictTest, AnEffectNobodyAuthorizedBreaksTheFirstInvariant) {
  Outcome outcome = PlayOk(Parse(kBase));
  ASSERT_THAT(BrokenInvariants(outcome), IsEmpty());
  // The server saw the write twice: once more than the runtime started it.
  outcome.effects.push_back(outcome.effects.back());
  EXPECT_THAT(BrokenInvariants(outcome),
              ::testing::ElementsAre(HasSubstr("effect without authority or twice")));
}

// A server behind authorization: the simulated authorization server and the real authorizer
// play through; nothing secret of theirs reaches the log, and a token that did is caught.
TEST(VerdictTest, ASecretOfTheAuthorizationInTheLogBreaksTheSixthInvariant) {
  v1::Scenario scenario = Parse(R"pb(
    servers {
      name: "vault"
      transport: HTTP
      http { auth { required: true } }
      tools {
        name: "read"
        calls { text: "ok" }
      }
      rules_json: '{"read":{"side_effect":"read_only","timeout":"5s"}}'
    }
    agent {
      steps { call { tool: "vault_read" } }
      steps { complete_json: '{}' }
    }
    policy { read_only: ALLOW }
  )pb");
  Outcome outcome = PlayOk(scenario);
  ASSERT_TRUE(outcome.run.has_value());
  EXPECT_EQ(outcome.run->status, RunStatus::kCompleted);
  ASSERT_THAT(BrokenInvariants(outcome), IsEmpty());
  outcome.events.front().payload_json = R"({"leaked":"Bearer sim-token-vault-1"})";
  EXPECT_THAT(BrokenInvariants(outcome),
              ::testing::ElementsAre(HasSubstr("a secret of the authorization")));
  outcome = PlayOk(scenario);
  outcome.load_errors.push_back("basic sim-secret");
  EXPECT_THAT(BrokenInvariants(outcome),
              ::testing::ElementsAre(HasSubstr("a secret of the authorization (sim-secret...)")));
}

// A server whose first load timed out loads when the runtime restarts after a crash: the
// restarted runtime's calls to it are authorized by its own load, not the first one's (a swarm
// seed found the verdict judging them by the first load's). A call the restarted runtime makes
// to a tool only the first load registered is still caught.
TEST(VerdictTest, TheRestartedRuntimesCallsAreJudgedByItsOwnLoad) {
  v1::Scenario scenario = Parse(R"pb(
    servers {
      name: "a_b"
      tools { name: "c" }
      rules_json: '{"c":{"side_effect":"read_only","timeout":"5s"}}'
    }
    servers {
      name: "a"
      tools { name: "b_c" }
      tools { name: "d" }
      rules_json: '{"b_c":{"side_effect":"read_only","timeout":"5s"},'
                  '"d":{"side_effect":"read_only","timeout":"5s"}}'
    }
    agent {
      steps { call { tool: "a_b_c" } }
      steps { call { tool: "a_d" } }
    }
    policy { read_only: ALLOW }
    crash { after_call: 1 }
    perturbations { at_answer: 8 clock_jump: "427s" }
  )pb");
  absl::StatusOr<Outcome> played = Play(scenario);
  ASSERT_OK(played);
  Outcome outcome = *std::move(played);
  ASSERT_THAT(outcome.load_errors, ::testing::ElementsAre(HasSubstr("timed out")));
  ASSERT_THAT(outcome.effects, SizeIs(2));
  EXPECT_FALSE(outcome.effects[0].after_restart);
  EXPECT_TRUE(outcome.effects[1].after_restart);
  EXPECT_THAT(BrokenInvariants(outcome), IsEmpty());

  outcome.restart_reports.clear();
  EXPECT_THAT(BrokenInvariants(outcome),
              ::testing::Contains(HasSubstr("call 2 to \"a\"/\"d\" {} reached a tool that was "
                                            "never registered")));
}

TEST(VerdictTest, AStartTheDenyingPolicyNeverAllowedIsCaught) {
  Outcome outcome = PlayOk(Parse(kBase));
  for (store::Event& event : outcome.events) {
    if (event.type == event::kStepPolicy) event.payload_json = R"({"outcome":"deny"})";
  }
  EXPECT_THAT(BrokenInvariants(outcome), ::testing::Contains(HasSubstr("neither the policy")));
}

TEST(VerdictTest, AToolMissingFromTheReportIsCaught) {
  Outcome outcome = PlayOk(Parse(kBase));
  outcome.offered[0].second.push_back("ghost");
  EXPECT_THAT(BrokenInvariants(outcome), ::testing::ElementsAre(HasSubstr("\"ghost\"")));
}

TEST(VerdictTest, UnescapedServerTextAndARunLeftRunningAreCaught) {
  Outcome outcome = PlayOk(Parse(kBase));
  outcome.load_errors.push_back("fs: tool \"\x1b[31mred\": refused");
  outcome.run->status = RunStatus::kRunning;
  std::vector<std::string> broken = BrokenInvariants(outcome);
  EXPECT_THAT(broken, ::testing::Contains(HasSubstr("unescaped text in an error")));
  EXPECT_THAT(broken, ::testing::Contains(HasSubstr("the run was left RUNNING")));
}

TEST(VerdictTest, TheFirstDifferenceNamesTheField) {
  v1::Scenario scenario = Parse(kBase);
  Outcome outcome = PlayOk(scenario);
  v1::Expect expect;
  expect.set_status("failed");
  EXPECT_EQ(FirstDifference(expect, outcome),
            "status: expected failed, got COMPLETED (goal_completed)");
  expect.Clear();
  expect.add_registered("fs_read");
  EXPECT_THAT(FirstDifference(expect, outcome), HasSubstr("registered: expected [\"fs_read\"]"));
  expect.Clear();
  expect.set_effects(1);
  EXPECT_EQ(FirstDifference(expect, outcome), "effects: expected 1, got 2");
  expect.Clear();
  expect.add_observations("contents");
  expect.add_observations("written");
  EXPECT_EQ(FirstDifference(expect, outcome), "");
  expect.add_observations("contents");
  EXPECT_THAT(FirstDifference(expect, outcome), HasSubstr("observations: no step (in order)"));
  expect.Clear();
  expect.add_received(R"(fs/write {"path":"b"})");
  EXPECT_EQ(FirstDifference(expect, outcome), "");
  expect.add_received("fs/read");
  EXPECT_THAT(FirstDifference(expect, outcome), HasSubstr("received: no call (in order)"));
  expect.Clear();
  expect.set_nothing_registered(true);
  EXPECT_THAT(FirstDifference(expect, outcome), HasSubstr("registered: expected nothing, got"));
}

TEST(JudgeTest, AScenarioPassesOnlyWhenItIsWhatItExpects) {
  v1::Scenario scenario = Parse(kBase);
  scenario.mutable_expect()->set_status("completed");
  Verdict pass = Judge(scenario);
  EXPECT_TRUE(pass.passed) << pass.difference;
  EXPECT_EQ(pass.status, RunStatus::kCompleted);
  scenario.mutable_expect()->set_status("cancelled");
  Verdict fail = Judge(scenario);
  EXPECT_FALSE(fail.passed);
  EXPECT_THAT(fail.difference, HasSubstr("status: expected cancelled"));
}

TEST(JudgeTest, ASeedAlwaysStandsForTheSamePerturbations) {
  v1::Scenario scenario = Parse(kBase);
  Verdict base;
  base.answers = 10;
  base.answers_before_run = 6;
  base.effects = 2;
  v1::Scenario a = Perturb(scenario, 42, base);
  v1::Scenario b = Perturb(scenario, 42, base);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_GE(a.perturbations_size(), 1);
  for (const v1::Perturbation& p : a.perturbations()) {
    EXPECT_GE(p.at_answer(), 1u);
    EXPECT_LE(p.at_answer(), 10u);
  }
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    differ += Perturb(scenario, seed, base).SerializeAsString() != a.SerializeAsString();
  }
  EXPECT_GE(differ, 19);
  // Robust expectations are about the run: pin and load are left as written.
  scenario.mutable_expect()->set_robust(true);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    v1::Scenario perturbed = Perturb(scenario, seed, base);
    for (const v1::Perturbation& p : perturbed.perturbations()) {
      EXPECT_GT(p.at_answer(), 6u) << seed;
    }
  }
}

TEST(JudgeTest, PerturbedPlaysKeepEveryInvariant) {
  v1::Scenario scenario = Parse(kBase);
  Verdict base = Baseline(scenario);
  ASSERT_TRUE(base.passed) << base.difference;
  for (std::int64_t seed = 1; seed <= 40; ++seed) {
    Verdict verdict = JudgeSeed(scenario, base, seed, {});
    EXPECT_TRUE(verdict.passed) << "seed " << seed << ": " << verdict.difference;
  }
}

TEST(ShrinkTest, ShrinkingKeepsOnlyWhatTheFailureNeeds) {
  v1::Scenario scenario = Parse(kBase);
  for (std::uint32_t answer : {1, 3, 5}) {
    v1::Perturbation* p = scenario.add_perturbations();
    p->set_at_answer(answer);
    p->set_stderr_noise(true);
  }
  scenario.mutable_perturbations(1)->set_drop(true);
  // A judge that fails while a dropped connection is in the scenario.
  auto judge = [](const v1::Scenario& s) {
    Verdict verdict;
    verdict.passed = true;
    for (const v1::Perturbation& p : s.perturbations()) {
      if (p.drop()) {
        verdict.passed = false;
        verdict.difference = "invariant broken: dropped: somewhere";
      }
    }
    return verdict;
  };
  absl::StatusOr<Shrunk> shrunk = Shrink(scenario, judge);
  ASSERT_OK(shrunk);
  ASSERT_EQ(shrunk->scenario.perturbations_size(), 1);
  EXPECT_TRUE(shrunk->scenario.perturbations(0).drop());
  EXPECT_EQ(shrunk->scenario.agent().steps_size(), 0);
  EXPECT_EQ(shrunk->scenario.servers(0).tools_size(), 0);
  EXPECT_FALSE(shrunk->verdict.passed);

  scenario.clear_perturbations();
  EXPECT_TRUE(absl::IsFailedPrecondition(Shrink(scenario, judge).status()));
}

}  // namespace
}  // namespace agentrt::sim
