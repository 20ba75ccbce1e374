// Two processes resume the same approved run at once, over one database file: exactly one
// executes the approved call; the other is refused or finds the run moved on, and never runs
// it (docs/architecture.md, "Approvals"). Real processes, started together at a barrier, many times
// so the race is really run both ways.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
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

TEST_F(ConcurrentResumeTest, TwoProcessesResumingOneApprovedRunExecuteItOnce) {
  constexpr int kRaces = 8;
  int first_wins = 0;
  for (int race = 0; race < kRaces; ++race) {
    SCOPED_TRACE(race);
    std::string db = (dir_ / ("race-" + std::to_string(race) + ".db")).string();
    std::string effects = (dir_ / ("race-" + std::to_string(race) + ".effects")).string();
    PausedAndApproved(db, "run");
    if (HasFatalFailure()) return;
    Child a = Spawn({AGENTRT_RESUME_CHILD, db, effects, "run"});
    Child b = Spawn({AGENTRT_RESUME_CHILD, db, effects, "run"});
    ASSERT_EQ(Line(a.from), "ready");
    ASSERT_EQ(Line(b.from), "ready");
    // The start line: both children go at once.
    ASSERT_EQ(::write(a.to, "g", 1), 1);
    ASSERT_EQ(::write(b.to, "g", 1), 1);
    std::string got_a = Line(a.from), got_b = Line(b.from);
    for (Child* c : {&a, &b}) {
      int status = 0;
      ASSERT_EQ(::waitpid(c->pid, &status, 0), c->pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      std::fclose(c->from);
      ::close(c->to);
    }
    std::vector<std::string> sent = crash::Effects(effects);
    EXPECT_EQ(sent.size(), 1u) << "the approved call ran " << sent.size() << " times";
    bool a_won = got_a == "resumed COMPLETED";
    bool b_won = got_b == "resumed COMPLETED";
    EXPECT_NE(a_won, b_won) << got_a << " / " << got_b;
    // The other one never executed: refused, or it found the run already moving.
    const std::string& loser = a_won ? got_b : got_a;
    EXPECT_THAT(loser, ::testing::AnyOf(HasSubstr("refused"), HasSubstr("resumed")));
    if (a_won) ++first_wins;
    world::ManualClock clock(absl::Now());
    auto store = *records::OpenStore(db, clock);
    EXPECT_EQ(ReadRun(*store, "run")->status, RunStatus::kCompleted);
    EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  }
  std::cout << "first child won " << first_wins << " of " << kRaces << " races\n";
}

}  // namespace
}  // namespace agentrt
