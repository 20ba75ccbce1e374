#include "runtime/operator/approver/webhook/rate_limiter.h"

#include <algorithm>

namespace agentrt::approver::webhook {

RateLimiter::RateLimiter(const world::Clock& clock, double rate, int burst)
    : clock_(clock), rate_(rate), burst_(burst), tokens_(burst), last_(clock.Now()) {}

bool RateLimiter::Allow() {
  absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  // A clock that steps back refills nothing (and does not drain the bucket either).
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * rate_);
    last_ = now;
  }
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

}  // namespace agentrt::approver::webhook
