// The steps agents and policies are handed (runtime/step_list.h): shared without a copy, and
// never changed once handed out, whatever the session does next.
#include "runtime/engine/shared_steps.h"

#include "gtest/gtest.h"

namespace agentrt {
namespace {

Step StepAt(int index, std::string content) {
  Step step;
  step.index = index;
  step.observation = Observation{ObservationKind::kToolResult, std::move(content), "", ""};
  return step;
}

TEST(SharedStepsTest, AListHandedOutKeepsShowingWhatItShowed) {
  SharedSteps steps;
  steps.push_back(StepAt(0, "first"));
  steps.push_back(StepAt(1, "second"));
  StepList shared = steps.Share(1);
  const Step* address = &shared[0];
  // The session goes on: appends (a deque moves nothing), then reloads from the store.
  for (int i = 2; i < 1000; ++i) steps.push_back(StepAt(i, "more"));
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(&shared[0], address);
  EXPECT_EQ(shared.back().observation->content, "first");
  steps = std::vector<Step>{StepAt(0, "reloaded")};
  EXPECT_EQ(shared[0].observation->content, "first");
  EXPECT_EQ(steps.Share(1)[0].observation->content, "reloaded");
}

TEST(SharedStepsTest, AListShowsOnlyItsFirstStepsAndIteratesThem) {
  SharedSteps steps;
  for (int i = 0; i < 5; ++i) steps.push_back(StepAt(i, "x"));
  StepList three = steps.Share(3);
  int seen = 0;
  for (const Step& step : three) EXPECT_EQ(step.index, seen++);
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(three.front().index, 0);
  EXPECT_EQ(three.back().index, 2);
  EXPECT_EQ(three.ToVector().size(), 3u);
  EXPECT_TRUE(StepList().empty());
  EXPECT_EQ(StepList().begin(), StepList().end());
}

TEST(SharedStepsTest, AListFromAVectorOwnsItsCopy) {
  std::vector<Step> source = {StepAt(0, "mine")};
  StepList list = source;
  source[0].observation->content = "changed";
  EXPECT_EQ(list[0].observation->content, "mine");
}

}  // namespace
}  // namespace agentrt
