// The step loop, driven the way products drive it: a scripted agent, in-memory tools, a real
// SQLite store, a manual clock and seeded ids. Event sequences as docs/formats/events.md gives
// them.
#include "runtime/driver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/json/intake.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

class ScriptedAgent : public Agent {
 public:
  explicit ScriptedAgent(std::vector<Decision> script) : script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    inputs.push_back(input);
    if (next_ >= script_.size()) return absl::UnavailableError("the script ran out");
    return script_[next_++];
  }
  std::vector<StepInput> inputs;

 private:
  std::vector<Decision> script_;
  std::size_t next_ = 0;
};

class FuncTool : public Tool {
 public:
  using Fn = std::function<absl::StatusOr<ToolResult>(const ToolCall&)>;
  FuncTool(ToolSpec spec, Fn fn) : spec_(std::move(spec)), fn_(std::move(fn)) {}
  ToolSpec Spec() const override { return spec_; }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    calls.push_back(call);
    return fn_(call);
  }
  std::vector<ToolCall> calls;
  ToolSpec spec_;

 private:
  Fn fn_;
};

ToolSpec Spec(std::string name, SideEffect side_effect, bool terminal = false) {
  return ToolSpec{std::move(name),
                  "A test tool.",
                  R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"],
                      "additionalProperties":false})",
                  side_effect,
                  absl::Seconds(10),
                  terminal};
}

class DriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = *test_support::OpenTestStore(clock_);
    store_->AddObserver([this](const store::Event& e) { observed_.push_back(e.type); });
  }

  absl::StatusOr<agentrt::Run> RunScript(std::vector<Decision> script, Limits limits = {}) {
    agent_ = std::make_unique<ScriptedAgent>(std::move(script));
    DriverOptions options;
    options.agent = agent_.get();
    options.policy = policy_.get();
    for (auto& t : tools_) options.tools.push_back(t.get());
    options.scheduler = &lease_clock_;
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(*store_, clock_, entropy_, options);
    if (!driver.ok()) return driver.status();
    return (*driver)->StartWithId("run-1", "test the loop", limits);
  }

  FuncTool& AddTool(ToolSpec spec, FuncTool::Fn fn) {
    tools_.push_back(std::make_unique<FuncTool>(std::move(spec), std::move(fn)));
    return *tools_.back();
  }
  FuncTool& AddReadTool(std::string name = "read") {
    return AddTool(Spec(std::move(name), SideEffect::kReadOnly), [](const ToolCall& c) {
      return ToolResult{R"({"text":"hello"})", "read 5 bytes"};
    });
  }

  std::vector<std::string> Types() {
    std::vector<std::string> types;
    std::vector<store::Event> events = *store_->ListEvents("run-1");
    for (const store::Event& e : events) types.push_back(e.type);
    return types;
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{7};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  std::vector<std::unique_ptr<FuncTool>> tools_;
  std::unique_ptr<ScriptedAgent> agent_;
  std::vector<std::string> observed_;
};

TEST_F(DriverTest, ToolCallThenCompleteRecordsEverythingAndHandsToolsTheirIdentity) {
  FuncTool& read = AddReadTool();
  absl::StatusOr<agentrt::Run> run =
      RunScript({Call("read", R"({ "path" : "/etc/hosts" })"), Complete(R"({"answer": 1.0})")});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(run->reason, "goal_completed");
  EXPECT_EQ(run->result, R"({"answer":1})");
  EXPECT_EQ(run->step_count, 2);
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "step.policy", "step.tool_started", "step.tool_finished",
                                   "step.started", "step.decided", "run.finished"));
  EXPECT_EQ(observed_, Types());  // observers saw every committed event, in order
  ASSERT_EQ(read.calls.size(), 1u);
  EXPECT_EQ(read.calls[0].run_id, "run-1");
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(read.calls[0].step_id, steps[0].id);
  EXPECT_EQ(read.calls[0].args, R"({ "path" : "/etc/hosts" })");  // the agent's bytes
  EXPECT_EQ(steps[0].status, StepStatus::kDone);
  EXPECT_EQ(steps[0].observation->content, R"({"text":"hello"})");
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
  // The agent saw the first step's observation when deciding the second.
  ASSERT_EQ(agent_->inputs.size(), 2u);
  EXPECT_EQ(agent_->inputs[1].steps.Read(0)->observation->summary, "read 5 bytes");
  EXPECT_EQ(agent_->inputs[1].run.step_count, 2);
}

