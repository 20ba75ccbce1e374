// A model-backed agent driving real runs: a scripted model
// behind a plain model caller, the driver, a real store. Also the driver's side of the pseudo
// kinds: they are recorded, answered as invalid decisions, and no call in them ever runs.
#include "runtime/render/model_agent.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/status_macros.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/render/decide.h"
#include "runtime/render/messages.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/render/dump.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_store.h"

namespace agentrt::render {
namespace {

// Plays canned responses (or errors) in order and keeps every request it was sent.
class CannedModel : public Model {
 public:
  explicit CannedModel(std::vector<absl::StatusOr<ModelResponse>> script)
      : script_(std::move(script)) {}
  std::string Name() const override { return "canned"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time) override {
    requests.push_back(request);
    if (next_ >= script_.size()) return absl::OutOfRangeError("canned model: no response left");
    return script_[next_++];
  }
  std::vector<ModelRequest> requests;

 private:
  std::vector<absl::StatusOr<ModelResponse>> script_;
  std::size_t next_ = 0;
};

// A model caller without accounting, for calling an agent outside a driver.
class PlainCaller : public ModelCaller {
 public:
  explicit PlainCaller(Model& model) : model_(model) {}
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request) override {
    return model_.Generate(request, absl::InfiniteFuture());
  }

 private:
  Model& model_;
};

class FuncTool : public Tool {
 public:
  FuncTool(ToolSpec spec, ToolResult result) : spec_(std::move(spec)), result_(std::move(result)) {}
  ToolSpec Spec() const override { return spec_; }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    calls.push_back(call.args);
    return result_;
  }
  std::vector<std::string> calls;

 private:
  ToolSpec spec_;
  ToolResult result_;
};

ToolSpec Spec(std::string name, bool terminal = false) {
  return ToolSpec{std::move(name),       "A test tool.",    R"({"type":"object"})",
                  SideEffect::kReadOnly, absl::Seconds(10), terminal};
}

ModelResponse Response(std::string stop, std::string text, std::vector<ToolUse> uses = {}) {
  ModelResponse r;
  r.stop_reason = std::move(stop);
  r.text = std::move(text);
  r.tool_uses = std::move(uses);
  r.usage = Usage{100, 20, 0};
  return r;
}

ModelAgentOptions AgentOptions() {
  ModelAgentOptions o;
  o.render.opening = [](const StepInput& in) { return "Goal: " + in.run.goal; };
  o.system = "You are a careful agent.";
  o.max_output_tokens = 512;
  return o;
}

class ModelAgentDriverTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = *test_support::OpenTestStore(clock_); }

  // Drives a run; with `model`, each step's agent gets the driver's accounting caller for it.
  absl::StatusOr<agentrt::Run> Drive(Agent& agent, Model* model = nullptr) {
    DriverOptions options;
    options.model.model = model;
    options.scheduler = &clock_;
    options.agent = &agent;
    options.policy = policy_.get();
    options.tools = {&read_, &finish_};
    AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<Driver> driver,
                             Driver::Create(*store_, clock_, entropy_, options));
    return driver->StartWithId("run-1", "summarize a.txt");
  }

  std::vector<std::string> StepEvents(int index) {
    std::vector<Step> steps = *ReadSteps(*store_, "run-1");
    std::vector<std::string> types;
    std::vector<store::Event> events = *store_->ListEvents("run-1");
    for (const store::Event& e : events) {
      if (e.step_id == steps[index].id) types.push_back(e.type);
    }
    return types;
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{7};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
  FuncTool read_{Spec("read"), ToolResult{R"({"text":"hello"})", "read 5 bytes"}};
  FuncTool finish_{Spec("finish", /*terminal=*/true), ToolResult{R"({"answer":"hello"})", "done"}};
};

// The script: a call, a reply without one, a reply cut by the cap (with a whole tool use in
// it), then the terminal call with a second one that must not run.
std::vector<absl::StatusOr<ModelResponse>> Script() {
  return {
      Response("tool_use", "Reading a.txt first.", {{"t1", "read", R"({ "path" : "a.txt" })"}}),
      Response("end_turn", "I am thinking."),
      Response("max_tokens", "", {{"t2", "read", R"({"path":"b.txt"})"}}),
      Response("tool_use", "It says hello.",
               {{"t3", "finish", R"({"answer":"hello"})"}, {"t4", "read", R"({"path":"c"})"}}),
  };
}

const std::vector<std::string> kConversationBeforeTheLastStep = {
    "user: text:Goal: summarize a.txt",
    R"(assistant: text:Reading a.txt first. | tool_use:step_0:read:{"path":"a.txt"})",
    R"(user: tool_result:step_0:{"text":"hello"})",
    "assistant: text:I am thinking.",
    "user: text:" + std::string(kNoToolCallNudge),
    "assistant: text:" + std::string(kTruncatedReason),
    "user: text:" + std::string(kTruncatedNudge),
};

