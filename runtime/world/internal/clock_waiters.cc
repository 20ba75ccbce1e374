#include "runtime/world/internal/clock_waiters.h"

#include <algorithm>

namespace agentrt::world::internal {

bool ClockWaiters::Await(absl::Mutex& mu, const Clock& clock, absl::Time deadline,
                         absl::FunctionRef<bool()> ready) {
  while (!ready()) {
    absl::Notification changed;
    waiting_.push_back(&changed);
    mu.Unlock();
    bool notified = clock.WaitUntil(changed, deadline);
    mu.Lock();
    // Removed under the mutex: NotifyAll runs under it too, so nobody touches `changed` once it
    // goes out of scope.
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), &changed), waiting_.end());
    if (!notified) return ready();
  }
  return true;
}

void ClockWaiters::NotifyAll() {
  for (absl::Notification* n : waiting_) n->Notify();
  waiting_.clear();
}

}  // namespace agentrt::world::internal
