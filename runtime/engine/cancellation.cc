#include "runtime/cancellation.h"

#include <utility>

namespace agentrt {

void Cancellation::Cancel() {
  std::vector<std::function<void()>> wakers;
  {
    absl::MutexLock lock(&mu_);
    if (!done_.HasBeenNotified()) done_.Notify();
    wakers = wakers_;
  }
  for (const std::function<void()>& wake : wakers) {
    if (wake) wake();
  }
}

Cancellation::Waker::Waker(const Cancellation* cancellation, std::function<void()> wake)
    : cancellation_(cancellation) {
  if (cancellation_ == nullptr) return;
  absl::MutexLock lock(&cancellation_->mu_);
  slot_ = cancellation_->wakers_.size();
  cancellation_->wakers_.push_back(std::move(wake));
}

Cancellation::Waker::~Waker() {
  if (cancellation_ == nullptr) return;
  absl::MutexLock lock(&cancellation_->mu_);
  cancellation_->wakers_[slot_] = nullptr;
}

}  // namespace agentrt
