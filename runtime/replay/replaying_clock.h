// runtime/replay/replaying_clock.h
//
// A Clock whose readings and waits are the ones a cassette recorded under its name, served in
// order through the replay's cursor (replay_cursor.h); a wait returns at once with its recorded
// outcome. A clock cannot fail: when the replay has stopped (or this reading is not the next
// exchange, which stops it) Now returns the last time this clock gave, and the composition root
// learns of it from the cursor.
#pragma once

#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/world/clock.h"

namespace agentrt::replay {

class ReplayingClock final : public world::Clock {
 public:
  // `cursor` must outlive this.
  ReplayingClock(ReplayCursor& cursor, std::string name)
      : cursor_(cursor), name_(std::move(name)) {}

  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;

 private:
  ReplayCursor& cursor_;
  const std::string name_;
  // What Now gives when the replay has stopped.
  mutable absl::Time last_ = absl::UnixEpoch();
};

}  // namespace agentrt::replay
