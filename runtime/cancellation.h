// runtime/cancellation.h
//
// How a caller stops a run it is driving (Driver::Start, Resume, Begin and Attach take one).
// Cancelling is cooperative and prompt: the driver checks before every step, before any tool
// starts and before any model call is dispatched, and a retry's backoff ends at once. A tool is
// told through ToolCall::Cancelled() and an agent through StepInput::cancellation; work that
// is done is always recorded:
//  - a tool that returns its outcome has it recorded as usual;
//  - a tool that stops without one (an error once cancelled) leaves its step interrupted, its
//    outcome unknown: resuming then waits for an operator if the tool is not read_only, as
//    after a crash;
//  - a model call already dispatched stays recorded with whatever it returned.
// The call then returns absl::Cancelled naming the run. The run stays RUNNING, its lease
// released, so a Resume (by anyone) goes on from where it stopped.
//
// Thread-safe: Cancel may be called from any thread, any number of times.
#pragma once

#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace agentrt {

class Cancellation {
 public:
  Cancellation() = default;
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Cancel asks the run to stop, and wakes whoever waits on notification().
  void Cancel();
  bool cancelled() const { return done_.HasBeenNotified(); }

  // For waits that must end when the run is cancelled (world::Clock::WaitUntil). While a
  // waker is registered, Cancel calls it after notifying (a clock's Wake()).
  absl::Notification& notification() const { return done_; }
  class Waker {
   public:
    Waker(const Cancellation* cancellation, std::function<void()> wake);
    ~Waker();
    Waker(const Waker&) = delete;
    Waker& operator=(const Waker&) = delete;

   private:
    const Cancellation* cancellation_;
    std::size_t slot_ = 0;
  };

 private:
  mutable absl::Notification done_;
  mutable absl::Mutex mu_;
  mutable std::vector<std::function<void()>> wakers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt
