// The scheduler of a runtime the simulator can stop (sim/stoppable_scheduler.h): while stopped,
// a heartbeat skips its beats and a one-off task waits for the wake; a task cancelled while
// waiting never runs; nothing changes for a runtime never stopped.
#include "sim/stoppable_scheduler.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"

namespace agentrt::sim {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(StoppableSchedulerTest, AStoppedRuntimesHeartbeatSkipsItsBeats) {
  world::ManualClock clock(kStart);
  StoppableScheduler scheduler(clock);
  int beats = 0;
  scheduler.RunEvery(kStart + absl::Seconds(10), absl::Seconds(10), [&] {
    ++beats;
    return true;
  });
  clock.Advance(absl::Seconds(25));
  EXPECT_EQ(beats, 2);
  scheduler.Stop();
  clock.Advance(absl::Seconds(30));  // three beats due: none runs
  EXPECT_EQ(beats, 2);
  scheduler.Wake();
  clock.Advance(absl::Seconds(10));
  EXPECT_EQ(beats, 3);
}

TEST(StoppableSchedulerTest, AOneOffDueWhileStoppedRunsAfterTheWakeInOrder) {
  world::ManualClock clock(kStart);
  StoppableScheduler scheduler(clock);
  std::vector<int> ran;
  scheduler.RunAt(kStart + absl::Seconds(2), [&] { ran.push_back(2); });
  scheduler.RunAt(kStart + absl::Seconds(1), [&] { ran.push_back(1); });
  scheduler.RunAt(kStart + absl::Seconds(9), [&] { ran.push_back(9); });
  scheduler.Stop();
  clock.Advance(absl::Seconds(5));
  EXPECT_THAT(ran, ::testing::IsEmpty());
  scheduler.Wake();
  EXPECT_THAT(ran, ::testing::IsEmpty());  // at the clock's next move
  clock.Advance(absl::Seconds(1));
  EXPECT_THAT(ran, ::testing::ElementsAre(1, 2));
  clock.Advance(absl::Seconds(5));
  EXPECT_THAT(ran, ::testing::ElementsAre(1, 2, 9));
}

TEST(StoppableSchedulerTest, ATaskCancelledWhileWaitingNeverRuns) {
  world::ManualClock clock(kStart);
  StoppableScheduler scheduler(clock);
  int ran = 0;
  world::Scheduler::TaskId waiting = scheduler.RunAt(kStart + absl::Seconds(1), [&] { ++ran; });
  world::Scheduler::TaskId pending = scheduler.RunAt(kStart + absl::Seconds(30), [&] { ++ran; });
  scheduler.Stop();
  clock.Advance(absl::Seconds(2));
  EXPECT_TRUE(scheduler.Cancel(waiting));  // came due, not run: it never will
  EXPECT_TRUE(scheduler.Cancel(pending));
  scheduler.Wake();
  clock.Advance(absl::Minutes(1));
  EXPECT_EQ(ran, 0);
  EXPECT_FALSE(scheduler.Cancel(waiting));
}

TEST(StoppableSchedulerTest, NeverStoppedItIsItsTarget) {
  world::ManualClock clock(kStart);
  StoppableScheduler scheduler(clock);
  int ran = 0;
  world::Scheduler::TaskId id = scheduler.RunAt(kStart + absl::Seconds(1), [&] { ++ran; });
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(scheduler.Cancel(id));
  EXPECT_FALSE(scheduler.stopped());
}

}  // namespace
}  // namespace agentrt::sim
