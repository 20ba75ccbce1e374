// runtime/replay/cassette_recorder.h
//
// The cassette a run is being recorded into. Every recording wrapper of a run appends to one
// recorder (the model's now; the clock's, launcher's and network's as the simulator grows),
// so the cassette keeps the run's exchanges in the order they happened.
//
// A file-backed recorder saves the cassette after every change, before the call returns,
// through WriteFileAtomically: a crash leaves the cassette as it was before the change or
// after it, never torn. Each save rewrites the whole file, so recording costs time growing
// with the square of the exchanges: right for recorded runs, not for an endless stream.
//
// Re-recording (reference/core.md §9): the first model exchange a recorder records for a key
// removes that key's exchanges already in the cassette (from an earlier session) and starts
// its sequence again at ordinal 1. So a key's sequence is always the one the latest recorder
// saw, in its order, and a shorter re-recording leaves no stale tail behind.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/model.h"
#include "runtime/replay/cassette.h"

namespace agentrt::replay {

class CassetteRecorder {
 public:
  // An in-memory recorder: starts empty and writes no file (cassette() has the result).
  CassetteRecorder();

  // Open records into the cassette file at `path`. An existing file is read with
  // ReadCassette's checks and refused if it comes from a newer build (recording would drop
  // what this build does not know); a missing one is created at once, so a path that cannot
  // be written fails here rather than at the first exchange.
  static absl::StatusOr<std::unique_ptr<CassetteRecorder>> Open(const std::string& path);

  // RecordModel appends the successful call of model `model` and returns the exchange as
  // recorded (with its key and ordinal). Errors: InvalidArgument when the exchange would not
  // read back (say, text that is not UTF-8), and the save's errors naming the file. On error
  // the cassette, in memory and on disk, is unchanged.
  absl::StatusOr<ModelExchange> RecordModel(std::string_view model, const ModelRequest& request,
                                            const ModelResponse& response);

  // SetChainHead records the head of the audit log the run wrote (the simulator calls it
  // when the run ends). Errors: InvalidArgument for a head that breaks cassette.h's rule,
  // and the save's.
  absl::Status SetChainHead(const ChainHead& head);

  // SetNotes replaces the cassette's free-text notes. Errors: InvalidArgument when not UTF-8,
  // and the save's.
  absl::Status SetNotes(std::string_view notes);

  // A copy of the cassette as recorded so far.
  Cassette cassette() const;
  // The file, or "" for an in-memory recorder.
  const std::string& path() const { return path_; }

 private:
  CassetteRecorder(std::string path, Cassette cassette);
  // Persist writes `cassette` to the file, when there is one. Callers change the cassette in
  // memory only once it is persisted, or undo the change when it fails.
  absl::Status Persist(const Cassette& cassette) const;

  const std::string path_;
  mutable absl::Mutex mu_;
  Cassette cassette_ ABSL_GUARDED_BY(mu_);
  // How many exchanges this recorder has recorded per key; a key in here has no exchanges
  // from an earlier session left in the cassette.
  absl::flat_hash_map<std::string, std::uint32_t> recorded_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::replay
