#include "runtime/operator/approver/webhook/rate_limiter.h"

#include <algorithm>

namespace agentrt::approver::webhook {

void TokenBucket::Refill(absl::Time now, double rate, double burst) {
  if (now <= last) return;
  tokens = std::min(burst, tokens + absl::ToDoubleSeconds(now - last) * rate);
  last = now;
}

bool TokenBucket::Take() {
  if (tokens < 1) return false;
  tokens -= 1;
  return true;
}

RateLimiter::RateLimiter(const world::Clock& clock, double rate, int burst)
    : clock_(clock), rate_(rate), burst_(burst), bucket_{static_cast<double>(burst), clock.Now()} {}

bool RateLimiter::Allow() {
  absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  bucket_.Refill(now, rate_, burst_);
  return bucket_.Take();
}

}  // namespace agentrt::approver::webhook
