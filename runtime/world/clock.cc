#include "runtime/world/clock.h"

#include <thread>
#include <utility>

#include "runtime/world/internal/task_queue.h"

namespace agentrt::world {

absl::Time RealClock::Now() const { return absl::Now(); }

bool RealClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  return done.WaitForNotificationWithDeadline(deadline);
}

ManualClock::ManualClock(absl::Time start, Options options)
    : options_(options), now_(start), tasks_(std::make_unique<internal::TaskQueue>()) {}

ManualClock::~ManualClock() = default;

absl::Time ManualClock::Now() const {
  absl::MutexLock lock(&mu_);
  ++readings_;
  now_ += options_.tick;
  return now_;
}

bool ManualClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  if (options_.waits == Waits::kJump) {
    if (done.HasBeenNotified()) return true;
    absl::Time from;
    {
      absl::MutexLock lock(&mu_);
      from = now_;
    }
    if (deadline > from) MoveTo(deadline, &done);
    absl::MutexLock lock(&mu_);
    jumps_.push_back(now_ - from);
    return done.HasBeenNotified();
  }
  absl::MutexLock lock(&mu_);
  // Conditions are re-evaluated whenever mu_ is released: by Set, Advance and Wake.
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return done.HasBeenNotified() || now_ >= deadline;
  };
  mu_.Await(absl::Condition(&ready));
  return done.HasBeenNotified();
}

void ManualClock::Wake() const { absl::MutexLock lock(&mu_); }

Scheduler::TaskId ManualClock::RunAt(absl::Time at, absl::AnyInvocable<void()> task) {
  absl::MutexLock lock(&mu_);
  return tasks_->Add(at, absl::ZeroDuration(), [task = std::move(task)]() mutable {
    task();
    return false;
  });
}

Scheduler::TaskId ManualClock::RunEvery(absl::Time first, absl::Duration period,
                                        absl::AnyInvocable<bool()> task) {
  absl::MutexLock lock(&mu_);
  return tasks_->Add(first, period, std::move(task));
}

bool ManualClock::Cancel(TaskId id) {
  absl::MutexLock lock(&mu_);
  internal::TaskQueue::Cancelled cancelled = tasks_->Cancel(id);
  if (cancelled == internal::TaskQueue::Cancelled::kUnknown) return false;
  if (cancelled == internal::TaskQueue::Cancelled::kRunning &&
      tasks_->Runner(id) != std::this_thread::get_id()) {
    auto finished = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !tasks_->IsRunning(id); };
    mu_.Await(absl::Condition(&finished));
  }
  return true;
}

void ManualClock::MoveTo(absl::Time target, const absl::Notification* done) const {
  for (;;) {
    std::optional<internal::TaskQueue::Ready> ready;
    {
      absl::MutexLock lock(&mu_);
      // One task at a time: a second thread moving the clock waits for the first's task (a
      // task that moves the clock itself runs the tasks that makes due, nested).
      std::thread::id self = std::this_thread::get_id();
      auto free = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !tasks_->RunningElsewhere(self);
      };
      mu_.Await(absl::Condition(&free));
      ready = tasks_->TakeDue(target, self, options_.repeats == Repeats::kLatest);
      if (!ready.has_value()) {
        if (target > now_) now_ = target;
        return;
      }
      if (ready->due > now_) now_ = ready->due;
      ++task_runs_;
    }
    bool again = ready->body();
    {
      absl::MutexLock lock(&mu_);
      tasks_->Finish(*std::move(ready), again);
    }
    if (done != nullptr && done->HasBeenNotified()) return;
  }
}

void ManualClock::Set(absl::Time now) {
  {
    absl::MutexLock lock(&mu_);
    if (now < now_) {
      now_ = now;
      return;
    }
  }
  MoveTo(now, nullptr);
}

void ManualClock::Advance(absl::Duration d) {
  absl::Time target;
  {
    absl::MutexLock lock(&mu_);
    target = now_ + d;
  }
  Set(target);
}

std::int64_t ManualClock::readings() const {
  absl::MutexLock lock(&mu_);
  return readings_;
}

std::vector<absl::Duration> ManualClock::jumps() const {
  absl::MutexLock lock(&mu_);
  return jumps_;
}

std::int64_t ManualClock::task_runs() const {
  absl::MutexLock lock(&mu_);
  return task_runs_;
}

std::size_t ManualClock::pending_tasks() const {
  absl::MutexLock lock(&mu_);
  return tasks_->size();
}

}  // namespace agentrt::world
