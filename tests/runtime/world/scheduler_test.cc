// The injected scheduler: the manual world runs tasks only when its clock is moved, on the
// thread that moves it, in due order; the real one on a thread of its own.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"
#include "runtime/world/real_scheduler.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(ManualSchedulerTest, TasksRunOnlyWhenTheClockMovesInDueThenSchedulingOrder) {
  ManualClock clock(kStart);
  std::vector<std::string> ran;
  clock.RunAt(kStart + absl::Seconds(2), [&] { ran.push_back("b@2"); });
  clock.RunAt(kStart + absl::Seconds(1), [&] { ran.push_back("a@1"); });
  clock.RunAt(kStart + absl::Seconds(2), [&] { ran.push_back("c@2"); });
  clock.RunAt(kStart, [&] { ran.push_back("now"); });
  EXPECT_THAT(ran, IsEmpty());  // scheduling runs nothing, even a task due already
  clock.Advance(absl::ZeroDuration());
  EXPECT_THAT(ran, ElementsAre("now"));
  clock.Advance(absl::Milliseconds(1500));
  EXPECT_THAT(ran, ElementsAre("now", "a@1"));
  clock.Set(kStart + absl::Minutes(1));
  EXPECT_THAT(ran, ElementsAre("now", "a@1", "b@2", "c@2"));
  EXPECT_EQ(clock.Now(), kStart + absl::Minutes(1));
  EXPECT_EQ(clock.pending_tasks(), 0u);
}

TEST(ManualSchedulerTest, ATaskReadsItsOwnDueTimeAndCanScheduleMore) {
  ManualClock clock(kStart);
  std::vector<absl::Duration> seen;
  clock.RunAt(kStart + absl::Seconds(10), [&] {
    seen.push_back(clock.Now() - kStart);
    clock.RunAt(clock.Now() + absl::Seconds(5), [&] { seen.push_back(clock.Now() - kStart); });
  });
  clock.Advance(absl::Seconds(25));
  EXPECT_THAT(seen, ElementsAre(absl::Seconds(10), absl::Seconds(15)));
  EXPECT_EQ(clock.Now(), kStart + absl::Seconds(25));
}

TEST(ManualSchedulerTest, RepeatingTasksKeepTheirCadenceAndCatchUpOnAJump) {
  ManualClock clock(kStart);
  std::vector<absl::Duration> beats;
  int budget = 5;
  Scheduler::TaskId id = clock.RunEvery(kStart + absl::Seconds(10), absl::Seconds(10), [&] {
    beats.push_back(clock.Now() - kStart);
    return --budget > 0;
  });
  clock.Advance(absl::Seconds(35));  // three due times passed in one move: three runs
  EXPECT_THAT(beats, ElementsAre(absl::Seconds(10), absl::Seconds(20), absl::Seconds(30)));
  clock.Advance(absl::Minutes(5));  // the task stops itself after its fifth run
  EXPECT_EQ(beats.size(), 5u);
  EXPECT_EQ(beats.back(), absl::Seconds(50));
  EXPECT_FALSE(clock.Cancel(id));  // already finished for good
}

// With Repeats::kLatest a repeating task runs once for the due times a move passes, at the last
// of them, yet never after a task due later than that: the order of runs is the order of
// every-period runs, with the skipped ones left out.
TEST(ManualSchedulerTest, LatestRepeatsRunOnceAtTheirLastDueTimeBeforeTheNextTask) {
  ManualClock clock(kStart,
                    {.waits = ManualClock::Waits::kJump, .repeats = ManualClock::Repeats::kLatest});
  std::vector<std::string> ran;
  auto at = [&](std::string what) {
    ran.push_back(absl::StrCat(what, "@", absl::ToInt64Seconds(clock.Now() - kStart)));
  };
  clock.RunEvery(kStart + absl::Seconds(10), absl::Seconds(10), [&] {
    at("beat");
    return true;
  });
  clock.RunAt(kStart + absl::Seconds(35), [&] { at("call"); });
  clock.RunAt(kStart + absl::Seconds(60), [&] { at("answer"); });
  absl::Notification never;
  EXPECT_FALSE(clock.WaitUntil(never, kStart + absl::Hours(24)));
  // A beat due at 60 s as well was scheduled after the answer, so runs after it.
  EXPECT_THAT(ran, ElementsAre("beat@30", "call@35", "beat@50", "answer@60", "beat@86400"));
  EXPECT_EQ(clock.task_runs(), 5);
  EXPECT_EQ(clock.Now(), kStart + absl::Hours(24));

  ManualClock every(kStart, {.waits = ManualClock::Waits::kJump});
  int beats = 0;
  every.RunEvery(kStart + absl::Seconds(10), absl::Seconds(10), [&] { return ++beats > 0; });
  EXPECT_FALSE(every.WaitUntil(never, kStart + absl::Hours(1)));
  EXPECT_EQ(beats, 360);
  EXPECT_EQ(every.task_runs(), 360);
}

