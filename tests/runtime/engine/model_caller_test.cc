// Model accounting (docs/architecture.md, "The model and its accounting"), through the driver as
// agents meet it: a real SQLite file, a clock that jumps over waits (so backoff is observed, never
// slept), seeded ids.
#include "runtime/engine/model_caller.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <limits>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/json/intake.h"
#include "runtime/reasons.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"

namespace agentrt {
namespace {

// A model answering from a script of results; each call takes `latency` of clock time.
class ScriptModel final : public Model {
 public:
  ScriptModel(world::ManualClock& clock, std::vector<absl::StatusOr<ModelResponse>> script)
      : clock_(clock), script_(std::move(script)) {}
  std::string Name() const override { return "test-model"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request,
                                         absl::Time deadline) override {
    requests.push_back(request);
    deadlines.push_back(deadline);
    clock_.Advance(absl::Milliseconds(250));
    if (next_ >= script_.size()) return absl::InternalError("script ran out");
    return script_[next_++];
  }
  std::vector<ModelRequest> requests;
  std::vector<absl::Time> deadlines;

 private:
  world::ManualClock& clock_;
  std::vector<absl::StatusOr<ModelResponse>> script_;
  std::size_t next_ = 0;
};

ModelResponse Reply(std::int64_t in, std::int64_t out, std::int64_t cached = 0) {
  ModelResponse r;
  r.text = "done";
  r.stop_reason = "end_turn";
  r.usage = Usage{in, out, cached};
  return r;
}

ModelRequest Request(std::int64_t cap = 100) {
  ModelRequest r;
  r.messages.push_back(Message{"user", {ContentBlock{.type = "text", .text = "hello"}}});
  r.max_output_tokens = cap;
  return r;
}

// An agent that makes `calls` model calls per step, then completes; a model error ends the run
// as the agent passes it on.
class CallingAgent final : public Agent {
 public:
  explicit CallingAgent(int calls, ModelRequest request = Request())
      : calls_(calls), request_(std::move(request)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    if (input.model == nullptr) return absl::FailedPreconditionError("no model");
    for (int i = 0; i < calls_; ++i) {
      absl::StatusOr<ModelResponse> r = input.model->Generate(request_);
      if (!r.ok()) {
        errors.push_back(r.status());
        return r.status();
      }
    }
    Decision d;
    d.kind = "complete";
    return d;
  }
  std::vector<absl::Status> errors;

 private:
  int calls_;
  ModelRequest request_;
};

// How ModelCallerTest::Play sets a run up: the step makes `calls` model calls of `request`.
struct Story {
  int calls = 1;
  ModelRequest request = Request();
  ModelConfig config;
  Limits limits;
};

class ModelCallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    auto store = records::OpenStore((dir_ / "runs.db").string(), clock_);
    ASSERT_OK(store);
    store_ = *std::move(store);
  }

  // Driver options: `agent` over `model` with this fixture's policy and lease clock.
  DriverOptions Options(Agent& agent, Model& model, ModelConfig config = {}) {
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy_.get();
    options.scheduler = &lease_clock_;
    options.model = std::move(config);
    options.model.model = &model;
    return options;
  }

  absl::StatusOr<agentrt::Run> Start(Agent& agent, Model& model, ModelConfig config,
                                     const Limits& limits = {}) {
    auto driver = Driver::Create(*store_, clock_, entropy_, Options(agent, model, config));
    if (!driver.ok()) return driver.status();
    driver_ = *std::move(driver);
    return driver_->Start("answer with the model", limits);
  }

  // Runs one step against a model answering `script`; model_ and agent_ stay for the test to
  // look at.
  absl::StatusOr<agentrt::Run> Play(std::vector<absl::StatusOr<ModelResponse>> script,
                                    Story story = {}) {
    model_ = std::make_unique<ScriptModel>(clock_, std::move(script));
    agent_ = std::make_unique<CallingAgent>(story.calls, story.request);
    return Start(*agent_, *model_, story.config, story.limits);
  }

  static Story Retries(int n) {
    Story story;
    story.config.max_retries = n;
    return story;
  }

