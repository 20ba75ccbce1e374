#include "runtime/world/real_scheduler.h"

#include <optional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/world/internal/task_queue.h"

namespace agentrt::world {

struct RealScheduler::State {
  absl::Mutex mu;
  absl::CondVar changed;  // a task was added or cancelled, a run finished, or stop
  internal::TaskQueue tasks ABSL_GUARDED_BY(mu);
  bool stop ABSL_GUARDED_BY(mu) = false;
  std::thread thread;

  void Loop() {
    absl::MutexLock lock(&mu);
    while (!stop) {
      std::optional<absl::Time> due = tasks.NextDue();
      if (!due.has_value()) {
        changed.Wait(&mu);
        continue;
      }
      if (*due > absl::Now()) {
        changed.WaitWithDeadline(&mu, *due);
        continue;
      }
      std::optional<internal::TaskQueue::Ready> ready =
          tasks.TakeDue(absl::InfiniteFuture(), std::this_thread::get_id());
      mu.Unlock();
      bool again = ready->body();
      mu.Lock();
      tasks.Finish(*std::move(ready), again);
      changed.SignalAll();
    }
  }
};

RealScheduler::RealScheduler() : state_(std::make_unique<State>()) {
  state_->thread = std::thread([s = state_.get()] { s->Loop(); });
}

RealScheduler::~RealScheduler() {
  {
    absl::MutexLock lock(&state_->mu);
    state_->stop = true;
    state_->changed.SignalAll();
  }
  state_->thread.join();
}

Scheduler::TaskId RealScheduler::RunAt(absl::Time at, absl::AnyInvocable<void()> task) {
  absl::MutexLock lock(&state_->mu);
  TaskId id = state_->tasks.Add(at, absl::ZeroDuration(), [task = std::move(task)]() mutable {
    task();
    return false;
  });
  state_->changed.SignalAll();
  return id;
}

Scheduler::TaskId RealScheduler::RunEvery(absl::Time first, absl::Duration period,
                                          absl::AnyInvocable<bool()> task) {
  absl::MutexLock lock(&state_->mu);
  TaskId id = state_->tasks.Add(first, period, std::move(task));
  state_->changed.SignalAll();
  return id;
}

bool RealScheduler::Cancel(TaskId id) {
  absl::MutexLock lock(&state_->mu);
  internal::TaskQueue::Cancelled cancelled = state_->tasks.Cancel(id);
  if (cancelled == internal::TaskQueue::Cancelled::kUnknown) return false;
  state_->changed.SignalAll();
  if (cancelled == internal::TaskQueue::Cancelled::kRunning &&
      state_->tasks.Runner(id) != std::this_thread::get_id()) {
    while (state_->tasks.IsRunning(id)) state_->changed.Wait(&state_->mu);
  }
  return true;
}

}  // namespace agentrt::world
