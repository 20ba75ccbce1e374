// runtime/replay/replay_cursor.h
//
// The one cursor a replay serves a cassette's exchanges through, in exact order, whatever world
// interface asks: every Replaying* (clock, entropy, scheduler, launcher, network, model) of a
// replayed run shares one, so the run must ask the world for exactly what the recorded run
// asked, in the same order. The first call that differs stops the replay: the error names the
// exchange (its number in the session, from 1) and shows both sides, escaped and bounded, and
// every later call fails with it. A replay whose run ends with recorded exchanges left over is
// an error too (Finish).
//
// Two kinds of exchange are delivered by the cursor itself rather than asked for:
//  - a chunk of a process's stderr goes to the sink that process was started with;
//  - a scheduled task's run is played by calling the task (through the replaying scheduler's
//    runner), whose own exchanges are then served from those the run recorded. A task runs
//    where it was recorded, except that a clock reading or an entropy draw never runs one
//    first (they may be taken inside a store transaction, where a task that writes would
//    deadlock): the run is held back to the next other call, or to Finish.
//
// Calls must come one at a time (a replay is one thread's work; the replaying scheduler starts
// no thread); a task run by the cursor calls back into it on the same thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/replay/cassette.h"

namespace agentrt::replay {

class ReplayCursor {
 public:
  // Serves the last recording session of `cassette` (a cassette is normally one session; see
  // cassette_recorder.h on re-recording), or session `session`.
  explicit ReplayCursor(Cassette cassette);
  ReplayCursor(Cassette cassette, std::size_t session);
  ReplayCursor(const ReplayCursor&) = delete;
  ReplayCursor& operator=(const ReplayCursor&) = delete;

  // Serve returns the recorded exchange that answers `requested` (an exchange with only what the
  // run asks set: the fields cassette.proto does not mark served). It must be the next exchange
  // to serve, of the same op, asking for the same thing. `safe`: whether a task's run may be
  // played before this call (see the header comment). Errors: FailedPrecondition for the first
  // difference (and every call after it), OutOfRange once the recording has no exchange left.
  absl::StatusOr<const v1::Exchange*> Serve(const v1::Exchange& requested, bool safe);

  // Fail stops the replay with `error` unless it stopped already (a Replaying* that found the
  // recorded answer unusable). Returns the replay's error.
  absl::Status Fail(absl::Status error);

  // Where deliveries go. A stderr chunk for a process without a sink, or a task run for a task
  // the runner does not know, stops the replay.
  void SetStderrSink(std::uint32_t process, std::function<void(std::string_view)> sink);
  // The runner plays task `task`'s run: it calls the task, which asks for its exchanges through
  // this cursor. Errors stop the replay.
  void SetTaskRunner(std::function<absl::Status(std::uint32_t task)> runner);

  // Finish plays the deliveries still due and checks that every recorded exchange was served.
  // Errors: the replay's error if it stopped; FailedPrecondition naming the first exchange left
  // over.
  absl::Status Finish();

  // The replay's error, OK while it goes on.
  absl::Status status() const;
  // How many exchanges were served (deliveries included).
  std::size_t served() const;
  // The recorded chain head, and why the recording was cut ("" if it was not).
  const ChainHead& chain_head() const { return cassette_.chain_head(); }
  const std::string& torn() const { return cassette_.torn(); }

 private:
  // Exchanges being served: the session's, or a task run's while it plays.
  struct Frame {
    std::vector<const v1::Exchange*> exchanges;
    std::size_t next = 0;
    std::string where;  // how errors name an exchange of this frame
  };

  // Begin makes session `session`'s exchanges the ones to serve.
  void Begin(std::size_t session);
  absl::Status Stop(absl::Status error);
  std::string Name(const Frame& frame, std::size_t index) const;
  // Delivers what is due before the next exchange the run asks for.
  absl::Status Deliver(const v1::Exchange& exchange, const std::string& name, bool safe);
  absl::Status PlayTask(const v1::Exchange& run, const std::string& name);
  absl::Status PlayHeldBack();

  Cassette cassette_;
  mutable std::recursive_mutex mu_;
  std::vector<Frame> frames_;
  std::vector<std::pair<const v1::Exchange*, std::string>> held_back_;  // task runs, in order
  absl::flat_hash_map<std::uint32_t, std::function<void(std::string_view)>> sinks_;
  std::function<absl::Status(std::uint32_t task)> runner_;
  absl::Status status_;
  std::size_t served_ = 0;
};

}  // namespace agentrt::replay