  std::vector<store::SqlRow> Rows(std::string_view sql) {
    std::vector<store::SqlRow> rows;
    EXPECT_OK(store_->Read([&](store::Transaction& tx) -> absl::Status {
      auto r = test_support::PeekIn(tx, "model call rows", sql);
      if (!r.ok()) return r.status();
      rows = *std::move(r);
      return absl::OkStatus();
    }));
    return rows;
  }

  std::vector<std::string> ModelEvents() {
    std::vector<std::string> types;
    auto events = store_->ListEvents("");
    EXPECT_OK(events);
    for (const store::Event& e : *events) {
      if (e.type.starts_with("model.") || e.type == "limit.exceeded") types.push_back(e.type);
    }
    return types;
  }

  std::filesystem::path dir_;
  // Waits end at once by moving the clock to their deadline; each jump is kept.
  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000),
                            {.waits = world::ManualClock::Waits::kJump}};
  // Leases are judged on a clock of their own that stands still, so the heartbeat never beats
  // (a jumping clock would spin it and add its waits to the ones the tests count).
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{7};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<ScriptModel> model_;
  std::unique_ptr<CallingAgent> agent_;
};

TEST_F(ModelCallerTest, UsageAndCostRecorded) {
  Story story;
  story.config.prices["test-model"] = Price{3'000'000, 15'000'000, 300'000};
  absl::StatusOr<agentrt::Run> run = Play({Reply(1200, 300, 200)}, story);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  // (1200-200) x 3 + 200 x 0.3 + 300 x 15 = 3000 + 60 + 4500 micros.
  EXPECT_EQ(run->model_calls, 1);
  EXPECT_EQ(run->input_tokens, 1200);
  EXPECT_EQ(run->output_tokens, 300);
  EXPECT_EQ(run->cached_input_tokens, 200);
  EXPECT_EQ(run->estimated_cost_micros, 7560);
  std::vector<store::SqlRow> rows = Rows(
      "SELECT attempt, status, model, input_tokens, output_tokens, cached_input_tokens, "
      "cost_micros, latency_ms, error FROM model_calls");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0],
              ElementsAre("1", "ok", "test-model", "1200", "300", "200", "7560", "250", ""));
  EXPECT_THAT(ModelEvents(), ElementsAre("model.dispatched", "model.completed"));
  // The per-attempt deadline is the call timeout from dispatch.
  ASSERT_EQ(model_->deadlines.size(), 1u);
  EXPECT_EQ(model_->deadlines[0] - (clock_.Now() - absl::Milliseconds(250)), absl::Minutes(2));
}

TEST_F(ModelCallerTest, TheRowIsReservedBeforeTheModelIsCalled) {
  // What the store holds while the model is being called: the dispatched row and its event.
  std::vector<store::SqlRow> seen;
  class Peek final : public Model {
   public:
    explicit Peek(std::function<void()> f) : f_(std::move(f)) {}
    std::string Name() const override { return "peek"; }
    absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
      f_();
      return Reply(10, 5);
    }
    std::function<void()> f_;
  } model([&] { seen = Rows("SELECT status, attempt FROM model_calls"); });
  CallingAgent agent(1);
  ASSERT_OK(Start(agent, model, {}));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_THAT(seen[0], ElementsAre("dispatched", "1"));
}

TEST_F(ModelCallerTest, TransientRetryThenSuccess) {
  absl::StatusOr<agentrt::Run> run = Play(
      {TransientError("overloaded"), TransientError("overloaded"), Reply(100, 10)}, Retries(2));
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(run->model_calls, 3);  // every attempt counted
  EXPECT_EQ(run->input_tokens, 100);
  EXPECT_THAT(clock_.jumps(), ElementsAre(absl::Seconds(1), absl::Seconds(2)));
  EXPECT_THAT(
      Rows("SELECT attempt, status FROM model_calls ORDER BY attempt"),
      ElementsAre(ElementsAre("1", "error"), ElementsAre("2", "error"), ElementsAre("3", "ok")));
  EXPECT_THAT(ModelEvents(), ElementsAre("model.dispatched", "model.failed", "model.dispatched",
                                         "model.failed", "model.dispatched", "model.completed"));
}

TEST_F(ModelCallerTest, RetriesAreOffByDefault) {
  absl::StatusOr<agentrt::Run> run = Play({TransientError("overloaded"), Reply(1, 1)});
  ASSERT_OK(run);
  EXPECT_EQ(run->reason, reason::kModelUnavailable);
  EXPECT_EQ(model_->requests.size(), 1u);
}

