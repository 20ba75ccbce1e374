#include "runtime/operator/approver/webhook/address_limiter.h"

namespace agentrt::approver::webhook {

AddressLimiter::AddressLimiter(const world::Clock& clock, double rate, int burst,
                               std::size_t max_addresses)
    : clock_(clock), rate_(rate), burst_(burst), max_addresses_(max_addresses) {}

std::list<AddressLimiter::Entry>::iterator AddressLimiter::Find(std::string_view address,
                                                                absl::Time now) {
  auto kept = kept_.find(std::string(address));
  if (kept == kept_.end()) return by_charge_.end();
  std::list<Entry>::iterator entry = kept->second;
  entry->second.Refill(now, rate_, burst_);
  if (entry->second.tokens >= burst_) {
    kept_.erase(kept);
    by_charge_.erase(entry);
    return by_charge_.end();
  }
  return entry;
}

bool AddressLimiter::Spent(std::string_view address) {
  absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  std::list<Entry>::iterator entry = Find(address, now);
  return entry != by_charge_.end() && entry->second.tokens < 1;
}

void AddressLimiter::Charge(std::string_view address) {
  absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  std::list<Entry>::iterator entry = Find(address, now);
  if (entry == by_charge_.end()) {
    if (kept_.size() >= max_addresses_) {
      kept_.erase(by_charge_.back().first);
      by_charge_.pop_back();
    }
    by_charge_.emplace_front(std::string(address), TokenBucket{burst_, now});
    kept_.emplace(by_charge_.front().first, by_charge_.begin());
  } else {
    by_charge_.splice(by_charge_.begin(), by_charge_, entry);
  }
  by_charge_.front().second.Take();
}

std::size_t AddressLimiter::addresses() const {
  absl::MutexLock lock(&mu_);
  return kept_.size();
}

}  // namespace agentrt::approver::webhook
