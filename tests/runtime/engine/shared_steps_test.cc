// The steps agents and policies are handed (runtime/step_list.h): shared without a copy, never
// changed once handed out whatever the session does next, and only a window of them held.
#include "runtime/engine/shared_steps.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt {
namespace {

using ::testing::HasSubstr;

Step StepAt(int index, std::string content) {
  Step step;
  step.index = index;
  step.observation = Observation{ObservationKind::kToolResult, std::move(content), "sum", "h"};
  return step;
}

TEST(SharedStepsTest, AListHandedOutKeepsShowingWhatItShowed) {
  SharedSteps steps(/*source=*/nullptr);  // no store behind it
  steps.push_back(StepAt(0, "first"), 8);
  steps.push_back(StepAt(1, "second"), 8);
  StepList shared = steps.Share(1);
  // The session goes on within its window, then reloads from the store.
  for (int i = 2; i < 6; ++i) steps.push_back(StepAt(i, "more"), 8);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared.back().observation->content, "first");
  steps.Assign({StepAt(0, "reloaded")});
  EXPECT_EQ(shared.Read(0)->observation->content, "first");
  EXPECT_EQ(steps.Share(1).Read(0)->observation->content, "reloaded");
}

TEST(SharedStepsTest, OnlyTheWindowIsHeldAndIndicesStayTheRuns) {
  SharedSteps steps(/*source=*/nullptr);  // no store behind it
  for (int i = 0; i < 100; ++i) steps.push_back(StepAt(i, "x"), 16);
  EXPECT_EQ(steps.size(), 100u);
  EXPECT_EQ(steps.first(), 84u);
  EXPECT_EQ(steps[99].index, 99);
  EXPECT_EQ(steps[84].index, 84);
  StepList all = steps.Share(100);
  EXPECT_EQ(all.first_held(), 84u);
  EXPECT_EQ(all.held(90).index, 90);
  EXPECT_EQ(all.back().index, 99);
  // Older steps need a store; this session has none.
  EXPECT_THAT(all.Read(3), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("step 3")));
  EXPECT_THAT(all.Read(100), StatusIs(absl::StatusCode::kOutOfRange));
  // A list shared earlier whose steps the window has since dropped holds none of them.
  StepList early = steps.Share(10);
  EXPECT_EQ(early.first_held(), 10u);
}

TEST(SharedStepsTest, AListWalksItsFirstStepsWithOrWithoutContent) {
  SharedSteps steps(/*source=*/nullptr);  // no store behind it
  for (int i = 0; i < 5; ++i) steps.push_back(StepAt(i, "content"), 16);
  StepList three = steps.Share(3);
  int seen = 0;
  ASSERT_OK(three.ForEach([&](const Step& step) {
    EXPECT_EQ(step.index, seen++);
    EXPECT_EQ(step.observation->content, "content");
    return absl::OkStatus();
  }));
  EXPECT_EQ(seen, 3);
  ASSERT_OK(three.ForEach(1, 99, StepDetail::kWithoutContent, [&](const Step& step) {
    EXPECT_EQ(step.observation->content, "");
    EXPECT_EQ(step.observation->summary, "sum");
    EXPECT_EQ(step.observation->content_hash, "h");
    return absl::OkStatus();
  }));
  // The held step itself keeps its content.
  EXPECT_EQ(three.held(1).observation->content, "content");
  // A callback's error stops the walk.
  seen = 0;
  EXPECT_THAT(three.ForEach([&](const Step&) {
    return ++seen == 2 ? absl::AbortedError("enough") : absl::OkStatus();
  }),
              StatusIs(absl::StatusCode::kAborted));
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(three.ToVector()->size(), 3u);
  EXPECT_TRUE(StepList().empty());
  EXPECT_TRUE(StepList().ToVector()->empty());
}

TEST(SharedStepsTest, AListFromAVectorOwnsItsCopy) {
  std::vector<Step> source = {StepAt(0, "mine")};
  StepList list = source;
  source[0].observation->content = "changed";
  EXPECT_EQ(list.Read(0)->observation->content, "mine");
  EXPECT_EQ(list.first_held(), 0u);
}

TEST(SharedStepsTest, TheWindowCoversTheLimitsThatLookBack) {
  Limits limits;
  EXPECT_EQ(HeldStepsFor(limits), kHeldSteps);
  limits.loop_threshold = 40;
  EXPECT_EQ(HeldStepsFor(limits), 41u);
  limits.max_consecutive_tool_failures = 100;
  EXPECT_EQ(HeldStepsFor(limits), 101u);
}

}  // namespace
}  // namespace agentrt
