// A long run's history as agents and policies see it (runtime/step_list.h): the driver holds
// only its window, every older step reads back from the store exactly as it was, with or
// without its content; the renderer gives the same conversation from the window as from every
// step held; and a history kept past its driver reads nothing through a store that is gone.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/render/messages.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/describe_step.h"
#include "tests/runtime/render/dump.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::testing::DescribeStep;
using ::testing::HasSubstr;

// Answers each path with a result that names it, so every step's content differs.
class NamingTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"read_file",
                    "Read a file.",
                    R"({"type":"object","properties":{"path":{"type":"string"}},)"
                    R"("required":["path"]})",
                    SideEffect::kReadOnly,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{absl::StrCat(R"({"read":)", call.args, "}"),
                      absl::StrCat("read ", call.args.size(), " bytes of arguments")};
  }
};

// Reads `calls` distinct files, checking at every step what it was handed against the store.
class CheckingAgent final : public Agent {
 public:
  CheckingAgent(store::Store& store, int calls, render::RenderOptions options)
      : store_(store), calls_(calls), options_(std::move(options)) {}

  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    const std::size_t k = input.steps.size();
    std::vector<Step> stored = *ReadSteps(store_, input.run.id);
    EXPECT_EQ(stored.size(), k + 1);  // and the open step
    // The window: the last HeldStepsFor steps of the session, the open one among them.
    const std::size_t window = HeldStepsFor(input.run.limits);
    EXPECT_EQ(input.steps.first_held(), k + 1 > window ? k + 1 - window : 0) << "step " << k;
    most_held = std::max(most_held, k - input.steps.first_held());
    std::size_t i = 0;
    EXPECT_OK(input.steps.ForEach([&](const Step& step) {
      EXPECT_EQ(DescribeStep(step), DescribeStep(stored[i])) << "step " << i;
      ++i;
      return absl::OkStatus();
    }));
    EXPECT_EQ(i, k);
    if (k > 0) {
      // Without content: the same step less its result.
      absl::StatusOr<Step> light = input.steps.Read(0, StepDetail::kWithoutContent);
      EXPECT_OK(light);
      Step expected = stored[0];
      expected.observation->content.clear();
      EXPECT_EQ(DescribeStep(*light), DescribeStep(expected));
      EXPECT_EQ(DescribeStep(*input.steps.Read(k - 1)), DescribeStep(stored[k - 1]));
    }
    // The conversation from the window is the one from every step held.
    StepInput whole = input;
    whole.steps = std::vector<Step>(stored.begin(), stored.end() - 1);
    absl::StatusOr<std::vector<Message>> from_window = render::Messages(input, options_);
    absl::StatusOr<std::vector<Message>> from_all = render::Messages(whole, options_);
    EXPECT_OK(from_window);
    EXPECT_OK(from_all);
    if (from_window.ok() && from_all.ok()) {
      EXPECT_EQ(render::Dump(*from_window), render::Dump(*from_all)) << "step " << k;
    }
    kept = input.steps;
    Decision d;
    if (static_cast<int>(k) < calls_) {
      d.kind = "tool_call";
      d.tool = "read_file";
      // Every seventh asks with arguments the schema refuses: an invalid decision's step.
      d.args = k % 7 == 3 ? R"({"path":5})" : absl::StrCat(R"({"path":"/notes/)", k, R"("})");
    } else {
      d.kind = "complete";
    }
    return d;
  }

  std::size_t most_held = 0;
  StepList kept;

 private:
  store::Store& store_;
  int calls_;
  render::RenderOptions options_;
};

struct World {
  world::ManualClock clock{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy{7};
  std::unique_ptr<store::Store> store = *test_support::OpenTestStore(clock);
  NamingTool tool;
  std::unique_ptr<Policy> policy = DefaultPolicy();
};

render::RenderOptions Options(int recent) {
  render::RenderOptions options;
  options.opening = [](const StepInput& in) { return in.run.goal; };
  options.recent_results = recent;
  // A step shown by summary comes without its content, however it was read.
  options.observation = [](const Step& step, std::string_view,
                           bool full) -> std::optional<ContentBlock> {
    if (!full && step.observation) EXPECT_EQ(step.observation->content, "") << step.index;
    if (full && step.observation) EXPECT_NE(step.observation->content, "") << step.index;
    return std::nullopt;
  };
  return options;
}

std::unique_ptr<Driver> NewDriver(World& w, Agent& agent) {
  DriverOptions options{&agent, w.policy.get(), {&w.tool}, "history"};
  options.scheduler = &w.clock;
  return *Driver::Create(*w.store, w.clock, w.entropy, options);
}

// Runs one to its end: OK when it completed, else why not.
absl::Status Completes(Driver& driver, const Limits& limits) {
  absl::StatusOr<agentrt::Run> run = driver.Start("read", limits);
  if (!run.ok()) return run.status();
  if (run->status != RunStatus::kCompleted) {
    return absl::InternalError(
        absl::StrCat("the run ended ", ToAbsl(ToString(run->status)), ": ", run->reason_detail));
  }
  return absl::OkStatus();
}

void PlayLongRun(int recent) {
  World w;
  CheckingAgent agent(*w.store, 60, Options(recent));
  std::unique_ptr<Driver> driver = NewDriver(w, agent);
  Limits limits;
  limits.max_steps = 100;
  ASSERT_OK(Completes(*driver, limits));
  EXPECT_EQ(agent.most_held, HeldStepsFor(limits) - 1);

  // Kept past its driver: what the window held still reads, nothing else does.
  StepList kept = agent.kept;
  ASSERT_EQ(kept.size(), 60u);
  driver.reset();
  EXPECT_OK(kept.Read(59));
  EXPECT_THAT(kept.Read(0), StatusIs(absl::StatusCode::kFailedPrecondition,
                                     HasSubstr("the driver that could read it is gone")));
}

TEST(StepHistoryTest, OlderStepsReadBackFromTheStoreAsTheyWere) { PlayLongRun(6); }

// More recent results than the window holds: the renderer finds them among the older steps.
TEST(StepHistoryTest, ARenderWindowWiderThanTheHeldOneReadsTheRest) { PlayLongRun(40); }

TEST(StepHistoryTest, AWindowCoversTheLoopThreshold) {
  World w;
  CheckingAgent agent(*w.store, 30, Options(6));
  std::unique_ptr<Driver> driver = NewDriver(w, agent);
  Limits limits;
  limits.loop_threshold = 25;
  ASSERT_OK(Completes(*driver, limits));
  EXPECT_EQ(agent.most_held, 25u);  // every step before the 26th: nothing dropped yet
}

}  // namespace
}  // namespace agentrt
