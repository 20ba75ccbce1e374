// A caller cancels a run in progress (runtime/cancellation.h): the call returns promptly with
// absl::Cancelled, work already done is recorded, a call whose outcome is unknown is left for
// an operator as after a crash, the run stays RUNNING with its lease released, and a Resume
// goes on from there.
#include "runtime/cancellation.h"

#include <thread>

#include "absl/synchronization/notification.h"
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
#include "tests/runtime/fn_tool.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

using Tool = testing::FnTool;

class CancellationTest : public ::testing::Test {
 protected:
  std::unique_ptr<Driver> NewDriver(Agent* agent, std::vector<agentrt::Tool*> tools,
                                    std::string owner = "first") {
    DriverOptions options;
    options.agent = agent;
    options.policy = policy_.get();
    options.tools = std::move(tools);
    options.scheduler = &lease_clock_;
    options.lease_owner = std::move(owner);
    return *Driver::Create(*store_, clock_, entropy_, options);
  }
  // The run's one step is still deciding, with its decision (a call of `tool`) recorded.
  void ExpectOneStepDecidingOn(const std::string& tool) {
    std::vector<Step> steps = *ReadSteps(*store_, "r");
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].status, StepStatus::kDeciding);
    ASSERT_TRUE(steps[0].decision.has_value());
    EXPECT_EQ(steps[0].decision->tool, tool);
    EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided"));
  }
  std::vector<std::string> Types() {
    std::vector<std::string> types;
    std::vector<store::Event> events = *store_->ListEvents("r");
    for (const store::Event& e : events) types.push_back(e.type);
    return types;
  }

  world::ManualClock clock_{kStart};
  world::ManualClock lease_clock_{kStart};
  world::SeededEntropy entropy_{4};
  std::unique_ptr<store::Store> store_ = *test_support::OpenTestStore(clock_);
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  Cancellation cancel_;
};

TEST_F(CancellationTest, ACancelledStartStopsBeforeItsFirstStepAndResumeGoesOn) {
  Tool read("read", SideEffect::kReadOnly, [](const ToolCall&) { return ToolResult{}; });
  ScriptedAgent agent({Call("read", "{}"), Complete()});
  cancel_.Cancel();
  absl::StatusOr<agentrt::Run> run =
      NewDriver(&agent, {&read})->StartWithId("r", "stopped at once", Limits{}, &cancel_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(run.status().message(), HasSubstr("run r: cancelled by its caller"));
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kRunning);
  EXPECT_EQ(ReadRun(*store_, "r")->step_count, 0);
  EXPECT_EQ(ReadLease(*store_, "r")->owner, "");  // another owner may go on at once
  ScriptedAgent again({Call("read", "{}"), Complete()});
  absl::StatusOr<agentrt::Run> resumed = NewDriver(&again, {&read}, "second")->Resume("r");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
}

TEST_F(CancellationTest, ASideEffectStoppedWithoutAnOutcomeWaitsForAnOperator) {
  Tool pay("pay", SideEffect::kLocalMutation, [this](const ToolCall& call) {
    cancel_.Cancel();  // the caller gives up while the tool runs
    EXPECT_TRUE(call.Cancelled());
    return absl::StatusOr<ToolResult>(absl::CancelledError("stopped halfway"));
  });
  ScriptedAgent agent({Call("pay", "{}"), Complete()});
  absl::StatusOr<agentrt::Run> run =
      NewDriver(&agent, {&pay})->StartWithId("r", "pay", Limits{}, &cancel_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  std::vector<Step> steps = *ReadSteps(*store_, "r");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].status, StepStatus::kInterrupted);
  EXPECT_EQ(steps[0].observation->kind, ObservationKind::kInterrupted);
  EXPECT_THAT(steps[0].observation->content, HasSubstr(R"("failure":"cancelled")"));
  EXPECT_EQ(steps[0].observation->summary, "pay was cancelled; its outcome is unknown");
  EXPECT_THAT(Types(), ElementsAre("run.created", "run.started", "step.started", "step.decided",
                                   "step.policy", "step.tool_started", "step.tool_finished",
                                   "step.interrupted"));
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kRunning);
  EXPECT_EQ(ReadLease(*store_, "r")->owner, "");
  // Resumed, the call whose outcome is unknown is not run again: an operator decides.
  ScriptedAgent again({Complete()});
  absl::StatusOr<agentrt::Run> resumed = NewDriver(&again, {&pay}, "second")->Resume("r");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kWaitingForApproval);
  EXPECT_EQ(PendingApproval(*store_, "r")->kind, kInterruptedSideEffectKind);
  EXPECT_EQ(pay.calls, 1);
}