TEST_F(ModelAgentDriverTest, DrivesARunThroughAScriptedModel) {
  CannedModel model(Script());
  ModelAgent agent(AgentOptions());

  absl::StatusOr<agentrt::Run> run = Drive(agent, &model);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(run->result, R"({"answer":"hello"})");
  EXPECT_EQ(run->model_calls, 4);  // every reply went through the step's accounting caller
  EXPECT_EQ(run->input_tokens, 400);

  // Only the first call and the terminal one ran: not the cut reply's, not the extra one.
  EXPECT_THAT(read_.calls, ElementsAre(R"({ "path" : "a.txt" })"));
  EXPECT_THAT(finish_.calls, ElementsAre(R"({"answer":"hello"})"));

  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  ASSERT_EQ(steps.size(), 4u);
  for (const Step& s : steps) EXPECT_EQ(s.decision->origin, "model");
  EXPECT_EQ(steps[1].decision->kind, "no_tool_call");
  EXPECT_EQ(steps[1].observation->content, R"({"error":"the reply contained no tool call"})");
  EXPECT_EQ(steps[2].decision->kind, "truncated");
  EXPECT_EQ(steps[2].observation->content,
            R"({"error":"the reply was cut off by the output cap before a tool call"})");
  EXPECT_EQ(steps[3].decision->reason,
            "It says hello. [1 further tool call(s) not executed: read]");

  // Every request carries the system text, the tools and the cap; the last one the whole run.
  ASSERT_EQ(model.requests.size(), 4u);
  for (const ModelRequest& r : model.requests) {
    EXPECT_EQ(r.system, "You are a careful agent.");
    EXPECT_EQ(r.max_output_tokens, 512);
    ASSERT_EQ(r.tools.size(), 2u);
    EXPECT_EQ(r.tools[0].name, "finish");
    EXPECT_EQ(r.tools[1].name, "read");
  }
  EXPECT_THAT(Dump(model.requests[0].messages), ElementsAre("user: text:Goal: summarize a.txt"));
  EXPECT_EQ(Dump(model.requests[3].messages), kConversationBeforeTheLastStep);
}

// A resumed run reads its steps back from the store; the conversation must not change, or a
// recorded model would no longer answer it.
TEST_F(ModelAgentDriverTest, StepsReadBackFromTheStoreRenderTheSameConversation) {
  CannedModel model(Script());
  ModelAgent agent(AgentOptions());
  ASSERT_OK(Drive(agent, &model));

  StepInput from_store;
  from_store.run = *ReadRun(*store_, "run-1");
  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  steps.pop_back();  // the last step was being decided
  from_store.steps = std::move(steps);
  from_store.tools = {finish_.Spec(), read_.Spec()};
  absl::StatusOr<ModelRequest> again = agent.Request(from_store);
  ASSERT_OK(again);
  EXPECT_EQ(ModelRequestJson(*again), ModelRequestJson(model.requests[3]));
  EXPECT_EQ(Dump(again->messages), Dump(model.requests[3].messages));
}

TEST_F(ModelAgentDriverTest, WithoutAModelCallerTheRunFailsSayingSo) {
  ModelAgent agent(AgentOptions());
  absl::StatusOr<agentrt::Run> run = Drive(agent);  // the step's model caller is null
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->reason, "agent_error");
  EXPECT_THAT(run->reason_detail, HasSubstr("no model caller"));
}

TEST(ModelAgentTest, ModelErrorsAndMissingOpeningComeBackAsTheyAre) {
  CannedModel model({TransientError("overloaded", absl::Seconds(3))});
  PlainCaller caller(model);
  StepInput input;
  input.run.goal = "g";
  input.model = &caller;

  ModelAgent agent(AgentOptions());
  absl::StatusOr<Decision> decided = agent.Decide(input);
  ASSERT_THAT(decided, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(decided.status().message(), "overloaded");
  ModelErrorInfo info = ClassifyModelError(decided.status());
  EXPECT_EQ(info.kind, ModelErrorKind::kTransient);  // the kind survives for the driver
  EXPECT_EQ(info.retry_after, absl::Seconds(3));

  ModelAgent no_opening(ModelAgentOptions{});
  decided = no_opening.Decide(input);
  EXPECT_EQ(decided.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(decided.status().message(), HasSubstr("opening is required"));
  EXPECT_EQ(model.requests.size(), 1u);  // refused before asking the model
}

// `truncated` and `no_tool_call` are recorded as the agent sent them,
// answered as invalid decisions, and the run goes on; a tool named in them never runs.
TEST_F(ModelAgentDriverTest, PseudoDecisionKindsAreInvalid) {
  Decision truncated;
  truncated.kind = "truncated";
  truncated.tool = "read";
  truncated.args = R"({"path":"partial"})";
  Decision no_tool_call;
  no_tool_call.kind = "no_tool_call";
  no_tool_call.tool = "read";
  no_tool_call.args = R"({"path":"guess"})";
  Decision complete;
  complete.kind = "complete";
  ScriptedAgent agent({truncated, no_tool_call, complete});

  absl::StatusOr<agentrt::Run> run = Drive(agent);
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);  // invalid decisions did not end the run
  EXPECT_TRUE(read_.calls.empty());

  std::vector<Step> steps = *ReadSteps(*store_, "run-1");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].status, StepStatus::kFailed);
  EXPECT_EQ(steps[0].decision->kind, "truncated");
  EXPECT_EQ(steps[0].decision->tool, "read");  // recorded verbatim
  EXPECT_EQ(steps[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_EQ(steps[0].observation->summary,
            "invalid decision: the reply was cut off by the output cap before a tool call");
  EXPECT_EQ(steps[1].status, StepStatus::kFailed);
  EXPECT_EQ(steps[1].observation->summary, "invalid decision: the reply contained no tool call");
  // No policy was asked and no tool started for either.
  for (int i : {0, 1}) {
    EXPECT_THAT(StepEvents(i), ElementsAre("step.started", "step.decided", "step.failed"));
  }
}

}  // namespace
}  // namespace agentrt::render
