#include "sim/stoppable_scheduler.h"

#include <utility>
#include <vector>

#include "runtime/world/clock.h"

namespace agentrt::sim {

world::Scheduler::TaskId StoppableScheduler::RunAt(absl::Time at, absl::AnyInvocable<void()> task) {
  auto one_off = std::make_shared<OneOff>();
  one_off->task = std::move(task);
  one_off->id = target().RunAt(at, [this, one_off] {
    if (one_off->cancelled) return;
    if (stopped_) {
      one_off->came_due = true;
      deferred_.push_back(one_off);
      return;
    }
    Run(*one_off);
  });
  one_offs_.emplace(one_off->id, one_off);
  return one_off->id;
}

world::Scheduler::TaskId StoppableScheduler::RunEvery(absl::Time first, absl::Duration period,
                                                      absl::AnyInvocable<bool()> task) {
  auto shared = std::make_shared<absl::AnyInvocable<bool()>>(std::move(task));
  return target().RunEvery(first, period, [this, shared] { return stopped_ || (*shared)(); });
}

bool StoppableScheduler::Cancel(TaskId id) {
  bool deferred = false;
  if (auto it = one_offs_.find(id); it != one_offs_.end()) {
    // Came due while stopped and not run yet: it never runs now.
    deferred = !it->second->cancelled && it->second->came_due;
    it->second->cancelled = true;
    one_offs_.erase(it);
  }
  return target().Cancel(id) || deferred;
}

void StoppableScheduler::Wake() {
  stopped_ = false;
  std::vector<std::shared_ptr<OneOff>> due = std::move(deferred_);
  deferred_.clear();
  for (std::shared_ptr<OneOff>& one_off : due) {
    target().RunAt(target().clock().Now(), [this, one_off] {
      if (!one_off->cancelled) Run(*one_off);
    });
  }
}

void StoppableScheduler::Run(OneOff& one_off) {
  one_offs_.erase(one_off.id);
  one_off.task();
}

}  // namespace agentrt::sim
