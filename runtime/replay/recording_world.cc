#include "runtime/replay/recording_world.h"

namespace agentrt::replay {

RecordingWorld::RecordingWorld(const world::World& inner, CassetteRecorder& recorder)
    : recorder_(recorder),
      clock_(*inner.clock, recorder, kRunClock),
      scheduler_(*inner.scheduler, recorder, kLeaseScheduler),
      entropy_(*inner.entropy, recorder, kIds) {
  world_.clock = &clock_;
  world_.scheduler = &scheduler_;
  world_.entropy = &entropy_;
  if (inner.environment != nullptr) {
    world_.environment = &environment_.emplace(*inner.environment, recorder);
  }
  if (inner.launcher != nullptr) world_.launcher = &launcher_.emplace(*inner.launcher, recorder);
  if (inner.network != nullptr) world_.network = &network_.emplace(*inner.network, recorder);
  // Files are the program's inputs and outputs, not exchanges of the run (docs/decisions/
  // 0020-files-are-a-world-interface.md): they pass through unrecorded.
  world_.filesystem = inner.filesystem;
}

Model& RecordingWorld::Record(Model& model) {
  models_.push_back(std::make_unique<RecordingModel>(model, recorder_));
  return *models_.back();
}

}  // namespace agentrt::replay
