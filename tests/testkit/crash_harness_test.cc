// The crash-and-resume harness (docs/testkit.md): real children
// stopped dead at every crash point, resumed in a fresh driver after their lease expired, and
// the runtime's promises checked after each run.
#include "testkit/crash_harness.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

using ::agentrt::scripted::Call;

class CrashHarnessTest : public ::testing::Test {
 protected:
  // Read, write, then a payment that needs approval, then done. Later steps complete too, so
  // a run whose script moved on past an interrupted step still ends well.
  Scenario Product() {
    Scenario s;
    s.goal = "pay the invoice";
    s.tools = {read_.get(), write_.get(), pay_.get()};
    s.policy = &policy_;
    s.script = {Call("read_file", R"({"path":"/workspace/invoice"})"),
                Call("write_file", R"({"path":"/workspace/note","content":"paid"})"),
                Call("pay", R"({"amount":250,"currency":"EUR"})"),
                Decision{"complete"},
                Decision{"complete"},
                Decision{"complete"},
                Decision{"complete"}};
    return s;
  }

  static const CrashedRun* Find(const RunResult& result, std::string_view label) {
    for (const CrashedRun& r : result.runs) {
      if (r.label == label) return &r;
    }
    return nullptr;
  }

  std::unique_ptr<Tool> read_ = product::ReadFile();
  std::unique_ptr<Tool> write_ = product::WriteFile();
  std::unique_ptr<Tool> pay_ = product::Pay();
  product::WorkspacePolicy policy_;
};
using RunTest = CrashHarnessTest;
using CheckTest = CrashHarnessTest;

TEST_F(RunTest, EveryCrashPointOfAProductKeepsTheContract) {
  absl::StatusOr<RunResult> result = CrashAndResume(Product());
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  const CrashedRun& clean = result->runs[0];
  EXPECT_EQ(clean.label, "no crash");
  EXPECT_EQ(clean.status, RunStatus::kCompleted);
  EXPECT_EQ(clean.executions, 3);
  // Every point of the uncrashed run was crashed at, and recoveries crashed too.
  std::set<std::string> labels;
  for (const CrashedRun& r : result->runs) labels.insert(r.label);
  for (const char* label :
       {"after step.started #1", "after step.decided #4", "after step.tool_started #3",
        "after the tool's effect #2", "after step.tool_finished #1", "at a pause #1",
        "after run.resumed #1", "after allowed #2",
        "after the tool's effect #2, then after step.interrupted #1",
        "after the tool's effect #2, then after run.resumed #1"}) {
    EXPECT_THAT(labels, Contains(label));
  }
  EXPECT_GT(result->report.checked, 30);
}

TEST_F(RunTest, SideEffectLostToACrashRunsAgainOnlyWhenApproved) {
  RunOptions only_effects;
  only_effects.points = {CrashPoint::kAfterEffect};
  only_effects.crash_the_recovery = false;
  absl::StatusOr<RunResult> approved = CrashAndResume(Product(), only_effects);
  ASSERT_OK(approved);
  EXPECT_TRUE(approved->report.ok()) << approved->report.Text();
  // The write's effect was lost to the crash: the operator approved, it ran again, once.
  const CrashedRun* write = Find(*approved, "after the tool's effect #2");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->executions, 4);
  EXPECT_THAT(write->approvals,
              ElementsAre("interrupted_side_effect approved", "payment approved"));
  EXPECT_EQ(write->status, RunStatus::kCompleted);
  // The read's was lost too, but a read-only call is not asked about and not run again.
  const CrashedRun* read = Find(*approved, "after the tool's effect #1");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->executions, 3);  // the next step is the write: the script goes by steps
  EXPECT_THAT(read->approvals, ElementsAre("payment approved"));

  // The operator rejects instead: the write is not run again and the run is cancelled.
  Scenario rejecting = Product();
  rejecting.approve = [](const Approval& a) { return a.kind != "interrupted_side_effect"; };
  absl::StatusOr<RunResult> rejected = CrashAndResume(rejecting, only_effects);
  ASSERT_OK(rejected);
  EXPECT_TRUE(rejected->report.ok()) << rejected->report.Text();
  write = Find(*rejected, "after the tool's effect #2");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->executions, 2);
  EXPECT_EQ(write->status, RunStatus::kCancelled);
  EXPECT_EQ(write->reason, "approval_rejected");
}