TEST_F(DriverTest, MalformedRequestIsRecordedVerbatimThenBecomesAnObservation) {
  FuncTool& read = AddReadTool();
  ASSERT_OK(RunScript({Call("read", R"({"path": 42})"), Complete()}));
  EXPECT_TRUE(read.calls.empty());
  std::vector<std::string> types = Types();
  EXPECT_THAT(std::vector<std::string>(types.begin() + 2, types.begin() + 5),
              ElementsAre("step.started", "step.decided", "step.failed"));
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(steps[0].decision->args, R"({"path":42})");
  EXPECT_EQ(steps[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(steps[0].observation->summary,
              HasSubstr("arguments do not match schema: /path: expected string, got number"));
  EXPECT_EQ(agent_->inputs[1].steps.Read(0)->observation->kind, ObservationKind::kInvalidDecision);
}

TEST_F(DriverTest, UnusableJsonArgumentsAreKeptOutOfBand) {
  AddReadTool();
  ASSERT_OK(RunScript({Call("read", R"({"path":"a","path":"b"})"), Complete()}));
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  EXPECT_THAT(events[3].payload_json,
              HasSubstr(R"("invalid_args":"{\"path\":\"a\",\"path\":\"b\"}")"));
  EXPECT_THAT(events[4].payload_json, HasSubstr("arguments are not usable JSON: json: duplicate"));
}

TEST_F(DriverTest, StepsReadBackHoldTheArgumentsTheAgentSent) {
  // A step read back from the store is the step the agent saw: unusable bytes come back from
  // where the recorder kept them (base64 for bytes that are not UTF-8), and a JSON string
  // stays JSON.
  AddReadTool();
  const std::string not_utf8 = "{\"path\":\"\xff\"}";
  ASSERT_OK(RunScript({Call("read", R"({"path":"a","path":"b"})"), Call("read", not_utf8),
                       Call("read", R"( "just text" )"), Complete()},
                      Limits{.max_consecutive_tool_failures = 5}));
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].decision->args, R"({"path":"a","path":"b"})");
  EXPECT_EQ(steps[1].decision->args, not_utf8);
  EXPECT_EQ(steps[2].decision->args, R"("just text")");
}

TEST_F(DriverTest, DestructiveRequestIsDeniedAsAnObservation) {
  FuncTool& rm = AddTool(Spec("delete", SideEffect::kDestructive), [](const ToolCall&) {
    return ToolResult{"{}", ""};
  });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("delete", R"({"path":"/"})"), Complete()});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_TRUE(rm.calls.empty());
  std::vector<std::string> types = Types();
  EXPECT_THAT(std::vector<std::string>(types.begin() + 2, types.begin() + 6),
              ElementsAre("step.started", "step.decided", "step.policy", "step.failed"));
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(steps[0].observation->summary, "denied: side effect destructive is deny by policy");
  // The step keeps the evaluation that denied it, as the agent's next input does.
  ASSERT_TRUE(steps[0].policy.has_value());
  EXPECT_EQ(steps[0].policy->outcome, PolicyOutcome::kDeny);
  ASSERT_TRUE(agent_->inputs[1].steps.Read(0)->policy.has_value());
  EXPECT_EQ(agent_->inputs[1].steps.Read(0)->policy->reason, steps[0].policy->reason);
}

TEST_F(DriverTest, RemoteMutationPausesWithAPendingApprovalBoundByHash) {
  FuncTool& post = AddTool(Spec("post", SideEffect::kRemoteMutation), [](const ToolCall&) {
    return ToolResult{"{}", ""};
  });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("post", R"({"path":"/x"})")});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kWaitingForApproval);
  EXPECT_TRUE(post.calls.empty());
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "step.policy", "approval.requested"));
  std::vector<store::SqlRow> approvals;
  ASSERT_OK(store_->Read([&](store::Transaction& tx) -> absl::Status {
    approvals = *test_support::PeekIn(tx, "the approvals' columns",
                                      "SELECT status, kind, hash, request_json FROM approvals");
    return absl::OkStatus();
  }));
  ASSERT_EQ(approvals.size(), 1u);
  EXPECT_EQ(approvals[0][0], "pending");
  EXPECT_EQ(approvals[0][1], "remote_mutation");
  EXPECT_THAT(approvals[0][2], ::testing::MatchesRegex("[0-9a-f]{64}"));
  EXPECT_THAT(approvals[0][3], HasSubstr(R"("args":{"path":"/x"})"));
  EXPECT_EQ((*ReadSteps(*store_, "run-1"))[0].status, StepStatus::kAwaitingApproval);
}

