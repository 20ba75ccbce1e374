// runtime/operator/approver/webhook/rate_limiter.h
//
// A token bucket: `burst` tokens to start with, refilled at `rate` per second up to `burst`;
// each request takes one or is refused. Time is read from the clock it is given, so a test
// decides when tokens come back. Thread-safe.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"

namespace agentrt::approver::webhook {

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
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::approver::webhook