TEST_F(ModelCallerTest, ExhaustedRetriesIsUnavailable) {
  absl::StatusOr<agentrt::Run> run = Play(
      {TransientError("busy"), TransientError("busy"), TransientError("still busy")}, Retries(2));
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, reason::kModelUnavailable);
  EXPECT_EQ(run->reason_detail, "model unavailable after 3 attempts: still busy");
  EXPECT_EQ(run->model_calls, 3);
  ASSERT_EQ(agent_->errors.size(), 1u);
  EXPECT_TRUE(IsModelUnavailable(agent_->errors[0]));
  // model_unavailable, like a limit, is explained by a limit.exceeded event.
  EXPECT_EQ(ModelEvents().back(), "limit.exceeded");
}

TEST_F(ModelCallerTest, PermanentAndServedErrorsAreNotRetried) {
  {
    absl::StatusOr<agentrt::Run> run =
        Play({absl::PermissionDeniedError("bad key"), Reply(1, 1)}, Retries(3));
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kModelUnavailable);
    EXPECT_EQ(run->reason_detail, "model unavailable after 1 attempt: bad key");
    EXPECT_EQ(model_->requests.size(), 1u);
    EXPECT_EQ(run->input_tokens, 0);  // a permanent failure is charged nothing
  }
  {
    absl::StatusOr<agentrt::Run> run =
        Play({ServedError("content filtered", Usage{500, 20, 0})}, Retries(3));
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kModelUnavailable);
    EXPECT_EQ(model_->requests.size(), 1u);
    EXPECT_EQ(run->input_tokens, 500);  // the work the provider did is charged
    EXPECT_EQ(run->output_tokens, 20);
  }
}

TEST_F(ModelCallerTest, AmbiguousAttemptChargedConservatively) {
  Story story = Retries(2);
  story.request = Request(/*cap=*/64);
  absl::StatusOr<agentrt::Run> run = Play(
      {AmbiguousError("connection reset"), absl::DeadlineExceededError("timed out"), Reply(10, 5)},
      story);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  std::int64_t estimate = EstimateInputTokens(story.request);
  EXPECT_EQ(run->model_calls, 3);
  EXPECT_EQ(run->input_tokens, 2 * estimate + 10);
  EXPECT_EQ(run->output_tokens, 2 * 64 + 5);
  EXPECT_THAT(Rows("SELECT status FROM model_calls ORDER BY attempt"),
              ElementsAre(ElementsAre("ambiguous"), ElementsAre("ambiguous"), ElementsAre("ok")));
}

TEST_F(ModelCallerTest, UnusableUsageIsChargedTheEstimateAndNotRetried) {
  absl::StatusOr<agentrt::Run> run = Play({Reply(10, 5, /*cached=*/11), Reply(10, 5)}, Retries(2));
  ASSERT_OK(run);
  EXPECT_EQ(run->reason, reason::kModelUnavailable);
  EXPECT_THAT(run->reason_detail, HasSubstr("the provider reported unusable usage: cached input"));
  EXPECT_EQ(run->input_tokens, EstimateInputTokens(Request()));
  EXPECT_EQ(run->output_tokens, 100);
  EXPECT_THAT(Rows("SELECT error FROM model_calls"),
              ElementsAre(ElementsAre(HasSubstr("unusable usage: cached input 11 exceeds"))));
}

TEST_F(ModelCallerTest, RetryAfterIsHonouredAndBounded) {
  {
    ASSERT_OK(Play({TransientError("slow down", absl::Seconds(7)), Reply(1, 1)}, Retries(1)));
    EXPECT_THAT(clock_.jumps(), ElementsAre(absl::Seconds(7)));
  }
  {
    absl::StatusOr<agentrt::Run> run =
        Play({TransientError("come back tomorrow", absl::Hours(24))}, Retries(1));
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kModelUnavailable);
    EXPECT_THAT(run->reason_detail, HasSubstr("longer than 1m"));
    EXPECT_EQ(clock_.jumps().size(), 1u);  // the earlier test's wait only: no new one
  }
}

