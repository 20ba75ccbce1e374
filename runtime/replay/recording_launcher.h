// runtime/replay/recording_launcher.h
//
// A Launcher that starts processes with another and records every exchange with them: each
// start (argv, environment, folder, and the process number or the error), every write to stdin
// and what it returned, every read of stdout with the bytes it got, stderr tails, chunks handed
// to a stderr sink, signals, waits and closes. A replay then plays the same processes without
// starting any (replaying_launcher.h).
//
// Thread-safe when the inner launcher is. Every process it starts must be destroyed before it.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/world/launcher.h"

namespace agentrt::replay {

class RecordingLauncher final : public world::LauncherWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingLauncher(world::Launcher& inner, CassetteRecorder& recorder)
      : LauncherWrapper(inner), recorder_(recorder) {}

  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;

 private:
  CassetteRecorder& recorder_;
};

}  // namespace agentrt::replay