TEST(ManualSchedulerTest, CancelStopsAWaitingTaskAndATaskMayCancelItself) {
  ManualClock clock(kStart);
  int runs = 0;
  Scheduler::TaskId waiting = clock.RunAt(kStart + absl::Seconds(1), [&] { ++runs; });
  EXPECT_TRUE(clock.Cancel(waiting));
  EXPECT_FALSE(clock.Cancel(waiting));
  Scheduler::TaskId self = 0;
  self = clock.RunEvery(kStart + absl::Seconds(1), absl::Seconds(1), [&] {
    ++runs;
    EXPECT_TRUE(clock.Cancel(self));  // from inside: finishes this run, never repeats
    return true;
  });
  clock.Advance(absl::Seconds(10));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(clock.pending_tasks(), 0u);
}

TEST(ManualSchedulerTest, CancelFromAnotherThreadWaitsForTheRunningTask) {
  ManualClock clock(kStart);
  absl::Notification started, release;
  std::atomic<bool> finished{false};
  Scheduler::TaskId id = clock.RunAt(kStart + absl::Seconds(1), [&] {
    started.Notify();
    release.WaitForNotification();
    finished = true;
  });
  std::thread mover([&] { clock.Advance(absl::Seconds(1)); });
  started.WaitForNotification();
  // The release comes from another thread, most likely while Cancel waits (if it comes first,
  // the task has simply finished).
  std::thread releaser([&] { release.Notify(); });
  clock.Cancel(id);
  EXPECT_TRUE(finished);  // Cancel returned only after the task's run ended
  mover.join();
  releaser.join();
}

TEST(ManualSchedulerTest, AJumpingWaitRunsTheTasksOnTheWayAndStopsAtTheOneThatNotifies) {
  ManualClock clock(kStart, {.waits = ManualClock::Waits::kJump});
  std::vector<absl::Duration> ran;
  absl::Notification done;
  clock.RunAt(kStart + absl::Seconds(5), [&] { ran.push_back(clock.Now() - kStart); });
  clock.RunAt(kStart + absl::Seconds(8), [&] {
    ran.push_back(clock.Now() - kStart);
    done.Notify();
  });
  clock.RunAt(kStart + absl::Seconds(9), [&] { ran.push_back(clock.Now() - kStart); });
  EXPECT_TRUE(clock.WaitUntil(done, kStart + absl::Seconds(30)));
  EXPECT_THAT(ran, ElementsAre(absl::Seconds(5), absl::Seconds(8)));
  EXPECT_EQ(clock.Now(), kStart + absl::Seconds(8));
  absl::Notification never;
  EXPECT_FALSE(clock.WaitUntil(never, kStart + absl::Seconds(30)));
  EXPECT_THAT(ran, ElementsAre(absl::Seconds(5), absl::Seconds(8), absl::Seconds(9)));
  EXPECT_EQ(clock.Now(), kStart + absl::Seconds(30));
  EXPECT_THAT(clock.jumps(), ElementsAre(absl::Seconds(8), absl::Seconds(22)));
}