TEST_F(ModelCallerTest, NoRetryPastTheElapsedLimit) {
  Story story = Retries(1);
  story.config.backoff = absl::Minutes(10);
  story.limits.max_elapsed_time = absl::Minutes(5);
  absl::StatusOr<agentrt::Run> run = Play({TransientError("busy"), Reply(1, 1)}, story);
  ASSERT_OK(run);
  EXPECT_EQ(run->reason, reason::kModelUnavailable);
  EXPECT_THAT(run->reason_detail, HasSubstr("no time left to retry"));
  EXPECT_TRUE(clock_.jumps().empty());
}

// A tool that takes four minutes of the run's clock, and an agent that calls it once and then
// asks the model: the second step starts with four minutes of active time behind the run.
class SlowTool final : public Tool {
 public:
  explicit SlowTool(world::ManualClock& clock) : clock_(clock) {}
  ToolSpec Spec() const override {
    return ToolSpec{
        "slow", "Takes its time.", R"({"type":"object"})", SideEffect::kReadOnly, absl::Minutes(10),
        false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    clock_.Advance(absl::Minutes(4));
    return ToolResult{"{}", "done"};
  }

 private:
  world::ManualClock& clock_;
};

class SlowThenModelAgent final : public Agent {
 public:
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    Decision d;
    if (input.steps.empty()) {
      d.kind = "tool_call";
      d.tool = "slow";
      d.args = "{}";
      return d;
    }
    absl::StatusOr<ModelResponse> r = input.model->Generate(Request());
    if (!r.ok()) return r.status();
    d.kind = "complete";
    return d;
  }
};

// A retry's wait counts against the run's active time, the earlier steps' included: with four
// minutes spent, a two-minute backoff would pass a five-minute limit, so none is waited.
TEST_F(ModelCallerTest, NoRetryPastTheActiveTimeLimitCountingEarlierSteps) {
  ScriptModel model(clock_, {TransientError("busy"), Reply(1, 1)});
  SlowTool slow(clock_);
  SlowThenModelAgent agent;
  ModelConfig config;
  config.max_retries = 1;
  config.backoff = absl::Minutes(2);
  DriverOptions options = Options(agent, model, config);
  options.tools = {&slow};
  auto driver = Driver::Create(*store_, clock_, entropy_, options);
  ASSERT_OK(driver);
  Limits limits;
  limits.max_active_time = absl::Minutes(5);
  absl::StatusOr<agentrt::Run> run = (*driver)->Start("slow, then ask", limits);
  ASSERT_OK(run);
  EXPECT_EQ(run->reason, reason::kModelUnavailable);
  EXPECT_THAT(run->reason_detail, HasSubstr("no active time left to retry"));
  EXPECT_EQ(model.requests.size(), 1u);
}

TEST_F(ModelCallerTest, CallLimitStopsBeforeDispatch) {
  Story story;
  story.calls = 3;
  story.limits.max_model_calls = 2;
  absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1), Reply(1, 1), Reply(1, 1)}, story);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, reason::kLimitModelCalls);
  EXPECT_EQ(run->reason_detail, "limit_model_calls: 2 model calls made, limit 2");
  EXPECT_EQ(model_->requests.size(), 2u);  // the third was never sent
  EXPECT_EQ(Rows("SELECT id FROM model_calls").size(), 2u);
  EXPECT_EQ(ModelEvents().back(), "limit.exceeded");
}

TEST_F(ModelCallerTest, TokenAndCostLimitsProjected) {
  std::int64_t estimate = EstimateInputTokens(Request(100));
  {
    // The first call fits; the second's projection (totals + estimate + cap) does not.
    Story story;
    story.calls = 2;
    story.limits.max_total_tokens = 2 * estimate + 150;
    absl::StatusOr<agentrt::Run> run = Play({Reply(estimate, 100), Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kLimitTokens);
    EXPECT_THAT(run->reason_detail,
                HasSubstr(absl::StrCat("projected ", 2 * estimate + 200, " tokens, limit ")));
    EXPECT_EQ(model_->requests.size(), 1u);
  }
  {
    // A request without an output cap cannot be held to a token limit at all...
    Story story;
    story.request = Request(/*cap=*/0);
    story.limits.max_total_tokens = 1'000'000;
    absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kLimitTokens);
    EXPECT_THAT(run->reason_detail, HasSubstr("sets no output cap"));
    EXPECT_TRUE(model_->requests.empty());
  }
  {
    // ...unless the run caps every call, which then sets the request's cap.
    Story story;
    story.request = Request(/*cap=*/0);
    story.limits.max_total_tokens = 1'000'000;
    story.limits.max_output_tokens_per_call = 50;
    absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->status, RunStatus::kCompleted);
    ASSERT_EQ(model_->requests.size(), 1u);
    EXPECT_EQ(model_->requests[0].max_output_tokens, 50);
  }
  {
    // Cost: projected on the price of estimate + cap.
    Story story;
    story.request = Request(/*cap=*/1000);
    story.config.prices["test-model"] = Price{0, 2'000'000, 0};  // 2 micros per output token
    story.limits.max_estimated_cost_micros = 1999;
    absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kLimitCost);
    EXPECT_THAT(run->reason_detail, HasSubstr("projected cost 2000 micros, limit 1999"));
    EXPECT_TRUE(model_->requests.empty());
  }
}

