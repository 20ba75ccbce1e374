// runtime/world/internal/clock_waiters.h
//
// Waiting for a condition on an injected Clock. Clock::WaitUntil waits for one Notification or
// a deadline; a process's state changes many times (bytes arrive, the child exits, Close
// begins), so each waiter registers a Notification of its own here, and whoever changes the
// state under the owner's mutex notifies them all; each waiter then re-checks its condition.
//
// Not thread-safe by itself: every call is made with the owner's mutex held.
#pragma once

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"

namespace agentrt::world::internal {

class ClockWaiters {
 public:
  // Await returns once `ready()` holds (true) or `clock` reached `deadline` (false, or true
  // when `ready()` holds at that moment). `mu` is held on entry and on return, released while
  // waiting; `ready` is evaluated with it held.
  bool Await(absl::Mutex& mu, const Clock& clock, absl::Time deadline,
             absl::FunctionRef<bool()> ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // NotifyAll wakes every waiter registered now. Called with the owner's mutex held; the caller
  // calls clock.Wake() once it has released the mutex.
  void NotifyAll();

 private:
  std::vector<absl::Notification*> waiting_;
};

}  // namespace agentrt::world::internal