TEST(ManualSchedulerTest, ABlockingWaitEndsWhenAnotherThreadMovesTheClock) {
  ManualClock clock(kStart);
  absl::Notification never;
  std::thread mover([&] { clock.Advance(absl::Seconds(3)); });
  EXPECT_FALSE(clock.WaitUntil(never, kStart + absl::Seconds(3)));
  mover.join();
  EXPECT_THAT(clock.jumps(), IsEmpty());
}

TEST(ManualSchedulerTest, ATickingClockCountsItsReadingsAndNeverRunsTasksOnARead) {
  ManualClock clock(kStart, {.tick = absl::Milliseconds(1)});
  bool ran = false;
  clock.RunAt(kStart + absl::Milliseconds(2), [&] { ran = true; });
  EXPECT_EQ(clock.Now(), kStart + absl::Milliseconds(1));
  EXPECT_EQ(clock.Now(), kStart + absl::Milliseconds(2));
  EXPECT_EQ(clock.Now(), kStart + absl::Milliseconds(3));
  EXPECT_FALSE(ran);  // a reading may come from inside a transaction
  EXPECT_EQ(clock.readings(), 3);
  clock.Advance(absl::ZeroDuration());
  EXPECT_TRUE(ran);
}

TEST(RealSchedulerTest, RunsTasksInDueOrderOnItsOwnThread) {
  RealScheduler scheduler;
  absl::Mutex mu;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  absl::Notification done;
  absl::Time now = scheduler.clock().Now();
  // The scheduler's thread is held by a gate task until both are scheduled, so the one due now
  // cannot run before the earlier one exists. Both are due already; the earlier due time runs
  // first whatever the scheduling order.
  absl::Notification release;
  scheduler.RunAt(now - absl::Seconds(2), [&] { release.WaitForNotification(); });
  scheduler.RunAt(now, [&] {
    absl::MutexLock lock(&mu);
    order.push_back(2);
    threads.push_back(std::this_thread::get_id());
    done.Notify();
  });
  scheduler.RunAt(now - absl::Seconds(1), [&] {
    absl::MutexLock lock(&mu);
    order.push_back(1);
    threads.push_back(std::this_thread::get_id());
  });
  release.Notify();
  done.WaitForNotification();
  absl::MutexLock lock(&mu);
  EXPECT_THAT(order, ElementsAre(1, 2));
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0], threads[1]);
  EXPECT_NE(threads[0], std::this_thread::get_id());
}

TEST(RealSchedulerTest, ARepeatingTaskRunsUntilItSaysStop) {
  RealScheduler scheduler;
  std::atomic<int> runs{0};
  absl::Notification done;
  // Due times in the past: every missed one runs at once, on the scheduler's thread.
  absl::Time first = scheduler.clock().Now() - absl::Hours(1);
  scheduler.RunEvery(first, absl::Minutes(1), [&] {
    if (++runs < 3) return true;
    done.Notify();
    return false;
  });
  done.WaitForNotification();
  EXPECT_EQ(runs.load(), 3);
}

TEST(RealSchedulerTest, CancelledAndPendingTasksNeverRunAndCancelWaitsForARunningOne) {
  bool late_ran = false;
  absl::Notification started, release;
  std::atomic<bool> finished{false};
  {
    RealScheduler scheduler;
    Scheduler::TaskId later =
        scheduler.RunAt(scheduler.clock().Now() + absl::Hours(1), [&] { late_ran = true; });
    EXPECT_TRUE(scheduler.Cancel(later));
    EXPECT_FALSE(scheduler.Cancel(later));
    Scheduler::TaskId running = scheduler.RunAt(scheduler.clock().Now(), [&] {
      started.Notify();
      release.WaitForNotification();
      finished = true;
    });
    started.WaitForNotification();
    std::thread releaser([&] { release.Notify(); });
    scheduler.Cancel(running);
    EXPECT_TRUE(finished.load());  // Cancel returned only after the task's run ended
    releaser.join();
    scheduler.RunAt(scheduler.clock().Now() + absl::Hours(2), [&] { late_ran = true; });
  }  // destroyed with a task pending: it never runs
  EXPECT_FALSE(late_ran);
}

}  // namespace
}  // namespace agentrt::world