TEST_F(DriverTest, TerminalToolCompletesTheRunWithItsResult) {
  AddTool(Spec("finish", SideEffect::kReadOnly, /*terminal=*/true), [](const ToolCall&) {
    return ToolResult{R"({"done":true})", "finished"};
  });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("finish", R"({"path":"/"})")});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(run->reason_detail, "terminal tool finish");
  EXPECT_EQ(run->result, R"({"done":true})");
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "step.policy", "step.tool_started", "step.tool_finished",
                                   "run.finished"));
}

TEST_F(DriverTest, ToolAbortEndsTheRun) {
  AddTool(Spec("boom", SideEffect::kReadOnly),
          [](const ToolCall&) -> absl::StatusOr<ToolResult> { return AbortRun("disk full"); });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("boom", R"({"path":"/"})")});
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "tool_abort");
  EXPECT_EQ(run->reason_detail, "disk full");
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "step.policy", "step.tool_started", "step.tool_finished",
                                   "step.failed", "run.finished"));
}

TEST_F(DriverTest, ToolErrorsTimeoutsAndExceptionsAreObservations) {
  int call = 0;
  AddTool(Spec("flaky", SideEffect::kReadOnly), [&](const ToolCall&) -> absl::StatusOr<ToolResult> {
    switch (call++) {
      case 0:
        return absl::UnavailableError("connection refused");
      case 1:
        return absl::DeadlineExceededError("took too long");
      case 2:
        throw std::runtime_error("null pointer");
      case 3:
        // Words are not a kind: an error that merely reads like a panic is an error.
        return absl::InternalError("panic: not really");
      default:
        return ToolResult{"not json", ""};
    }
  });
  Limits limits;
  limits.max_consecutive_tool_failures = 10;
  limits.loop_threshold = 10;
  ASSERT_OK(RunScript({Call("flaky", R"({"path":"a"})"), Call("flaky", R"({"path":"b"})"),
                       Call("flaky", R"({"path":"c"})"), Call("flaky", R"({"path":"d"})"),
                       Call("flaky", R"({"path":"e"})"), Complete()},
                      limits));
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(steps[0].observation->summary, "flaky error: connection refused");
  EXPECT_EQ(steps[1].observation->summary, "flaky timeout: took too long");
  EXPECT_EQ(steps[2].observation->summary, "flaky panicked");
  EXPECT_THAT(steps[2].observation->content, HasSubstr(R"("error":"panic: null pointer")"));
  EXPECT_EQ(steps[3].observation->summary, "flaky error: panic: not really");
  EXPECT_THAT(steps[4].observation->summary,
              HasSubstr("flaky returned content is not usable JSON"));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(steps[i].observation->kind, ObservationKind::kToolError);
}

TEST_F(DriverTest, AnErrorAfterTheDeadlineIsATimeoutOnTheInjectedClock) {
  AddTool(Spec("slow", SideEffect::kReadOnly),
          [this](const ToolCall& call) -> absl::StatusOr<ToolResult> {
            EXPECT_FALSE(call.Expired());
            clock_.Advance(absl::Seconds(11));  // the spec's timeout is 10 s
            EXPECT_TRUE(call.Expired());
            return absl::CancelledError("gave up");
          });
  ASSERT_OK(RunScript({Call("slow", R"({"path":"a"})"), Complete()}));
  EXPECT_EQ((*ReadSteps(*store_, "run-1"))[0].observation->summary, "slow timeout: gave up");
}

