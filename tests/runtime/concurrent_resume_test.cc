// Processes racing over one database — a SQLite file, or a PostgreSQL server in the suite's
// "[postgres]" registration (tests/support/test_store.h), as drivers on several hosts would:
//   - four resume the same approved run at once: exactly one executes the approved call; the
//     others are refused or find the run moved on, and never run it (docs/architecture.md,
//     "Approvals"), many times so the race is really run every way;
//   - sixteen start runs of their own at once: one chain, one total order, no gap.
// Real processes, started together at a barrier.

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/crash_world.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/raced_children.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;

class ConcurrentResumeTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::TestFolder(); }

  // A run paused for approval of one post, approved.
  void PausedAndApproved(const std::string& db, const std::string& run_id) {
    world::ManualClock clock(absl::Now());  // real time: the children judge the grant by it
    world::SeededEntropy entropy(5);
    auto store = *records::OpenStore(db, clock);
    testing::PostTool post;
    ScriptedAgent agent({scripted::Call("post", R"({"to":"ops"})")});
    auto policy = DefaultPolicy();
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy.get();
    options.tools = {&post};
    options.scheduler = &clock;
    auto driver = *Driver::Create(*store, clock, entropy, options);
    absl::StatusOr<agentrt::Run> run = driver->StartWithId(run_id, "post once", Limits{});
    ASSERT_OK(run);
    ASSERT_EQ(run->status, RunStatus::kWaitingForApproval);
    Approval pending = *PendingApproval(*store, run_id);
    ASSERT_OK(Approve(*store, clock, run_id, pending.id, Decider{"ops", "go"}));
  }

  fs::path dir_;
};

// Races the children (tests/support/raced_children.h): each must get ready and exit 0.
std::vector<std::string> RaceChildren(const std::vector<std::vector<std::string>>& commands) {
  test_support::Race race = test_support::RaceChildren(commands);
  for (const std::string& ready : race.ready) EXPECT_EQ(ready, "ready");
  EXPECT_TRUE(race.all_exited_zero);
  return race.said;
}

TEST_F(ConcurrentResumeTest, FourProcessesResumingOneApprovedRunExecuteItOnce) {
  constexpr int kRaces = 6;
  constexpr int kRacers = 4;
  std::vector<int> wins(kRacers, 0);
  for (int race = 0; race < kRaces; ++race) {
    SCOPED_TRACE(race);
    std::string db = test_support::TestDatabase("race-" + std::to_string(race) + ".db");
    std::string effects = (dir_ / ("race-" + std::to_string(race) + ".effects")).string();
    PausedAndApproved(db, "run");
    if (HasFatalFailure()) return;
    std::vector<std::vector<std::string>> commands(
        kRacers, {AGENTRT_RACE_CHILD, "resume", db, effects, "run"});
    std::vector<std::string> said = RaceChildren(commands);
    std::vector<std::string> sent = crash::Effects(effects);
    EXPECT_EQ(sent.size(), 1u) << "the approved call ran " << sent.size() << " times";
    int winners = 0;
    for (int i = 0; i < kRacers; ++i) {
      if (said[i] == "resumed COMPLETED") {
        ++winners;
        ++wins[i];
        continue;
      }
      // Every other one never executed: refused, or it found the run already moving.
      EXPECT_THAT(said[i], ::testing::AnyOf(HasSubstr("refused"), HasSubstr("resumed")));
    }
    EXPECT_EQ(winners, 1) << ::testing::PrintToString(said);
    world::ManualClock clock(absl::Now());
    auto store = *records::OpenStore(db, clock);
    EXPECT_EQ(ReadRun(*store, "run")->status, RunStatus::kCompleted);
    EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  }
  std::cout << "wins by child: " << ::testing::PrintToString(wins) << " of " << kRaces
            << " races\n";
}

TEST_F(ConcurrentResumeTest, SixteenProcessesAppendingAtOnceMakeOneChainWithNoGap) {
  constexpr int kDrivers = 16;
  constexpr int kSteps = 6;
  std::string db = test_support::TestDatabase("appenders.db");
  {
    world::ManualClock clock(absl::Now());
    ASSERT_OK(records::OpenStore(db, clock).status());  // made before the race
  }
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < kDrivers; ++i) {
    commands.push_back(
        {AGENTRT_RACE_CHILD, "start", db, "run-" + std::to_string(i), std::to_string(kSteps)});
  }
  std::vector<std::string> said = RaceChildren(commands);
  for (const std::string& s : said) EXPECT_EQ(s, "ran COMPLETED");
  world::ManualClock clock(absl::Now());
  auto store = *records::OpenStore(db, clock);
  absl::StatusOr<store::ChainReport> chain = store->VerifyEvents();
  ASSERT_OK(chain);
  EXPECT_FALSE(chain->broken.has_value()) << (chain->broken ? chain->broken->detail : "");
  absl::StatusOr<std::vector<store::Event>> events = store->ListEvents("");
  ASSERT_OK(events);
  // One total order: seqs 1..N with no gap, each run's events among them in its own order.
  ASSERT_EQ(chain->checked, static_cast<std::int64_t>(events->size()));
  std::map<std::string, int> per_run;
  bool interleaved = false;
  for (std::size_t i = 0; i < events->size(); ++i) {
    EXPECT_EQ((*events)[i].seq, static_cast<std::int64_t>(i + 1));
    ++per_run[(*events)[i].run_id];
    if (i > 0 && (*events)[i].run_id != (*events)[i - 1].run_id) interleaved = true;
  }
  EXPECT_EQ(per_run.size(), static_cast<std::size_t>(kDrivers));
  for (int i = 0; i < kDrivers; ++i) {
    std::string run = "run-" + std::to_string(i);
    EXPECT_EQ(ReadRun(*store, run)->status, RunStatus::kCompleted) << run;
    EXPECT_EQ(per_run[run], per_run["run-0"]) << run;  // the same story, event for event
  }
  std::cout << events->size() << " events from " << kDrivers << " processes"
            << (interleaved ? ", interleaved" : ", one after another") << "\n";
}

}  // namespace
}  // namespace agentrt
