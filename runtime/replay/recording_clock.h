// runtime/replay/recording_clock.h
//
// A Clock that reads another and records every reading and every wait's outcome into a cassette
// under its name ("run", "lease", ...), so a replay reads exactly the times the recording did.
// Thread-safe when the inner clock is. A reading whose recording fails is still returned (a
// clock cannot fail); the recorder keeps the error (CassetteRecorder::status) for the
// composition root to report.
#pragma once

#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/world/clock.h"

namespace agentrt::replay {

class RecordingClock final : public world::ClockWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingClock(const world::Clock& inner, CassetteRecorder& recorder, std::string name)
      : ClockWrapper(inner), recorder_(recorder), name_(std::move(name)) {}

  absl::Time Now() const override;
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override;

 private:
  CassetteRecorder& recorder_;
  const std::string name_;
};

}  // namespace agentrt::replay