TEST_F(DriverTest, PolicyAbortErrorAndUnknownOutcomeEndTheRunWithoutExecuting) {
  class FixedPolicy : public Policy {
   public:
    explicit FixedPolicy(absl::StatusOr<PolicyDecision> decision)
        : decision_(std::move(decision)) {}
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
      return decision_;
    }
    absl::StatusOr<PolicyDecision> decision_;
  };
  PolicyDecision abort;
  abort.outcome = PolicyOutcome::kAbort;
  abort.reason = "not on a Sunday";
  PolicyDecision unknown;
  unknown.outcome = PolicyOutcome::kUnknown;
  unknown.outcome_text = "maybe";
  struct Row {
    absl::StatusOr<PolicyDecision> decision;
    std::string reason;
    std::string detail;
    std::vector<std::string> tail;
  } rows[] = {
      {abort,
       "policy_abort",
       "not on a Sunday",
       {"step.decided", "step.policy", "step.failed", "run.finished"}},
      {absl::InternalError("rules file unreadable"),
       "internal_error",
       "policy: rules file unreadable",
       {"step.decided", "step.failed", "run.finished"}},
      {unknown,
       "internal_error",
       "unknown policy outcome \"maybe\"",
       {"step.decided", "step.policy", "step.failed", "run.finished"}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.reason + " " + row.detail);
    tools_.clear();
    FuncTool& read = AddReadTool();
    store_ = *test_support::OpenTestStore(clock_);
    policy_ = std::make_unique<FixedPolicy>(row.decision);
    absl::StatusOr<agentrt::Run> run = RunScript({Call("read", R"({"path":"a"})")});
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, row.reason);
    EXPECT_EQ(run->reason_detail, row.detail);
    EXPECT_TRUE(read.calls.empty());
    std::vector<std::string> types = Types();
    EXPECT_THAT(std::vector<std::string>(types.end() - row.tail.size(), types.end()),
                ElementsAreArray(row.tail));
  }
}

TEST_F(DriverTest, ConsecutiveFailuresEndTheRunAndASuccessResetsTheStreak) {
  AddReadTool();
  Limits limits;
  limits.max_consecutive_tool_failures = 2;
  // bad, ok, bad, bad -> the two trailing failures end it before a fifth step.
  absl::StatusOr<agentrt::Run> run = RunScript({Call("read", "{}"), Call("read", R"({"path":"a"})"),
                                                Call("read", "{}"), Call("read", "[]"), Complete()},
                                               limits);
  EXPECT_EQ(run->reason, "repeated_tool_failures");
  EXPECT_EQ(run->reason_detail, "2 consecutive failed steps");
  EXPECT_EQ(run->step_count, 4);
  std::vector<std::string> types = Types();
  EXPECT_THAT(std::vector<std::string>(types.end() - 2, types.end()),
              ElementsAre("limit.exceeded", "run.finished"));
}

TEST_F(DriverTest, StepLimitEndsTheRun) {
  AddReadTool();
  Limits limits;
  limits.max_steps = 2;
  absl::StatusOr<agentrt::Run> run = RunScript(
      {Call("read", R"({"path":"a"})"), Call("read", R"({"path":"b"})"), Complete()}, limits);
  EXPECT_EQ(run->reason, "limit_steps");
  EXPECT_EQ(run->reason_detail, "step limit 2 reached");
}

TEST_F(DriverTest, IdenticalCallAndResultIsALoopButChangingResultsAreProgress) {
  AddReadTool();
  absl::StatusOr<agentrt::Run> run =
      RunScript({Call("read", R"({"path":"a"})"), Call("read", R"({ "path":"a" })"),
                 Call("read", R"({"path":"a"})"), Complete()});
  EXPECT_EQ(run->reason, "loop_detected");
  EXPECT_EQ(run->reason_detail, "read produced the same observation 3 times in a row");
  std::vector<std::string> types = Types();
  EXPECT_THAT(std::vector<std::string>(types.end() - 2, types.end()),
              ElementsAre("loop.detected", "run.finished"));

  int n = 0;
  tools_.clear();
  AddTool(Spec("read", SideEffect::kReadOnly), [&](const ToolCall&) {
    return ToolResult{"{\"n\":" + std::to_string(n++) + "}", ""};
  });
  store_ = *test_support::OpenTestStore(clock_);
  absl::StatusOr<agentrt::Run> progressing =
      RunScript({Call("read", R"({"path":"a"})"), Call("read", R"({"path":"a"})"),
                 Call("read", R"({"path":"a"})"), Call("read", R"({"path":"a"})"), Complete()});
  EXPECT_EQ(progressing->reason, "goal_completed");
}

TEST_F(DriverTest, TimeLimitsUseTheInjectedClock) {
  AddTool(Spec("slow", SideEffect::kReadOnly), [this](const ToolCall&) {
    clock_.Advance(absl::Seconds(40));
    return ToolResult{"{}", ""};
  });
  Limits active;
  active.max_active_time = absl::Minutes(1);
  active.loop_threshold = 10;
  absl::StatusOr<agentrt::Run> run =
      RunScript({Call("slow", R"({"path":"a"})"), Call("slow", R"({"path":"b"})"),
                 Call("slow", R"({"path":"c"})")},
                active);
  EXPECT_EQ(run->reason, "limit_active_time");
  EXPECT_EQ(run->active_time, absl::Seconds(80));

  store_ = *test_support::OpenTestStore(clock_);
  Limits elapsed;
  elapsed.max_elapsed_time = absl::Seconds(30);
  run = RunScript({Call("slow", R"({"path":"a"})"), Complete()}, elapsed);
  EXPECT_EQ(run->reason, "limit_elapsed_time");
}