TEST_F(ModelCallerTest, AnUncappedRequestCannotBeHeldToACostLimitButAFreeModelCan) {
  {
    // Priced: nothing bounds what the reply may cost, so nothing is dispatched.
    Story story;
    story.request = Request(/*cap=*/0);
    story.config.prices["test-model"] = Price{1'000'000, 2'000'000, 0};
    story.limits.max_estimated_cost_micros = 1'000'000;
    absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->reason, reason::kLimitCost);
    EXPECT_THAT(run->reason_detail, HasSubstr("sets no output cap, so it cannot be held to"));
    EXPECT_TRUE(model_->requests.empty());
  }
  {
    // A model that costs nothing cannot pass a cost limit, capped or not.
    Story story;
    story.request = Request(/*cap=*/0);
    story.config.prices = Free({"test-model"});
    story.limits.max_estimated_cost_micros = 1;
    absl::StatusOr<agentrt::Run> run = Play({Reply(1, 1)}, story);
    ASSERT_OK(run);
    EXPECT_EQ(run->status, RunStatus::kCompleted);
    EXPECT_EQ(model_->requests.size(), 1u);
  }
}

TEST_F(ModelCallerTest, TotalsSaturateRatherThanOverflow) {
  constexpr std::int64_t kHuge = std::numeric_limits<std::int64_t>::max() - 10;
  Story story;
  story.calls = 2;
  story.config.prices["test-model"] = Price{1'000'000, 1'000'000, 0};
  absl::StatusOr<agentrt::Run> run = Play({Reply(kHuge, kHuge), Reply(kHuge, kHuge)}, story);
  ASSERT_OK(run);
  agentrt::Run stored = *ReadRun(*store_, run->id);
  EXPECT_EQ(stored.input_tokens, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(stored.output_tokens, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(stored.estimated_cost_micros, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(stored.model_calls, 2);
}

TEST_F(ModelCallerTest, ConcurrentCallsReserveBeforeDispatch) {
  // Two calls in one step under a one-call limit: the second is refused while the first is in
  // flight, because the first reserved before it was sent.
  absl::Notification entered, release;
  class Blocking final : public Model {
   public:
    Blocking(absl::Notification& entered, absl::Notification& release)
        : entered_(entered), release_(release) {}
    std::string Name() const override { return "blocking"; }
    absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
      entered_.Notify();
      release_.WaitForNotification();
      return Reply(1, 1);
    }
    absl::Notification& entered_;
    absl::Notification& release_;
  } model(entered, release);
  class TwoAtOnce final : public Agent {
   public:
    absl::StatusOr<Decision> Decide(const StepInput& input) override {
      absl::Status first;
      std::thread t([&] { first = input.model->Generate(Request()).status(); });
      entered_->WaitForNotification();
      second = input.model->Generate(Request()).status();
      release_->Notify();
      t.join();
      EXPECT_OK(first);
      Decision d;
      d.kind = "complete";
      return d;
    }
    absl::Notification* entered_;
    absl::Notification* release_;
    absl::Status second;
  } agent;
  agent.entered_ = &entered;
  agent.release_ = &release;
  Limits limits;
  limits.max_model_calls = 1;
  absl::StatusOr<agentrt::Run> run = Start(agent, model, {}, limits);
  ASSERT_OK(run);
  EXPECT_EQ(LimitReasonOf(agent.second), std::string(reason::kLimitModelCalls));
  EXPECT_EQ(run->model_calls, 1);
}

// An agent that changes the world under its own run (`before`), then makes one model call and
// passes its result on.
class ActsThenCalls final : public Agent {
 public:
  explicit ActsThenCalls(std::function<absl::Status(const StepInput&)> before)
      : before_(std::move(before)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    EXPECT_OK(before_(input));
    result = input.model->Generate(Request()).status();
    return result;
  }
  absl::Status result;

 private:
  std::function<absl::Status(const StepInput&)> before_;
};

TEST_F(ModelCallerTest, AMovedRunIsNeverDispatched) {
  // The dispatch transaction checks the run is still this driver's: a cancelled run sends
  // nothing and leaves no row.
  ActsThenCalls agent([&](const StepInput& input) {
    return Cancel(*store_, clock_, input.run.id, Decider{"op", ""});
  });
  ScriptModel model(clock_, {Reply(1, 1)});
  (void)Start(agent, model, {});
  EXPECT_EQ(agent.result.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(agent.result.message(), HasSubstr("is CANCELLED"));
  EXPECT_TRUE(model.requests.empty());
  EXPECT_TRUE(Rows("SELECT id FROM model_calls").empty());
}

TEST_F(ModelCallerTest, AnExpiredLeaseSendsNothing) {
  // The lease lapsed (its owner stalled past the TTL and may already be replaced): the dispatch
  // transaction refuses before the model is called, and no row is written.
  ActsThenCalls agent([&](const StepInput&) {
    return store_->Write([](store::Transaction& tx) {
      return test_support::TamperIn(
                 tx, "the lease run out",
                 "UPDATE runs SET lease_expires_at = '2000-01-01T00:00:00.000000000Z'")
          .status();
    });
  });
  ScriptModel model(clock_, {Reply(1, 1)});
  (void)Start(agent, model, {});
  EXPECT_THAT(agent.result.message(), HasSubstr("nothing is sent to the model"));
  EXPECT_TRUE(model.requests.empty());
  EXPECT_TRUE(Rows("SELECT id FROM model_calls").empty());
}

// A process that dies while the model answers leaves the attempt's row `dispatched` and the run
// uncharged; the run's next owner never charges it either (docs/architecture.md, "The model and its
// accounting").
TEST_F(ModelCallerTest, ACallCutByACrashStaysDispatchedAndIsNeverCharged) {
  std::string path = (dir_ / "runs.db").string();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child opens its own connection (the inherited one is never touched) and dies inside
    // the model call, as a killed process would: no destructor, no flush.
    class Dies final : public Model {
     public:
      std::string Name() const override { return "dies"; }
      absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
        ::_exit(0);
      }
    } model;
    auto store = records::OpenStore(path, clock_);
    if (!store.ok()) ::_exit(3);
    CallingAgent agent(1);
    world::SeededEntropy child_entropy(99);  // ids of its own, not a copy of the parent's
    auto driver = Driver::Create(**store, clock_, child_entropy, Options(agent, model));
    if (!driver.ok()) ::_exit(4);
    (void)(*driver)->StartWithId("run-crashed", "goal");
    ::_exit(5);  // not reached: the model ends the process
  }
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status));
  ASSERT_EQ(WEXITSTATUS(wait_status), 0) << "the child did not die inside the model call";

  EXPECT_THAT(Rows("SELECT attempt, status, input_tokens, output_tokens FROM model_calls"),
              ElementsAre(ElementsAre("1", "dispatched", "0", "0")));
  absl::StatusOr<agentrt::Run> crashed = ReadRun(*store_, "run-crashed");
  ASSERT_OK(crashed);
  EXPECT_EQ(crashed->status, RunStatus::kRunning);
  EXPECT_EQ(crashed->model_calls, 0);
  EXPECT_EQ(crashed->input_tokens, 0);

  // A new owner takes over once the lease lapsed and finishes with its own call.
  lease_clock_.Advance(absl::Minutes(5));
  ScriptModel model(clock_, {Reply(7, 3)});
  CallingAgent agent(1);
  auto driver = Driver::Create(*store_, clock_, entropy_, Options(agent, model));
  ASSERT_OK(driver);
  absl::StatusOr<agentrt::Run> resumed = (*driver)->Resume("run-crashed");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
  EXPECT_EQ(resumed->model_calls, 1);  // only the call that completed
  EXPECT_EQ(resumed->input_tokens, 7);
  EXPECT_THAT(Rows("SELECT status FROM model_calls ORDER BY dispatched_at, attempt"),
              ElementsAre(ElementsAre("dispatched"), ElementsAre("ok")));
}