TEST_F(RunTest, ApprovedRequestSurvivesACrashAfterResume) {
  RunOptions options;
  options.points = {CrashPoint::kAfterRunResumed};
  options.crash_the_recovery = false;
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  // The granted payment's resume committed its tool start, then the process died before the
  // call: the outcome is unknown, so the operator is asked again; the policy, asked again on
  // that grant, wants its own payment approval again; then it runs, once.
  const CrashedRun* run = Find(*result, "after run.resumed #1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->executions, 3);
  EXPECT_THAT(run->approvals, ElementsAre("payment approved", "interrupted_side_effect approved",
                                          "payment approved"));
  EXPECT_EQ(run->status, RunStatus::kCompleted);
}

TEST_F(RunTest, CrashAfterTakeoverStillWaitsForTheOperator) {
  RunOptions options;
  options.points = {CrashPoint::kAfterEffect, CrashPoint::kAfterStepInterrupted};
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  // The recovery took the lease over and marked the write interrupted, then died before
  // pausing: the next recovery still asks the operator, and the write runs once more.
  const CrashedRun* run =
      Find(*result, "after the tool's effect #2, then after step.interrupted #1");
  ASSERT_NE(run, nullptr);
  EXPECT_THAT(run->approvals, ElementsAre("interrupted_side_effect approved", "payment approved"));
  EXPECT_EQ(run->executions, 4);
  EXPECT_EQ(run->resumes, 4);  // two crash recoveries, two approvals
}

TEST_F(RunTest, RecordedStartWithoutTheToolRunsOnceWhenApproved) {
  RunOptions options;
  options.points = {CrashPoint::kAfterToolStarted};
  options.crash_the_recovery = false;
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  // The write's start was recorded, the tool never ran: approved, it runs exactly once.
  const CrashedRun* run = Find(*result, "after step.tool_started #2");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->executions, 3);
  EXPECT_THAT(run->approvals, ElementsAre("interrupted_side_effect approved", "payment approved"));
}

// (A step's decision commits with its verdict: with the tool start when allowed, so a crash
// after step.decided may leave a side effect in flight. See ADR 16.)
TEST_F(RunTest, InterruptionsThatNeedNoOperator) {
  RunOptions options;
  options.points = {CrashPoint::kAfterStepStarted, CrashPoint::kAfterToolFinished};
  options.crash_the_recovery = false;
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  ASSERT_GE(result->runs.size(), 8u);
  // A step interrupted while deciding, or after its tool finished, runs nothing again and
  // asks nobody: only the payment's own approval appears.
  for (const CrashedRun& run : result->runs) {
    SCOPED_TRACE(run.label);
    EXPECT_THAT(run.approvals, Not(Contains(HasSubstr("interrupted_side_effect"))));
    EXPECT_LE(run.executions, 3);
  }
}

