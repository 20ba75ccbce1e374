// runtime/world/clock.h
//
// Time, injected. Nothing in runtime/, mcp/ or providers/ reads the system clock except
// through a Clock, so tests and the simulator decide what time it is. The waiting half of the
// interface (sleeps and deadlines) arrives with the first part that waits.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace agentrt::world {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// RealClock reads the system clock.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override;
};

// ManualClock is set and advanced by its owner; readings never change by themselves.
// Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(absl::Time start) : now_(start) {}
  absl::Time Now() const override;
  void Set(absl::Time now);
  void Advance(absl::Duration d);

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::world