TEST_F(DriverTest, OperatorCancelDuringAToolEndsTheLoopAndTheOutcomeIsAppendedLate) {
  AddTool(Spec("cancelling", SideEffect::kReadOnly), [this](const ToolCall& call) {
    // Another writer (an operator's cancel) ends the run while the tool runs.
    EXPECT_OK(test_support::Tamper(*store_, "an operator's cancel",
                                   "UPDATE runs SET status = 'CANCELLED', "
                                   "reason = 'operator_cancelled' WHERE id = ?1",
                                   {std::string_view(call.run_id)}));
    return ToolResult{"{}", ""};
  });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("cancelling", R"({"path":"a"})"), Complete()});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCancelled);
  EXPECT_EQ(run->reason, "operator_cancelled");
  EXPECT_EQ(agent_->inputs.size(), 1u);  // nothing more was decided
  // The tool's outcome is not lost: it follows the cancellation as a late record.
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  EXPECT_EQ(events.back().type, "step.tool_finished");
  EXPECT_THAT(events.back().payload_json, HasSubstr(R"("late":true)"));
  EXPECT_THAT(events.back().payload_json, HasSubstr(R"("observation":{"content":{})"));
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
}

// Cancel needs no lease and releases the one a live loop holds (docs/architecture.md, "Leases and
// interruption"): the loop notices at its next write.
TEST_F(DriverTest, CancelDuringAToolReleasesTheLease) {
  RunLease during;
  AddTool(Spec("cancelled", SideEffect::kReadOnly), [&](const ToolCall& call) {
    EXPECT_EQ(ReadLease(*store_, call.run_id)->owner.empty(), false);  // the loop holds it
    EXPECT_OK(Cancel(*store_, clock_, call.run_id, Decider{"ops", "stop"}));
    during = *ReadLease(*store_, call.run_id);
    return ToolResult{"{}", ""};
  });
  absl::StatusOr<agentrt::Run> run = RunScript({Call("cancelled", R"({"path":"a"})"), Complete()});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCancelled);
  EXPECT_EQ(during.owner, "");
  EXPECT_EQ(during.expires_at, "");
}

// A loop that ends with an error while its run is still RUNNING releases its lease as it
// returns: a rival takes the run over at once, not one TTL later, and with nobody's lease to
// take over it writes no lease.taken_over.
TEST_F(DriverTest, AStartThatFailsReleasesItsLeaseForARivalAtOnce) {
  AddTool(Spec("break", SideEffect::kReadOnly), [this](const ToolCall&) {
    // The store refuses the step's next write, as a failing disk would.
    EXPECT_OK(test_support::PlantRefusal(*store_, "steps", "the disk said no"));
    return ToolResult{"{}", "done"};
  });
  absl::StatusOr<agentrt::Run> failed = RunScript({Call("break", R"({"path":"a"})"), Complete()});
  ASSERT_THAT(failed, Not(IsOk()));
  EXPECT_THAT(failed.status().message(), HasSubstr("the disk said no"));
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kRunning);
  EXPECT_EQ(ReadLease(*store_, "run-1")->owner, "");
  ASSERT_OK(test_support::RemoveRefusal(*store_, "steps"));
  // The lease clock has not moved: before the release, the rival was refused for a TTL.
  agent_ = std::make_unique<ScriptedAgent>(std::vector<Decision>{Complete()});
  DriverOptions options;
  options.agent = agent_.get();
  options.policy = policy_.get();
  for (auto& t : tools_) options.tools.push_back(t.get());
  options.scheduler = &lease_clock_;
  options.lease_owner = "rival";
  std::unique_ptr<Driver> rival = *Driver::Create(*store_, clock_, entropy_, options);
  absl::StatusOr<agentrt::Run> resumed = rival->Resume("run-1");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  std::vector<std::string> types = Types();
  EXPECT_THAT(types, ::testing::Not(::testing::Contains("lease.taken_over")));
  EXPECT_THAT(types, ::testing::Contains("step.interrupted"));
}

