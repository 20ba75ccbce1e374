// runtime/replay/replaying_launcher.h
//
// A Launcher whose processes are the ones a cassette recorded: Start answers with the recorded
// process (or error) when the run asks to start exactly what was recorded (argv, environment,
// folder), and every later call on the process is served from the cassette in order: the bytes
// it read, how its writes went, its exit. Nothing is started. A stderr sink gets the recorded
// chunks where they were recorded. See replay_cursor.h for order and mismatches.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/world/launcher.h"

namespace agentrt::replay {

class ReplayingLauncher final : public world::Launcher {
 public:
  // `cursor` must outlive this and every process it starts.
  explicit ReplayingLauncher(ReplayCursor& cursor) : cursor_(cursor) {}

  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;

 private:
  ReplayCursor& cursor_;
};

}  // namespace agentrt::replay