TEST_F(ModelCallerTest, GateModelLimitsFireThroughTheStepsModel) {
  ScriptModel model(clock_, {Reply(1, 1), Reply(1, 1)});
  CallingAgent unused(0);
  ASSERT_OK(Start(unused, model, {}));  // builds driver_ with the model configured
  Limits limits;
  limits.max_model_calls = 1;
  auto session = driver_->Begin("gate-run", "goal", limits);
  ASSERT_OK(session);
  ASSERT_TRUE(*(*session)->Step());
  StepInput input = (*session)->Input();
  ASSERT_NE(input.model, nullptr);
  ASSERT_OK(input.model->Generate(Request()));
  absl::Status second = input.model->Generate(Request()).status();
  EXPECT_EQ(LimitReasonOf(second), std::string(reason::kLimitModelCalls));
  EXPECT_EQ(model.requests.size(), 1u);  // refused before sending
  ASSERT_OK((*session)->Fail(second));
  absl::StatusOr<agentrt::Run> run = ReadRun(*store_, "gate-run");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, reason::kLimitModelCalls);
  EXPECT_EQ(run->model_calls, 1);
}

TEST(ModelErrorTest, KindsTravelInTheStatusNotItsWords) {
  EXPECT_EQ(ClassifyModelError(TransientError("x", absl::Seconds(3))).kind,
            ModelErrorKind::kTransient);
  EXPECT_EQ(ClassifyModelError(TransientError("x", absl::Seconds(3))).retry_after,
            absl::Seconds(3));
  EXPECT_EQ(ClassifyModelError(AmbiguousError("x")).kind, ModelErrorKind::kAmbiguous);
  EXPECT_EQ(ClassifyModelError(absl::DeadlineExceededError("x")).kind, ModelErrorKind::kAmbiguous);
  ModelErrorInfo served = ClassifyModelError(ServedError("x", Usage{1, 2, 0}));
  EXPECT_EQ(served.kind, ModelErrorKind::kServed);
  ASSERT_TRUE(served.usage.has_value());
  EXPECT_EQ(served.usage->output_tokens, 2);
  EXPECT_EQ(ClassifyModelError(UnusableUsageError("x")).kind, ModelErrorKind::kUnusableUsage);
  // Words alone classify nothing.
  EXPECT_EQ(ClassifyModelError(absl::UnavailableError("transient: connection reset")).kind,
            ModelErrorKind::kPermanent);
}