TEST_F(RunTest, ResumesCountsTheApprovalAndTheCrash) {
  RunOptions options;
  options.points = {CrashPoint::kAfterStepStarted};
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_EQ(result->runs[0].resumes, 1);  // the payment's approval
  const CrashedRun* run = Find(*result, "after step.started #1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->resumes, 2);  // the crash's recovery and the approval
}

TEST_F(RunTest, DriverStopsAfterAllowed) {
  RunOptions options;
  options.points = {CrashPoint::kAfterAllowed};
  options.crash_the_recovery = false;
  absl::StatusOr<RunResult> result = CrashAndResume(Product(), options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  // Stopped between the policy's allow and the tool start: the read never ran, nothing asks.
  const CrashedRun* run = Find(*result, "after allowed #1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->executions, 2);
  EXPECT_THAT(run->approvals, ElementsAre("payment approved"));
}

TEST_F(RunTest, ANondeterministicAgentIsReported) {
  // An agent that decides differently in every process: the planned crash points of the
  // uncrashed run are not where the crashed runs go.
  Scenario s = Product();
  auto counter = std::make_shared<int>(0);
  s.script.clear();
  s.agent = [counter, base = Product().script]() -> std::unique_ptr<Agent> {
    class Drifting : public Agent {
     public:
      Drifting(std::vector<Decision> script, int shift)
          : script_(std::move(script)), shift_(shift) {}
      absl::StatusOr<Decision> Decide(const StepInput& input) override {
        if (shift_ > 0 && input.steps.empty()) return Decision{"complete"};
        return script_[std::min(input.steps.size(), script_.size() - 1)];
      }

     private:
      std::vector<Decision> script_;
      int shift_;
    };
    return std::make_unique<Drifting>(base, (*counter)++);
  };
  RunOptions options;
  options.points = {CrashPoint::kAfterToolFinished};
  absl::StatusOr<RunResult> result = CrashAndResume(s, options);
  ASSERT_OK(result);
  EXPECT_FALSE(result->report.ok());
  EXPECT_THAT(result->report.failures,
              Contains(ElementsAre("after step.tool_finished #1", "every crash point is reached",
                                   HasSubstr("process 0 never reached after step.tool_finished "
                                             "#1: it exited with code 0"))));
}

// The product's own loop over a gate: each step it asks its script, proposes, and executes
// what is allowed; it stops when the run pauses or ends.
absl::Status ProductLoop(GateLoop& gate, const std::vector<Decision>& script) {
  for (;;) {
    absl::StatusOr<bool> open = gate.Step();
    if (!open.ok()) return open.status();
    if (!*open) return absl::OkStatus();
    StepInput input = gate.Input();
    const Decision& d = script[std::min(input.steps.size(), script.size() - 1)];
    absl::StatusOr<GateVerdict> verdict = gate.Propose(d);
    if (!verdict.ok()) return verdict.status();
    switch (verdict->outcome) {
      case GateVerdict::Outcome::kAllowed:
        if (absl::Status s = gate.Execute().status(); !s.ok()) return s;
        break;
      case GateVerdict::Outcome::kDenied:
      case GateVerdict::Outcome::kOpen:
        break;
      case GateVerdict::Outcome::kPending:
      case GateVerdict::Outcome::kEnded:
        return absl::OkStatus();
    }
  }
}

TEST_F(RunTest, GateLoopKeepsTheContractAtEveryCrash) {
  Scenario s = Product();
  std::vector<Decision> script = s.script;
  s.script.clear();
  s.loop = [script](GateLoop& gate) { return ProductLoop(gate, script); };
  absl::StatusOr<RunResult> result = CrashAndResume(s);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  EXPECT_EQ(result->runs[0].status, RunStatus::kCompleted);
  EXPECT_EQ(result->runs[0].executions, 3);
  EXPECT_EQ(result->runs[0].resumes, 1);  // the payment's Attach
  std::set<std::string> labels;
  for (const CrashedRun& r : result->runs) labels.insert(r.label);
  for (const char* label : {"after allowed #1", "after allowed #2", "after attach allowed #1",
                            "after the tool's effect #3", "at a pause #1",
                            "after the tool's effect #2, then after step.interrupted #1"}) {
    EXPECT_THAT(labels, Contains(label));
  }
}

TEST_F(RunTest, GateLoopAbandonedAfterAttachRunsTheGrantOnce) {
  Scenario s = Product();
  std::vector<Decision> script = s.script;
  s.script.clear();
  s.loop = [script](GateLoop& gate) { return ProductLoop(gate, script); };
  RunOptions options;
  options.points = {CrashPoint::kAfterAttachAllowed};
  absl::StatusOr<RunResult> result = CrashAndResume(s, options);
  ASSERT_OK(result);
  EXPECT_TRUE(result->report.ok()) << result->report.Text();
  // The granted payment was handed to the loop and the process died before Execute: the run
  // still waits with its grant, and the next Attach runs it, once, with no new question.
  const CrashedRun* run = Find(*result, "after attach allowed #1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->executions, 3);
  EXPECT_THAT(run->approvals, ElementsAre("payment approved"));
  EXPECT_EQ(run->status, RunStatus::kCompleted);
}

TEST_F(RunTest, BrokenGateLoopsAreReported) {
  // A loop that never executes what it was allowed, and one that gives up with an error.
  Scenario forgetful = Product();
  std::vector<Decision> script = forgetful.script;
  forgetful.script.clear();
  forgetful.loop = [script](GateLoop& gate) -> absl::Status {
    if (absl::StatusOr<bool> open = gate.Step(); !open.ok() || !*open) return open.status();
    return gate.Propose(script[0]).status();  // allowed, never executed
  };
  RunOptions none;
  none.points = {CrashPoint::kAfterAttachAllowed};  // the loop never gets there
  absl::StatusOr<RunResult> result = CrashAndResume(forgetful, none);
  ASSERT_OK(result);
  EXPECT_FALSE(result->report.ok());
  EXPECT_THAT(result->report.failures,
              Contains(ElementsAre("no crash", "no step or lease left in flight",
                                   "the run was left RUNNING")));
  EXPECT_THAT(result->report.failures,
              Contains(ElementsAre("no crash", "no step or lease left in flight",
                                   "step 0 (read_file) was left deciding")));

  Scenario failing = Product();
  failing.script.clear();
  failing.loop = [](GateLoop&) { return absl::UnavailableError("the loop's queue is down"); };
  result = CrashAndResume(failing, none);
  ASSERT_OK(result);
  EXPECT_THAT(result->report.failures,
              Contains(ElementsAre("no crash", "the run is driven to its end",
                                   "process 0: the loop's queue is down")));
}

// A run left as a crash leaves it, with more broken on top: every broken invariant is listed.
TEST_F(CheckTest, ReportsEveryBrokenInvariant) {
  std::filesystem::path dir = test_support::TestFolder();
  std::string db = (dir / "audit.db").string();
  // A child whose write tool kills its process mid-call: the run stays RUNNING with the step
  // executing, its start unfinished and the lease held.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
    world::SeededEntropy entropy(1);
    auto store = records::OpenStore(db, clock);
    class Dying : public Tool {
     public:
      ToolSpec Spec() const override {
        return ToolSpec{"write_file",          "Dies.",
                        product::kWriteSchema, SideEffect::kLocalMutation,
                        absl::Seconds(5),      false};
      }
      absl::StatusOr<ToolResult> Call(const ToolCall&) override { ::_exit(0); }
    } dying;
    class Once : public Agent {
     public:
      absl::StatusOr<Decision> Decide(const StepInput&) override {
        return Call("write_file", R"({"path":"/workspace/a","content":"x"})");
      }
    } agent;
    product::WorkspacePolicy policy;
    DriverOptions options{&agent, &policy, {&dying}, "child"};
    options.scheduler = &clock;
    auto driver = Driver::Create(**store, clock, entropy, options);
    (void)(*driver)->StartWithId("broken", "break things", Limits{});
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto store = *records::OpenStore(db, clock);
  std::vector<Step> steps = *ReadSteps(*store, "broken");
  ASSERT_EQ(steps.size(), 1u);
  // On top: the tool is said to have run three times, and an event was edited.
  ASSERT_OK(test_support::Tamper(*store, "run.created edited",
                                 "UPDATE events SET payload_json = '{\"goal\":\"edited\"}' "
                                 "WHERE seq = 1"));
  absl::StatusOr<Report> report =
      CheckInvariants(*store, "broken", {steps[0].id, steps[0].id, steps[0].id});
  ASSERT_OK(report);
  std::vector<std::string> invariants;
  for (const auto& row : report->failures) invariants.push_back(row[0]);
  EXPECT_THAT(invariants, Contains("nothing re-executes on its own"));
  EXPECT_THAT(invariants, Contains("every execution's start is recorded first"));
  EXPECT_THAT(invariants, Contains("every tool start is finished or interrupted"));
  EXPECT_THAT(invariants, Contains("no step or lease left in flight"));
  EXPECT_THAT(invariants, Contains("the event chain is intact"));
  std::string text = report->Text();
  EXPECT_THAT(text, HasSubstr("step 0 (write_file) ran 3 times with 0 operator grant(s)"));
  EXPECT_THAT(text, HasSubstr("the run was left RUNNING"));
  EXPECT_THAT(text, HasSubstr("step 0 (write_file) was left executing"));
  EXPECT_THAT(text, HasSubstr("event 1: "));
  store.reset();
}

}  // namespace
}  // namespace agentrt::testkit