TEST_F(DriverTest, FailDecisionEndsTheRunAsGoalFailed) {
  Decision fail;
  fail.kind = "fail";
  fail.message = "the file does not exist";
  absl::StatusOr<agentrt::Run> run = RunScript({fail});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "goal_failed");
  EXPECT_EQ(run->reason_detail, "the file does not exist");
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "run.finished"));
  EXPECT_EQ((*ReadSteps(*store_, "run-1"))[0].status, StepStatus::kDone);
}

// A tool call longer than the lease keeps the lease: the heartbeat renews it every TTL/3, so
// another driver cannot take the run over from under a live loop. In the manual world the
// heartbeat beats when the lease clock is moved, on the thread that moves it: each 10 s step
// inside the tool renews the lease before Advance returns.
TEST_F(DriverTest, TheHeartbeatKeepsTheLeaseThroughAToolCallLongerThanTheTtl) {
  world::ManualClock lease_clock(absl::FromUnixSeconds(2'000'000'000));
  int renewals = 0;
  std::vector<std::string> expiries;
  absl::Status takeover;
  std::unique_ptr<Driver> rival;
  FuncTool& slow = AddTool(Spec("slow", SideEffect::kReadOnly), [&](const ToolCall&) {
    for (int i = 1; i <= 6; ++i) {  // two whole TTLs of 30 s, in steps of TTL/3
      lease_clock.Advance(absl::Seconds(10));
      EXPECT_EQ(renewals, i);
      expiries.push_back(ReadLease(*store_, "run-1")->expires_at);
    }
    takeover = rival->Resume("run-1").status();
    return ToolResult{"{}", "slow"};
  });
  agent_ = std::make_unique<ScriptedAgent>(
      std::vector<Decision>{Call("slow", R"({"path":"a"})"), Complete()});
  DriverOptions options;
  options.agent = agent_.get();
  options.policy = policy_.get();
  options.tools = {&slow};
  options.scheduler = &lease_clock;
  options.on_lease_renewed = [&] { ++renewals; };
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  DriverOptions rival_options = options;
  rival_options.on_lease_renewed = nullptr;
  rival = *Driver::Create(*store_, clock_, entropy_, rival_options);
  absl::StatusOr<agentrt::Run> run = driver->StartWithId("run-1", "slow", Limits{});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(renewals, 6);
  // Each renewal reads the lease clock at its own due time: the expiry moves 10 s a beat.
  // The clock starts at 03:33:20; the beat at +10 s writes +10 s + TTL.
  EXPECT_THAT(expiries,
              ElementsAre("2033-05-18T03:34:00.000000000Z", "2033-05-18T03:34:10.000000000Z",
                          "2033-05-18T03:34:20.000000000Z", "2033-05-18T03:34:30.000000000Z",
                          "2033-05-18T03:34:40.000000000Z", "2033-05-18T03:34:50.000000000Z"));
  EXPECT_THAT(takeover.message(), HasSubstr("is leased by"));
  EXPECT_EQ(lease_clock.pending_tasks(), 0u);  // the run ended: its heartbeat is gone
}

// When renewals could not keep the lease (the heartbeat's writes failed for a whole TTL), the
// loop starts no side effect: another owner may already be taking over.
TEST_F(DriverTest, ALapsedLeaseStartsNoTool) {
  world::ManualClock lease_clock(absl::FromUnixSeconds(2'000'000'000));
  FuncTool& read = AddReadTool();
  class LapsingAgent : public Agent {
   public:
    explicit LapsingAgent(store::Store& store) : store_(store) {}
    absl::StatusOr<Decision> Decide(const StepInput&) override {
      // The lease runs out while the agent decides, with no renewal in between.
      EXPECT_OK(test_support::Tamper(store_, "the lease run out",
                                     "UPDATE runs SET lease_expires_at = "
                                     "'2000-01-01T00:00:00.000000000Z'"));
      return Call("read", R"({"path":"a"})");
    }
    store::Store& store_;
  } agent(*store_);
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy_.get();
  options.tools = {&read};
  options.scheduler = &lease_clock;
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  absl::StatusOr<agentrt::Run> run = driver->StartWithId("run-1", "slow", Limits{});
  ASSERT_THAT(run, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("the lease expired")));
  EXPECT_TRUE(read.calls.empty());
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kRunning);  // for a takeover
}

TEST_F(DriverTest, AgentErrorEndsTheRun) {
  absl::StatusOr<agentrt::Run> run = RunScript({});
  EXPECT_EQ(run->reason, "agent_error");
  EXPECT_EQ(run->reason_detail, "the script ran out");
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.failed",
                                   "run.finished"));
}

