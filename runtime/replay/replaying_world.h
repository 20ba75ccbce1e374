// runtime/replay/replaying_world.h
//
// A whole world played back from one cassette: a replaying clock, scheduler, entropy,
// environment, launcher and network (under the names recording_world.h records them with) and
// strict replaying models, all on one cursor, so the run must ask for exactly what the recorded run
// asked, in the same order. Nothing real is reached: no clock, thread, process or network. Finish
// checks that everything was asked for and that the run wrote the recorded audit log.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_clock.h"
#include "runtime/replay/replaying_entropy.h"
#include "runtime/replay/replaying_environment.h"
#include "runtime/replay/replaying_launcher.h"
#include "runtime/replay/replaying_model.h"
#include "runtime/replay/replaying_network.h"
#include "runtime/replay/replaying_scheduler.h"
#include "runtime/world/world.h"

namespace agentrt::replay {

class ReplayingWorld {
 public:
  // Serves every part from `cassette`. Its world has no filesystem: a replay's inputs are the
  // cassette's (CassetteHeader::inputs), and the composition root writes what it keeps.
  explicit ReplayingWorld(Cassette cassette);

  const world::World& world() const { return world_; }
  // ReplayModel is a strict replaying model named `name`, owned by this world.
  Model& ReplayModel(std::string name);
  ReplayCursor& cursor() { return cursor_; }

  // Finish ends the replay: the cursor's Finish (every exchange served, nothing left over),
  // then the audit log's head `head` against the recorded one. Errors: the cursor's;
  // FailedPrecondition when the heads differ (naming both) or the cassette recorded none.
  absl::Status Finish(const ChainHead& head);

 private:
  ReplayCursor cursor_;
  ReplayingClock clock_;
  ReplayingScheduler scheduler_;
  ReplayingEntropy entropy_;
  ReplayingEnvironment environment_;
  ReplayingLauncher launcher_;
  ReplayingNetwork network_;
  std::vector<std::unique_ptr<ReplayingModel>> models_;
  world::World world_;
};

}  // namespace agentrt::replay
