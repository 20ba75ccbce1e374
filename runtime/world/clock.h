// runtime/world/clock.h
//
// Time, injected. Nothing in runtime/, mcp/ or providers/ reads the system clock or waits on
// it except through a Clock, so tests and the simulator decide what time it is and when a wait
// ends.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace agentrt::world {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // WaitUntil blocks until `done` is notified (returns true) or this clock reaches `deadline`
  // (returns false; at once when it already has). Whoever notifies `done` calls Wake().
  virtual bool WaitUntil(absl::Notification& done, absl::Time deadline) const = 0;
  // Wake lets waiters see a notification (a no-op for clocks that wait on it directly).
  virtual void Wake() const {}
};

// RealClock reads the system clock.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;
};

// ManualClock is set and advanced by its owner; readings never change by themselves, and a
// WaitUntil ends only when the owner moves the clock to its deadline (or it is notified).
// Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(absl::Time start) : now_(start) {}
  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;
  void Wake() const override;
  void Set(absl::Time now);
  void Advance(absl::Duration d);

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::world
