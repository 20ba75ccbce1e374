// runtime/world/scheduler.h
//
// Background work, injected: timers and repeating tasks (the lease heartbeat; later deadlines
// and retries that must fire while the caller is busy). Nothing in runtime/, mcp/ or providers/
// starts a thread or waits on the system clock by itself; it asks a Scheduler, so the
// composition root decides where and when the work runs.
//
//  - world::RealScheduler (real_scheduler.h) runs tasks on one thread of its own, on the system
//    clock.
//  - world::ManualClock (clock.h) runs them only when its clock is moved, on the thread that
//    moves it, in a fixed order: so a test or the simulator drives a run, its heartbeat and its
//    retries on one thread, and the same moves always run the same tasks in the same order.
//
// Order, for every implementation: tasks run one at a time, by due time, and tasks due at the
// same time in the order they were scheduled.
#pragma once

#include <cstdint>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace agentrt::world {

class Clock;  // clock.h

class Scheduler {
 public:
  // Identifies a scheduled task; never 0.
  using TaskId = std::uint64_t;

  virtual ~Scheduler() = default;

  // The clock the tasks' due times are on.
  virtual const Clock& clock() const = 0;

  // RunAt runs `task` once, when clock() reaches `at` (as soon as it can when it already has).
  virtual TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) = 0;

  // RunEvery runs `task` at `first`, then every `period` after it (due times are fixed from
  // `first`, so a run that was late is followed by the next on time; one that missed several
  // due times runs once for each), until it returns false or is cancelled. `period` must be
  // positive.
  virtual TaskId RunEvery(absl::Time first, absl::Duration period,
                          absl::AnyInvocable<bool()> task) = 0;

  // Cancel stops a task: once it returns, the task will not start again, and it is not running
  // — unless Cancel is called from inside the task itself, which then finishes its run and is
  // not repeated. Returns false when the task had already finished for good (or never existed).
  // Safe from any thread, and for a task that is running on another one (it waits for it).
  virtual bool Cancel(TaskId id) = 0;
};

// SchedulerWrapper forwards every call to a target scheduler, so a scheduler that changes one
// call overrides only that one (clock.h's ClockWrapper says why). The target is not owned and
// must outlive this.
class SchedulerWrapper : public Scheduler {
 public:
  explicit SchedulerWrapper(Scheduler& target) : target_(target) {}
  Scheduler& target() const { return target_; }
  const Clock& clock() const override { return target_.clock(); }
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override {
    return target_.RunAt(at, std::move(task));
  }
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override {
    return target_.RunEvery(first, period, std::move(task));
  }
  bool Cancel(TaskId id) override { return target_.Cancel(id); }

 private:
  Scheduler& target_;
};

}  // namespace agentrt::world
