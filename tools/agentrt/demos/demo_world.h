// tools/agentrt/demos/demo_world.h
//
// The world a demonstration runs in, chosen on its command line: the world it builds (real, or
// deterministic), that world recorded into a new cassette (--record), or a cassette played back
// with no world at all (--replay, and `agentrt replay`). The demonstration is written once
// against world() and ModelFor(); Finish ends the recording with the audit log's head, or checks a
// replay served every exchange and ended at the recorded head.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_world.h"
#include "runtime/replay/replaying_world.h"
#include "runtime/store/store.h"
#include "runtime/world/world.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

class DemoWorld {
 public:
  // As built: `inner`'s parts must outlive this.
  static std::unique_ptr<DemoWorld> AsBuilt(const world::World& inner);
  // Recording `inner` into a new cassette at `path`, written through `inner`'s filesystem (which
  // must be set), whose header names `program` (the demo's command line without "agentrt") for
  // `agentrt replay`. Errors: the recorder's (an existing file is refused).
  static absl::StatusOr<std::unique_ptr<DemoWorld>> Recording(const world::World& inner,
                                                              const std::string& path,
                                                              std::vector<std::string> program);
  // Playing `cassette` back.
  static std::unique_ptr<DemoWorld> Replaying(replay::Cassette cassette);

  const world::World& world() const { return world_; }
  // The model the demo's agent asks: `inner` as built, `inner` recorded, or the recording of
  // model `name` played back (where `inner` is not asked).
  agentrt::Model& ModelFor(agentrt::Model& inner);

  bool recording() const { return recording_ != nullptr; }
  bool replaying() const { return replaying_ != nullptr; }

  // Begin checks `store` suits the world: a recording or a replay needs a database with no
  // event yet, since the chain head it records or checks covers the whole audit log.
  // Errors: FailedPrecondition saying so.
  absl::Status Begin(store::Store& store) const;

  // Finish: recording, stores `store`'s head in the cassette; replaying, checks every exchange
  // was served and the head is the recorded one. Returns a line for people saying what it did.
  // Errors: the recorder's or the replay's.
  absl::StatusOr<std::string> Finish(store::Store& store);

 private:
  DemoWorld() = default;

  world::World world_;
  std::unique_ptr<replay::CassetteRecorder> recorder_;
  std::unique_ptr<replay::RecordingWorld> recording_;
  std::unique_ptr<replay::ReplayingWorld> replaying_;
};

// EventCount is how many events run `run_id` holds so far (0 for "" or a run the store cannot
// read), counted without reading them: a resumed demonstration prints only the ones after.
std::size_t EventCount(store::Store& store, const std::string& run_id);

// The flags of a demonstration that can be recorded and replayed.
struct RecordReplayFlags {
  std::string db;      // the database path, resolved (its --db, else $AGENTRT_DB)
  std::string record;  // record the run into this cassette (a new file)
  std::string replay;  // replay the run from this cassette
};

// ParseRecordReplay reads `command`'s --db, --record and --replay (--help as ParseFlags does)
// and refuses, as usage errors: --record with --replay; neither, when `one_required`; a
// --record cassette that exists (recording never mixes runs); no database. nullopt with
// `*exit` set when the command is done.
std::optional<RecordReplayFlags> ParseRecordReplay(Io& io, const std::string& command,
                                                   std::span<const std::string> args,
                                                   std::string_view help, bool one_required,
                                                   int* exit);

}  // namespace agentrt::cli
