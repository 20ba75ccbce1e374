// runtime/replay/recording_world.h
//
// A whole world recorded into one cassette: each part of a real (or any) world wrapped in its
// Recording* (clock "run", scheduler "lease" with its clock, entropy "ids", environment,
// launcher, network),
// all appending to one recorder, so the cassette holds every exchange in the one order it
// happened. Models are wrapped one by one (Record). What a composition root uses to record a
// run; replaying_world.h is its counterpart.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "runtime/model.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_clock.h"
#include "runtime/replay/recording_entropy.h"
#include "runtime/replay/recording_environment.h"
#include "runtime/replay/recording_launcher.h"
#include "runtime/replay/recording_model.h"
#include "runtime/replay/recording_network.h"
#include "runtime/replay/recording_scheduler.h"
#include "runtime/world/world.h"

namespace agentrt::replay {

// The names the parts are recorded under (a replaying world uses the same).
inline constexpr char kRunClock[] = "run";
inline constexpr char kLeaseScheduler[] = "lease";
inline constexpr char kIds[] = "ids";

class RecordingWorld {
 public:
  // Wraps every part of `inner` that is set (clock, scheduler and entropy are required), but
  // its filesystem, which is handed on as it is: what a program reads and writes as files are
  // its inputs and outputs, not exchanges (docs/decisions/0020-files-are-a-world-interface.md).
  // `inner`'s parts and `recorder` must outlive this.
  RecordingWorld(const world::World& inner, CassetteRecorder& recorder);

  // The recording world: hand it to what runs.
  const world::World& world() const { return world_; }
  // Record wraps `model` in a RecordingModel owned by this world.
  Model& Record(Model& model);
  CassetteRecorder& recorder() { return recorder_; }

 private:
  CassetteRecorder& recorder_;
  RecordingClock clock_;
  RecordingScheduler scheduler_;
  RecordingEntropy entropy_;
  std::optional<RecordingEnvironment> environment_;
  std::optional<RecordingLauncher> launcher_;
  std::optional<RecordingNetwork> network_;
  std::vector<std::unique_ptr<RecordingModel>> models_;
  world::World world_;
};

}  // namespace agentrt::replay