TEST(ModelJsonTest, ResponseRoundTripsWithoutRaw) {
  ModelResponse r = Reply(3, 4, 1);
  r.tool_uses.push_back(ToolUse{"tu_1", "read", R"({"path": "/a", "n": 9007199254740993})"});
  r.raw = "provider bytes";
  std::string json = ModelResponseJson(r);
  EXPECT_EQ(json.find("provider bytes"), std::string::npos);
  absl::StatusOr<ModelResponse> back = ParseModelResponse(json);
  ASSERT_OK(back);
  EXPECT_EQ(back->text, "done");
  EXPECT_EQ(back->usage.cached_input_tokens, 1);
  ASSERT_EQ(back->tool_uses.size(), 1u);
  EXPECT_EQ(back->tool_uses[0].args, R"({"n":9007199254740993,"path":"/a"})");
  EXPECT_EQ(ModelResponseJson(*back), json);
}

TEST(ModelJsonTest, RequestsWithBytesThatAreNotUtf8StillHaveOneValidForm) {
  ModelRequest r = Request();
  r.system = "be \xff careful";
  r.messages[0].content[0].text = "tail \xc3";
  std::string json = ModelRequestJson(r);
  absl::StatusOr<json::Document> doc = json::Parse(json);
  ASSERT_OK(doc);
  EXPECT_EQ(doc->root().Find("system")->string_value(), "be \xEF\xBF\xBD careful");
  EXPECT_EQ(ModelRequestJson(r), json);
}

}  // namespace
}  // namespace agentrt
