// SIGKILL at a seeded point of a real child process, then resume in this one: a step that was
// executing a side-effecting tool is interrupted and waits for an operator, and no tool call is
// ever executed twice without a grant (docs/architecture.md, "Leases and interruption"; ADR 6).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/crash_world.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

extern char** environ;

namespace agentrt {
namespace {

namespace fs = std::filesystem;

struct Killed {
  int lines_seen = 0;
  std::string last_line;
  bool finished = false;  // the child reached "done" before the kill point
};

// The crash child, started with pipes to its standard input and output.
struct Child {
  pid_t pid = -1;
  int to = -1;    // write a byte to let it go on
  int from = -1;  // read its lines
};

Child StartChild(const std::string& db, const std::string& effects, std::uint64_t seed,
                 bool heartbeat = false) {
  int to_child[2], from_child[2];
  EXPECT_EQ(pipe2(to_child, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(from_child, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::string seed_text = std::to_string(seed), flag = "--heartbeat";
  std::vector<char*> argv = {const_cast<char*>(AGENTRT_CRASH_CHILD), const_cast<char*>(db.c_str()),
                             const_cast<char*>(effects.c_str()), seed_text.data()};
  if (heartbeat) argv.push_back(flag.data());
  argv.push_back(nullptr);
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  signal(SIGPIPE, SIG_IGN);
  child.to = to_child[1];
  child.from = from_child[0];
  return child;
}

// Runs the child in lockstep and SIGKILLs it right after it printed line `kill_at`.
Killed RunAndKill(const std::string& db, const std::string& effects, std::uint64_t seed,
                  int kill_at) {
  Child child = StartChild(db, effects, seed);
  int to_child[2] = {-1, child.to}, from_child[2] = {child.from, -1};
  pid_t pid = child.pid;
  Killed killed;
  std::string line;
  char c;
  while (read(from_child[0], &c, 1) == 1) {
    if (c != '\n') {
      line += c;
      continue;
    }
    ++killed.lines_seen;
    killed.last_line = line;
    if (line == "done" || line == "event run.finished") killed.finished = true;
    if (killed.lines_seen == kill_at || line == "done") break;
    line.clear();
    EXPECT_EQ(write(to_child[1], "x", 1), 1);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  close(to_child[1]);
  close(from_child[0]);
  return killed;
}

class CrashSafetyTest : public ::testing::TestWithParam<int> {};

TEST_P(CrashSafetyTest, AKilledSideEffectWaitsForAnOperatorAndNeverRunsTwiceWithoutAGrant) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  fs::path dir = test_support::TestFolder();
  std::string db = (dir / "audit.db").string();
  std::string effects = (dir / "effects.txt").string();
  // Lines the child prints before "done": run.created and run.started; five events per tool
  // step, and two more around an append's effect; three for the closing complete step.
  int lines = 2 + 3;
  for (const Decision& d : crash::Script(seed)) {
    if (d.kind == "tool_call") lines += d.tool == "append" ? 7 : 5;
  }
  std::mt19937_64 random(seed);
  int kill_at = 3 + static_cast<int>(random() % static_cast<std::uint64_t>(lines - 2));
  Killed killed = RunAndKill(db, effects, seed, kill_at);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", killed after line " +
               std::to_string(killed.lines_seen) + " \"" + killed.last_line + "\"");
  std::vector<std::string> before = crash::Effects(effects);

  // Resume in this process, as a new owner, once the dead owner's lease has expired.
  world::ManualClock clock(absl::FromUnixSeconds(1'900'000'000));
  world::ManualClock lease_clock(absl::Now() + absl::Minutes(5));
  world::SeededEntropy entropy(seed);
  auto store = *records::OpenStore(db, clock);
  crash::AppendTool append(effects, [](std::string_view) {});
  crash::ReadTool read;
  crash::IndexedAgent agent(crash::Script(seed));
  auto policy = DefaultPolicy();
  DriverOptions options{&agent, policy.get(), {&append, &read}, "parent"};
  options.scheduler = &lease_clock;
  auto driver = *Driver::Create(*store, clock, entropy, options);
  // Whether the kill caught a side effect executing: its outcome is then unknown, and the
  // resume must pause for an operator — every time, so a regression that stopped pausing fails.
  bool side_effect_in_flight = false;
  if (absl::StatusOr<std::vector<Step>> steps = ReadSteps(*store, "crash-run"); steps.ok()) {
    for (const Step& s : *steps) {
      side_effect_in_flight |= s.status == StepStatus::kExecuting && s.decision.has_value() &&
                               s.decision->tool == "append";
    }
  }
  // A step's events commit a transaction at a time (its decision with its verdict, the last
  // one with the run's end), so the run may have ended before the child printed run.finished.
  absl::StatusOr<agentrt::Run> stored = ReadRun(*store, "crash-run");
  bool ended = stored.ok() &&
               (stored->status == RunStatus::kCompleted || stored->status == RunStatus::kFailed);
  absl::StatusOr<agentrt::Run> run = driver->Resume("crash-run");
  if (side_effect_in_flight) {
    ASSERT_OK(run);
    EXPECT_EQ(run->status, RunStatus::kWaitingForApproval) << "a side effect in flight must pause";
  } else if (run.ok()) {
    EXPECT_NE(run->status, RunStatus::kWaitingForApproval) << "nothing was in flight to pause for";
  }
  if (killed.finished || ended) {
    // The run had ended: nothing to resume.
    EXPECT_THAT(run.status().message(), ::testing::HasSubstr("cannot be resumed"));
  } else if (killed.lines_seen <= 2) {
    // Killed before the run existed or before its first event committed: nothing to resume.
    EXPECT_TRUE(!run.ok() || run->status != RunStatus::kRunning);
  } else {
    ASSERT_OK(run);
  }
  std::vector<std::string> after = crash::Effects(effects);
  // At most once per step, without any grant.
  std::set<std::string> distinct(after.begin(), after.end());
  EXPECT_EQ(distinct.size(), after.size());
  // Nothing that had happened was lost from the file, nothing was redone.
  ASSERT_GE(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);

  std::cout << "seed " << seed << ": killed after \"" << killed.last_line << "\", resumed to "
            << (run.ok() ? std::string(ToString(run->status)) : "refusal") << "\n";
  if (run.ok() && run->status == RunStatus::kWaitingForApproval) {
    std::vector<Approval> approvals = *ListApprovals(*store, "crash-run");
    ASSERT_FALSE(approvals.empty());
    const Approval& pending = approvals.back();
    EXPECT_EQ(pending.kind, "interrupted_side_effect");
    EXPECT_EQ(after.size(), before.size());  // paused before anything else ran
    std::vector<store::Event> events = *store->ListEvents("crash-run");
    bool interrupted = false;
    for (const store::Event& e : events) interrupted |= e.type == "step.interrupted";
    EXPECT_TRUE(interrupted);
    if (seed % 2 == 0) {
      // The operator rejects: the call is not run again.
      ASSERT_OK(Reject(*store, clock, "crash-run", pending.id, Decider{"ops", "no"}));
      EXPECT_EQ(crash::Effects(effects).size(), before.size());
      EXPECT_EQ(ReadRun(*store, "crash-run")->status, RunStatus::kCancelled);
    } else {
      // The operator approves: it runs again exactly once, on the same step, and the run
      // goes on to the end.
      ASSERT_OK(Approve(*store, clock, "crash-run", pending.id, Decider{"ops", "yes"}));
      absl::StatusOr<agentrt::Run> resumed = driver->Resume("crash-run");
      ASSERT_OK(resumed);
      std::vector<std::string> granted = crash::Effects(effects);
      std::map<std::string, int> counts;
      for (const std::string& s : granted) ++counts[s];
      EXPECT_EQ(counts[pending.step_id],
                before.size() == after.size() &&
                        std::count(before.begin(), before.end(), pending.step_id) == 1
                    ? 2
                    : 1);
      for (const auto& [step, n] : counts) {
        if (step != pending.step_id) {
          EXPECT_EQ(n, 1) << step;
        }
      }
    }
  }
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  store.reset();
}

INSTANTIATE_TEST_SUITE_P(Seeds, CrashSafetyTest, ::testing::Range(1, 61));

// Two real processes on one database: while the child is inside a side-effecting tool call for
// two whole lease TTLs, its heartbeat keeps the lease and this process cannot take the run over;
// when the child finishes, the run is complete and the chain intact. The lease time is the
// child's manual clock, moved by this test ('a'), so no real time is waited on.
TEST(LeaseAcrossProcessesTest, ALiveChildKeepsItsLeaseThroughALongToolCall) {
  std::uint64_t seed = 1;
  while (crash::Script(seed)[0].tool != "append") ++seed;
  fs::path dir = test_support::TestFolder();
  std::string db = (dir / "audit.db").string(), effects = (dir / "effects.txt").string();

  Child child = StartChild(db, effects, seed, /*heartbeat=*/true);
  FILE* from = ::fdopen(child.from, "r");
  auto next_line = [&] {
    char buffer[256];
    if (std::fgets(buffer, sizeof buffer, from) == nullptr) return std::string("(closed)");
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  };
  // Up to the append's effect, answering every wait.
  for (std::string line = next_line(); line != "before effect"; line = next_line()) {
    ASSERT_NE(line, "(closed)");
    ASSERT_NE(line, "done");
    ASSERT_EQ(::write(child.to, "x", 1), 1);
  }
  // Inside the tool call: two TTLs of lease time, each step renewed by the child's heartbeat.
  for (int i = 1; i <= 6; ++i) {
    ASSERT_EQ(::write(child.to, "a", 1), 1);
    ASSERT_EQ(next_line(), "renewed") << "advance " << i;
  }
  {
    // The rival's lease clock reads what the child's does now: 60 s after it started, when the
    // lease taken at the tool start (30 s) would have lapsed without the heartbeat.
    world::RealClock clock;
    world::ManualClock lease_clock(absl::FromUnixSeconds(2'000'000'000) + absl::Seconds(60));
    world::OsEntropy entropy;
    auto store = *records::OpenStore(db, clock);
    crash::AppendTool append(effects, [](std::string_view) {});
    crash::IndexedAgent agent(crash::Script(seed));
    auto policy = DefaultPolicy();
    DriverOptions options{&agent, policy.get(), {&append}, "rival"};
    options.scheduler = &lease_clock;
    auto rival = *Driver::Create(*store, clock, entropy, options);
    absl::Status takeover = rival->Resume("crash-run").status();
    EXPECT_EQ(takeover.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(takeover.message(), ::testing::HasSubstr("is leased by child/"));
  }
  // Let the child finish.
  for (std::string line = "";; line = next_line()) {
    if (line == "done" || line == "(closed)") {
      EXPECT_EQ(line, "done");
      break;
    }
    ASSERT_EQ(::write(child.to, "x", 1), 1);
  }
  ASSERT_EQ(::write(child.to, "x", 1), 1);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  ::close(child.to);
  std::fclose(from);
  world::RealClock clock;
  auto store = *records::OpenStore(db, clock);
  EXPECT_EQ(ReadRun(*store, "crash-run")->status, RunStatus::kCompleted);
  EXPECT_FALSE(store->VerifyEvents()->broken.has_value());
  std::vector<std::string> lines = crash::Effects(effects);
  std::vector<Decision> script = crash::Script(seed);
  EXPECT_EQ(lines.size(), static_cast<std::size_t>(
                              std::count_if(script.begin(), script.end(),
                                            [](const Decision& d) { return d.tool == "append"; })));
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), lines.size());
  store.reset();
}

}  // namespace
}  // namespace agentrt
