// runtime/operator/approver/webhook/rate_limiter.h
//
// A token bucket: `burst` tokens to start with, refilled at `rate` per second up to `burst`;
// each request takes one or is refused. Time is read from the clock it is given, so a test
// decides when tokens come back. TokenBucket is the arithmetic (not thread-safe); RateLimiter
// one bucket behind a lock, the budget every verified request shares (address_limiter.h keeps
// one bucket per address). Thread-safe.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"

namespace agentrt::approver::webhook {

struct TokenBucket {
  double tokens;
  absl::Time last;

  // Refill adds what the time since `last` earned at `rate`, up to `burst`. A clock that steps
  // back refills nothing (and does not drain the bucket either).
  void Refill(absl::Time now, double rate, double burst);
  // Take takes a token when one is left.
  bool Take();
};

class RateLimiter {
 public:
  RateLimiter(const world::Clock& clock, double rate, int burst);

  // Allow takes a token when one is left.
  bool Allow();

 private:
  const world::Clock& clock_;
  const double rate_;
  const double burst_;
  absl::Mutex mu_;
  TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::approver::webhook
