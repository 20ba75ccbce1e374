#include "runtime/world/clock.h"

namespace agentrt::world {

absl::Time RealClock::Now() const { return absl::Now(); }

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
