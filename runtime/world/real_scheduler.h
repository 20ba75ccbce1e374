// runtime/world/real_scheduler.h
//
// The real world's Scheduler (scheduler.h): one thread of its own, started by the constructor
// and joined by the destructor, runs every task on the system clock, one at a time in due
// order. Constructed by composition roots only (tools/agentrt, a product's main); the engine
// never starts a thread itself. Tasks still waiting when it is destroyed never run; a task that
// is running is finished first. Thread-safe.
#pragma once

#include <memory>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/scheduler.h"

namespace agentrt::world {

class RealScheduler final : public Scheduler {
 public:
  RealScheduler();
  ~RealScheduler() override;
  RealScheduler(const RealScheduler&) = delete;
  RealScheduler& operator=(const RealScheduler&) = delete;

  const Clock& clock() const override { return clock_; }
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override;
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override;
  bool Cancel(TaskId id) override;

 private:
  struct State;
  RealClock clock_;
  std::unique_ptr<State> state_;
};

}  // namespace agentrt::world
