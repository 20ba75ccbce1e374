// runtime/world/clock.h
//
// Time, injected. Nothing in runtime/, mcp/ or providers/ reads the system clock or waits on
// it except through a Clock, so tests and the simulator decide what time it is and when a wait
// ends.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/world/scheduler.h"

namespace agentrt::world {

namespace internal {
class TaskQueue;  // internal/task_queue.h
}  // namespace internal

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // WaitUntil blocks until `done` is notified (returns true) or this clock reaches `deadline`
  // (returns false; at once when it already has). Whoever notifies `done` calls Wake().
  virtual bool WaitUntil(absl::Notification& done, absl::Time deadline) const = 0;
  // Wake lets waiters see a notification (a no-op for clocks that wait on it directly).
  virtual void Wake() const {}
};

// ClockWrapper forwards every call to a target clock: a clock that changes one call (records
// it, watches it, skews it) derives from it and overrides only that call. The target is not owned
// and must outlive this.
class ClockWrapper : public Clock {
 public:
  explicit ClockWrapper(const Clock& target) : target_(target) {}
  const Clock& target() const { return target_; }
  absl::Time Now() const override { return target_.Now(); }
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override {
    return target_.WaitUntil(done, deadline);
  }
  void Wake() const override { target_.Wake(); }

 private:
  const Clock& target_;
};

// RealClock reads the system clock. Only composition roots (tools/agentrt, a product's main,
// tests that need wall time) construct one; the engine never does.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;
};

// ManualClock is the manual world's clock and scheduler: its readings change only when its
// owner moves it (Set, Advance) — or, with Waits::kJump, when a wait moves it — and the tasks
// scheduled on it run only then, on the thread that moves it, in due order (scheduler.h). While
// a task runs the clock reads the task's due time, so a heartbeat due at 10 s that runs during
// a move from 0 to 25 s sees 10 s. Thread-safe.
//
//  - Waits::kBlock (the default): WaitUntil blocks until another thread moves the clock to the
//    deadline or the wait is notified.
//  - Waits::kJump: WaitUntil moves the clock itself to its deadline, running the tasks due on the
//    way and stopping at the one that notifies the wait, if any. For one thread driving
//    everything (single-threaded tests, the simulator): a 30-second backoff takes no time.
//
// `tick` > 0 makes every reading `tick` later than the one before (a deterministic clock for
// demos and for tests that count readings). Ticks never run tasks: a reading may be taken
// inside a store transaction, where a task that writes would deadlock.
//
//  - Repeats::kEvery (the default): a repeating task runs at every one of its due times a move
//    passes.
//  - Repeats::kLatest: a repeating task due several times over a move, with no other task due
//    in between, runs once, at the last of those times, as a timer that missed its beats fires
//    once. For repeating tasks whose latest run is all that counts (a lease's heartbeat): a
//    wait of a day then costs one run of the heartbeat, not 8,640 (the simulator).
class ManualClock final : public Clock, public Scheduler {
 public:
  enum class Waits { kBlock, kJump };
  enum class Repeats { kEvery, kLatest };
  struct Options {
    Waits waits = Waits::kBlock;
    absl::Duration tick = absl::ZeroDuration();
    Repeats repeats = Repeats::kEvery;
  };

  explicit ManualClock(absl::Time start) : ManualClock(start, Options{}) {}
  ManualClock(absl::Time start, Options options);
  ~ManualClock() override;

  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;
  void Wake() const override;

  const Clock& clock() const override { return *this; }
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override;
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override;
  bool Cancel(TaskId id) override;

  // Set and Advance move the clock and run every task due by the new time (Advance by zero
  // runs the tasks already due). Moving it back runs nothing.
  void Set(absl::Time now);
  void Advance(absl::Duration d);

  // How many readings were taken (Now() calls).
  std::int64_t readings() const;
  // With Waits::kJump: how far each wait moved the clock, in order.
  std::vector<absl::Duration> jumps() const;
  // Tasks scheduled and not yet finished for good.
  std::size_t pending_tasks() const;
  // How many times a scheduled task has run.
  std::int64_t task_runs() const;

 private:
  // Moves the clock to `target`, running the tasks due by then; stops early, at the task that
  // notified `done`, when given.
  void MoveTo(absl::Time target, const absl::Notification* done) const;

  const Options options_;
  mutable absl::Mutex mu_;
  // Mutable: a Clock is const to its readers; moving it is its owner's (or, with kJump, a
  // wait's) business.
  mutable absl::Time now_ ABSL_GUARDED_BY(mu_);
  mutable std::int64_t readings_ ABSL_GUARDED_BY(mu_) = 0;
  mutable std::vector<absl::Duration> jumps_ ABSL_GUARDED_BY(mu_);
  mutable std::int64_t task_runs_ ABSL_GUARDED_BY(mu_) = 0;
  const std::unique_ptr<internal::TaskQueue> tasks_ ABSL_PT_GUARDED_BY(mu_);
};

}  // namespace agentrt::world