TEST_F(CancellationTest, AReadOnlyCallStoppedWithoutAnOutcomeIsSimplyDoneAgainLater) {
  Tool read("read", SideEffect::kReadOnly, [this](const ToolCall& call) {
    if (!cancel_.cancelled()) {
      cancel_.Cancel();
      return absl::StatusOr<ToolResult>(absl::CancelledError("stopped"));
    }
    return absl::StatusOr<ToolResult>(ToolResult{"{}", "read"});
  });
  ScriptedAgent agent({Call("read", "{}"), Complete()});
  EXPECT_EQ(
      NewDriver(&agent, {&read})->StartWithId("r", "read", Limits{}, &cancel_).status().code(),
      absl::StatusCode::kCancelled);
  // The agent decides by what it sees: the interrupted read, then it reads again and completes.
  ScriptedAgent again({Call("read", "{}"), Complete()});
  absl::StatusOr<agentrt::Run> resumed = NewDriver(&again, {&read}, "second")->Resume("r");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  EXPECT_EQ(read.calls, 2);
}

TEST_F(CancellationTest, AToolThatFinishesHasItsOutcomeRecordedAndNoStepFollows) {
  Tool pay("pay", SideEffect::kLocalMutation, [this](const ToolCall&) {
    cancel_.Cancel();
    return absl::StatusOr<ToolResult>(ToolResult{R"({"paid":true})", "paid"});
  });
  ScriptedAgent agent({Call("pay", "{}"), Call("pay", "{}"), Complete()});
  absl::StatusOr<agentrt::Run> run =
      NewDriver(&agent, {&pay})->StartWithId("r", "pay", Limits{}, &cancel_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  std::vector<Step> steps = *ReadSteps(*store_, "r");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].status, StepStatus::kDone);
  EXPECT_EQ(steps[0].observation->content, R"({"paid":true})");
  EXPECT_EQ(pay.calls, 1);
}

TEST_F(CancellationTest, AnAgentStoppedByTheCancellationFailsNothing) {
  class Stopping final : public Agent {
   public:
    absl::StatusOr<Decision> Decide(const StepInput& input) override {
      EXPECT_NE(input.cancellation, nullptr);
      const_cast<Cancellation*>(input.cancellation)->Cancel();
      return absl::CancelledError("the caller is gone");
    }
  } agent;
  Tool read("read", SideEffect::kReadOnly, [](const ToolCall&) { return ToolResult{}; });
  absl::StatusOr<agentrt::Run> run =
      NewDriver(&agent, {&read})->StartWithId("r", "decide", Limits{}, &cancel_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kRunning);  // not agent_error
  EXPECT_EQ((*ReadSteps(*store_, "r"))[0].status, StepStatus::kDeciding);
  ScriptedAgent again({Complete()});
  absl::StatusOr<agentrt::Run> resumed = NewDriver(&again, {&read}, "second")->Resume("r");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  EXPECT_THAT(Types(), Contains("step.interrupted"));
}

// A model whose every answer is a transient failure; its caller waits an hour to retry.
class Overloaded final : public Model {
 public:
  std::string Name() const override { return "overloaded"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
    ++calls;
    return TransientError("try again later");
  }
  int calls = 0;
};

// A manual clock that says when a wait has begun (the backoff), so the test cancels during it.
class WaitWatchingClock final : public world::ClockWrapper {
 public:
  WaitWatchingClock() : ClockWrapper(clock_) {}  // binds the member, used only once it is built
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override {
    if (!waiting.HasBeenNotified()) waiting.Notify();
    return ClockWrapper::WaitUntil(done, deadline);
  }
  mutable absl::Notification waiting;

 private:
  world::ManualClock clock_{kStart};  // blocks: only a move or a notification ends a wait
};

