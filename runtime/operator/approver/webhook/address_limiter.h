// runtime/operator/approver/webhook/address_limiter.h
//
// A token bucket (rate_limiter.h) per remote address, for what an address may spend on
// requests that fail: each failure is charged to its address, and an address whose bucket is
// empty is refused, whatever it sends, until the clock gives it a token back. Other addresses
// are not affected, so one address's flood cannot silence another's signed requests.
//
// At most `max_addresses` buckets are kept: a bucket that has refilled is forgotten (a full
// bucket is what an unknown address starts with), and when every kept address is still paying,
// the one charged longest ago is forgotten to make room. The bound is on memory: a flood from
// more addresses than that is left to the transport's connection caps. Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/operator/approver/webhook/rate_limiter.h"
#include "runtime/world/clock.h"

namespace agentrt::approver::webhook {

class AddressLimiter {
 public:
  AddressLimiter(const world::Clock& clock, double rate, int burst, std::size_t max_addresses);

  // Spent is true while `address` has no token left.
  bool Spent(std::string_view address);
  // Charge takes a token from `address` (from a full bucket when it is not kept).
  void Charge(std::string_view address);

  // How many addresses are kept.
  std::size_t addresses() const;

 private:
  using Entry = std::pair<std::string, TokenBucket>;
  // Refills the kept bucket of `address` and returns it; end() when none is kept (or the
  // bucket was full again and is forgotten).
  std::list<Entry>::iterator Find(std::string_view address, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const world::Clock& clock_;
  const double rate_;
  const double burst_;
  const std::size_t max_addresses_;
  mutable absl::Mutex mu_;
  std::list<Entry> by_charge_ ABSL_GUARDED_BY(mu_);  // the most recently charged first
  std::unordered_map<std::string, std::list<Entry>::iterator> kept_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::approver::webhook
