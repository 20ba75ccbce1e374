// Processes racing over one database — a SQLite file, or a PostgreSQL server in the suite's
// "[postgres]" registration (tests/support/test_store.h), as drivers on several hosts would:
//   - four resume the same approved run at once: exactly one executes the approved call; the
//     others are refused or find the run moved on, and never run it (docs/architecture.md,
//     "Approvals"), many times so the race is really run every way;
//   - sixteen start runs of their own at once: one chain, one total order, no gap.
// Real processes, started together at a barrier.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

extern char** environ;

namespace agentrt {
namespace {

namespace fs = std::filesystem;

struct Child {
  pid_t pid = -1;
  int to = -1;
  FILE* from = nullptr;
};

Child Spawn(const std::vector<std::string>& args) {
  int to_child[2], from_child[2];
  EXPECT_EQ(::pipe2(to_child, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(from_child, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child child;
  EXPECT_EQ(::posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  child.to = to_child[1];
  child.from = ::fdopen(from_child[0], "r");
  return child;
}

std::string Line(FILE* from) {
  char buffer[512];
  if (std::fgets(buffer, sizeof buffer, from) == nullptr) return "";
  std::string line(buffer);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

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

// Starts every child, waits for each to say "ready", gives them the start line together, and
// returns what each printed next, in order; each must exit 0.
std::vector<std::string> RaceChildren(const std::vector<std::vector<std::string>>& commands) {
  std::vector<Child> children;
  for (const std::vector<std::string>& command : commands) children.push_back(Spawn(command));
  for (Child& c : children) EXPECT_EQ(Line(c.from), "ready");
  for (Child& c : children) EXPECT_EQ(::write(c.to, "g", 1), 1);
  std::vector<std::string> said;
  for (Child& c : children) said.push_back(Line(c.from));
  for (Child& c : children) {
    int status = 0;
    EXPECT_EQ(::waitpid(c.pid, &status, 0), c.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::fclose(c.from);
    ::close(c.to);
  }
  return said;
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
    std::vector<std::vector<std::string>> commands(kRacers,
                                                   {AGENTRT_RESUME_CHILD, db, effects, "run"});
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
        {AGENTRT_DRIVE_CHILD, db, "run-" + std::to_string(i), std::to_string(kSteps)});
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