TEST_F(DriverTest, InvalidDecisionsNameWhatIsWrong) {
  AddReadTool();
  Decision no_kind;
  Decision odd_origin = Complete();
  odd_origin.origin = "agent";
  Limits limits;
  limits.max_consecutive_tool_failures = 10;
  ASSERT_OK(
      RunScript({no_kind, Call("nope", "{}"), Call("", "{}"), odd_origin, Complete()}, limits));
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  EXPECT_EQ(steps[0].observation->summary, "invalid decision: decision has no kind");
  EXPECT_EQ(steps[1].observation->summary, "invalid decision: unknown tool \"nope\"");
  EXPECT_EQ(steps[2].observation->summary, "invalid decision: tool_call without a tool name");
  EXPECT_EQ(steps[3].observation->summary, "invalid decision: unknown decision origin \"agent\"");
}

TEST_F(DriverTest, RegistrationRefusesUnusableTools) {
  struct Row {
    ToolSpec spec;
    std::string error;
  } rows[] = {
      {ToolSpec{"", "", "{}", SideEffect::kReadOnly, absl::Seconds(1)}, "the name must be"},
      {ToolSpec{"bad name", "", "{}", SideEffect::kReadOnly, absl::Seconds(1)}, "the name must be"},
      {ToolSpec{"t", "", "", SideEffect::kReadOnly, absl::Seconds(1)}, "input schema is required"},
      {ToolSpec{"t", "", "{}", SideEffect::kReadOnly, absl::ZeroDuration()}, "timeout is required"},
      {ToolSpec{"t", "", R"({"$ref":"http://x"})", SideEffect::kReadOnly, absl::Seconds(1)},
       "input schema refused"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.error);
    tools_.clear();
    AddTool(row.spec, [](const ToolCall&) { return ToolResult{}; });
    EXPECT_THAT(RunScript({}).status().message(), HasSubstr(row.error));
  }
  tools_.clear();
  AddReadTool("same");
  AddReadTool("same");
  EXPECT_THAT(RunScript({}).status().message(), HasSubstr("duplicate tool \"same\""));
}

// One clock reading per recorded state change, in a fixed order: the counts per path are a
// contract (docs/architecture.md, "The engine"), so replays and simulations read the clock exactly
// as often as the recording did.
TEST_F(DriverTest, ClockReadingsPerPathAreStable) {
  FuncTool& read = AddReadTool();
  AddTool(Spec("delete", SideEffect::kDestructive), [](const ToolCall&) { return ToolResult{}; });
  AddTool(Spec("finish", SideEffect::kReadOnly, true),
          [](const ToolCall&) { return ToolResult{}; });
  AddTool(Spec("abort", SideEffect::kReadOnly),
          [](const ToolCall&) -> absl::StatusOr<ToolResult> { return AbortRun("stop"); });
  AddTool(Spec("post", SideEffect::kRemoteMutation), [](const ToolCall&) { return ToolResult{}; });
  Decision fail;
  fail.kind = "fail";
  struct Row {
    std::string path;
    std::vector<Decision> script;
    int readings;
  } rows[] = {
      {"agent error", {}, 4},
      {"fail", {fail}, 5},
      {"terminal tool", {Call("finish", R"({"path":"a"})")}, 6},
      {"tool abort", {Call("abort", R"({"path":"a"})")}, 6},
      {"read, deny, invalid, complete",
       {Call("read", R"({"path":"a"})"), Call("delete", R"({"path":"a"})"), Call("read", "{}"),
        Complete()},
       16},
      {"loop of identical reads",
       {Call("read", R"({"path":"a"})"), Call("read", R"({"path":"a"})"),
        Call("read", R"({"path":"a"})")},
       11},
      {"pause", {Call("post", R"({"path":"a"})")}, 5},
  };
  for (Row& row : rows) {
    SCOPED_TRACE(row.path);
    // Every reading a millisecond after the last, and counted.
    world::ManualClock counting(absl::FromUnixSeconds(1'800'000'000),
                                {.tick = absl::Milliseconds(1)});
    store_ = *test_support::OpenTestStore(clock_);
    agent_ = std::make_unique<ScriptedAgent>(row.script);
    DriverOptions options;
    options.agent = agent_.get();
    options.policy = policy_.get();
    for (auto& t : tools_) options.tools.push_back(t.get());
    options.scheduler = &lease_clock_;
    auto driver = *Driver::Create(*store_, counting, entropy_, options);
    Limits limits;
    limits.max_steps = 10;
    limits.max_consecutive_tool_failures = 5;
    limits.loop_threshold = 2;
    ASSERT_OK(driver->StartWithId("run-1", "count", limits));
    EXPECT_EQ(counting.readings(), row.readings);
  }
  EXPECT_FALSE(read.calls.empty());
}

// The database is untrusted input: integers rewritten as text read as 0, never a crash.
TEST_F(DriverTest, RewrittenIntegerColumnsDoNotCrashReaders) {
  if (test_support::OnTestServer()) {
    GTEST_SKIP() << "a server's BIGINT columns refuse text: there is nothing to misread";
  }
  AddReadTool();
  ASSERT_OK(RunScript({Call("read", R"({"path":"a"})"), Complete()}));
  ASSERT_OK(store_->Write([](store::Transaction& tx) -> absl::Status {
    for (const char* sql : {"UPDATE runs SET step_count = 'many', active_ms = 'x', "
                            "limits_json = '{\"max_steps\":99999999999999999999999}'",
                            "UPDATE steps SET idx = 'first' WHERE idx = 0"}) {
      if (absl::StatusOr<std::int64_t> n =
              test_support::TamperIn(tx, "unreadable run and step columns", sql);
          !n.ok())
        return n.status();
    }
    return absl::OkStatus();
  }));
  absl::StatusOr<agentrt::Run> run = ReadRun(*store_, "run-1");
  ASSERT_OK(run);
  EXPECT_EQ(run->step_count, 0);
  EXPECT_EQ(run->limits.max_steps, 0);
  EXPECT_OK(ReadSteps(*store_, "run-1"));
  EXPECT_OK(ReadStepsPage(*store_, "run-1", 10, 0));
}

TEST_F(DriverTest, StepPagesReadOnlyThePageAndReduceHugeColumns) {
  AddTool(Spec("big", SideEffect::kReadOnly), [](const ToolCall&) {
    return ToolResult{"{\"blob\":\"" + std::string(100'000, 'x') + "\"}", "a big result"};
  });
  Limits limits;
  limits.loop_threshold = 10;
  ASSERT_OK(RunScript({Call("big", R"({"path":"a"})"), Call("big", R"({"path":"b"})"),
                       Call("big", R"({"path":"c"})"), Complete()},
                      limits));
  absl::StatusOr<StepPage> page = ReadStepsPage(*store_, "run-1", 2, 1);
  ASSERT_OK(page);
  EXPECT_EQ(page->total, 4);
  ASSERT_EQ(page->steps.size(), 2u);
  EXPECT_EQ(page->steps[0].index, 1);
  EXPECT_EQ(page->steps[0].decision->tool, "big");
  EXPECT_EQ(page->steps[0].observation->summary, "a big result");
  EXPECT_TRUE(page->steps[0].observation->content.empty());
  EXPECT_THAT(page->steps[0].decode_error, HasSubstr("observation: "));
  EXPECT_THAT(page->steps[0].decode_error, HasSubstr("not read whole"));
  EXPECT_EQ(ReadStepsPage(*store_, "run-1", 0, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The whole persisted trace of one scripted run, byte for byte: payloads, timestamps, ids and
// hashes come only from the manual clock and seeded entropy, so any change to what the
// runtime records shows up here. Regenerate with AGENTRT_UPDATE_GOLDEN=1 and review the diff.
TEST_F(DriverTest, PersistedTraceMatchesTheGoldenFile) {
  AddReadTool();
  AddTool(Spec("delete", SideEffect::kDestructive), [](const ToolCall&) { return ToolResult{}; });
  ASSERT_OK(RunScript({Call("read", R"({"path":"/etc/hosts"})"), Call("read", R"({"path":7})"),
                       Call("delete", R"({"path":"/"})"), Complete(R"({"ok":true})")}));
  std::ostringstream trace;
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  for (const store::Event& e : events) {
    trace << e.seq << " " << e.at << " " << e.type << " step=" << e.step_id << " " << e.payload_json
          << " " << e.hash << "\n";
  }
  std::filesystem::path golden =
      std::filesystem::path(AGENTRT_SOURCE_DIR) / "tests/golden/driver_scripted_trace.txt";
  if (std::getenv("AGENTRT_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << trace.str();
  }
  std::ifstream in(golden, std::ios::binary);
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(trace.str(), expected.str());
}

}  // namespace
}  // namespace agentrt