TEST_F(CancellationTest, ABackoffEndsAtOnceAndTheDispatchedCallStaysRecorded) {
  WaitWatchingClock clock;
  Overloaded model;
  class Asking final : public Agent {
   public:
    absl::StatusOr<Decision> Decide(const StepInput& input) override {
      absl::StatusOr<ModelResponse> r = input.model->Generate(ModelRequest{});
      if (!r.ok()) return r.status();
      return Complete();
    }
  } agent;
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy_.get();
  options.scheduler = &lease_clock_;
  options.model.model = &model;
  options.model.prices = Free({"overloaded"});
  options.model.max_retries = 3;
  options.model.backoff = absl::Hours(1);
  std::unique_ptr<store::Store> store = *test_support::OpenTestStore(clock);
  std::unique_ptr<Driver> driver = *Driver::Create(*store, clock, entropy_, options);
  std::thread caller([&] {
    clock.waiting.WaitForNotification();  // the driver waits out its first backoff
    cancel_.Cancel();
  });
  absl::StatusOr<agentrt::Run> run = driver->StartWithId("r", "ask", Limits{}, &cancel_);
  caller.join();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(model.calls, 1);  // no attempt after the cancellation
  std::vector<std::string> types;
  std::vector<store::Event> events = *store->ListEvents("r");
  for (const store::Event& e : events) types.push_back(e.type);
  EXPECT_THAT(types, Contains("model.dispatched"));
  EXPECT_THAT(types, Contains("model.failed"));
  EXPECT_EQ(ReadRun(*store, "r")->model_calls, 1);
  EXPECT_EQ(ReadRun(*store, "r")->status, RunStatus::kRunning);
}

TEST_F(CancellationTest, AGateSessionRefusesToStartAToolOnceCancelled) {
  Tool pay("pay", SideEffect::kLocalMutation, [](const ToolCall&) { return ToolResult{}; });
  std::unique_ptr<Driver> gate = NewDriver(nullptr, {&pay});
  std::unique_ptr<GateSession> session = *gate->Begin("r", "gate", Limits{}, &cancel_);
  ASSERT_TRUE(*session->Step());
  EXPECT_EQ(session->Propose(Call("pay", "{}"))->outcome, GateVerdict::Outcome::kAllowed);
  cancel_.Cancel();
  EXPECT_EQ(session->Execute().status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(pay.calls, 0);
  EXPECT_EQ(session->Step().status().code(), absl::StatusCode::kCancelled);
  // The step keeps its decision, still deciding (it commits on its own: nothing else does).
  ExpectOneStepDecidingOn("pay");
}

// The driver's own loop: a caller cancelling while the agent hands back its decision stops
// before the tool, and the step keeps that decision.
TEST_F(CancellationTest, ACallCancelledBeforeItsToolKeepsItsDecision) {
  class DecidesThenCancels final : public Agent {
   public:
    absl::StatusOr<Decision> Decide(const StepInput& input) override {
      const_cast<Cancellation*>(input.cancellation)->Cancel();
      return Call("pay", "{}");
    }
  } agent;
  Tool pay("pay", SideEffect::kLocalMutation, [](const ToolCall&) { return ToolResult{}; });
  absl::StatusOr<agentrt::Run> run =
      NewDriver(&agent, {&pay})->StartWithId("r", "pay", Limits{}, &cancel_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(pay.calls, 0);
  ExpectOneStepDecidingOn("pay");
}

TEST_F(CancellationTest, ACancelledResumeOfAGrantLeavesTheGrantForTheNextOne) {
  Tool post("post", SideEffect::kRemoteMutation, [](const ToolCall&) { return ToolResult{}; });
  ScriptedAgent agent({Call("post", "{}"), Complete()});
  ASSERT_EQ(NewDriver(&agent, {&post})->StartWithId("r", "post", Limits{})->status,
            RunStatus::kWaitingForApproval);
  ASSERT_OK(Approve(*store_, clock_, "r", PendingApproval(*store_, "r")->id, Decider{"ops", ""}));
  cancel_.Cancel();
  ScriptedAgent again({Complete()});
  EXPECT_EQ(NewDriver(&again, {&post}, "second")->Resume("r", &cancel_).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(post.calls, 0);
  EXPECT_EQ(ReadRun(*store_, "r")->status, RunStatus::kWaitingForApproval);
  absl::StatusOr<agentrt::Run> resumed = NewDriver(&again, {&post}, "third")->Resume("r");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  EXPECT_EQ(post.calls, 1);
}

}  // namespace
}  // namespace agentrt
