// sim/stoppable_scheduler.h
//
// The scheduler of one simulated runtime, which the simulator can stop as a paused process is
// stopped (a stale owner, play.h): while it is stopped, the runtime's timers do not fire. A
// repeating task skips the beats that come due (a paused process's heartbeat does not beat); a
// one-off task that comes due waits, and runs once the runtime wakes (Wake), unless it was
// cancelled meanwhile. Everything else is the target scheduler's (the virtual clock).
//
// One thread: the simulator's. The target must outlive this and every task scheduled through it.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "runtime/world/scheduler.h"

namespace agentrt::sim {

class StoppableScheduler final : public world::SchedulerWrapper {
 public:
  using SchedulerWrapper::SchedulerWrapper;

  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override;
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override;
  bool Cancel(TaskId id) override;

  void Stop() { stopped_ = true; }
  // Wake lets the timers fire again; the one-off tasks that came due while stopped run at the
  // target's next move, in the order they came due.
  void Wake();
  bool stopped() const { return stopped_; }

 private:
  struct OneOff {
    TaskId id = 0;  // the target's
    absl::AnyInvocable<void()> task;
    bool came_due = false;  // while stopped: waiting for Wake
    bool cancelled = false;
  };
  void Run(OneOff& one_off);

  bool stopped_ = false;
  std::map<TaskId, std::shared_ptr<OneOff>> one_offs_;  // scheduled, neither run nor cancelled
  std::vector<std::shared_ptr<OneOff>> deferred_;       // came due while stopped, in that order
};

}  // namespace agentrt::sim
