#include "runtime/world/clock.h"

namespace agentrt::world {

absl::Time RealClock::Now() const { return absl::Now(); }

bool RealClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  return done.WaitForNotificationWithDeadline(deadline);
}

bool ManualClock::WaitUntil(absl::Notification& done, absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  // Conditions are re-evaluated whenever mu_ is released: by Set, Advance and Wake.
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return done.HasBeenNotified() || now_ >= deadline;
  };
  mu_.Await(absl::Condition(&ready));
  return done.HasBeenNotified();
}

void ManualClock::Wake() const { absl::MutexLock lock(&mu_); }

absl::Time ManualClock::Now() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

void ManualClock::Set(absl::Time now) {
  absl::MutexLock lock(&mu_);
  now_ = now;
}

void ManualClock::Advance(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  now_ += d;
}

}  // namespace agentrt::world
