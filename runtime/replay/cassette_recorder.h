// runtime/replay/cassette_recorder.h
//
// The cassette a run is being recorded into. Every recording wrapper of a run (recording_*.h:
// clock, entropy, scheduler, launcher, network, model) appends to one recorder, so the cassette
// keeps all of the run's exchanges with the world in the one order they happened.
//
// A file-backed recorder appends each exchange as one framed record (cassette_file.h) before the
// call it records returns: nothing is ever rewritten, a crash of this process loses nothing that
// was recorded, and Sync (called by SetChainHead and the destructor) makes it survive a crash of
// the machine. An in-memory recorder keeps the cassette for cassette().
//
// Work a scheduled task does belongs to the task: between BeginTask and EndTask on one thread,
// what that thread records is kept for the task's run and recorded as one exchange when it ends
// (the replay runs the task at that point and serves it those exchanges), so a heartbeat on the
// scheduler's thread never interleaves its clock readings with the run's.
//
// Re-recording (docs/architecture.md, "Record and replay"): Open on an existing cassette appends a
// new session with its own header. Keyed replay of a model takes each key's exchanges from the
// latest session that recorded the key, so a re-recording replaces a key's whole sequence and a
// shorter one leaves no stale tail.
//
// Errors are sticky: once an append failed (the disk is full, say) every later call returns
// that error, since the file may end in a torn record. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/base/thread_identity.h"
#include "runtime/model.h"
#include "runtime/replay/cassette.h"
#include "runtime/world/filesystem.h"

namespace agentrt::replay {

namespace v1 {
class Exchange;
class ModelExchange;
class TaskFiring;
}  // namespace v1

class CassetteRecorder {
 public:
  // An in-memory recorder: writes no file; cassette() has what was recorded.
  explicit CassetteRecorder(CassetteHeader header = {});

  // Create records into a new file at `path` (mode 0600; an existing file is refused with
  // AlreadyExists: recording never mixes runs). The header is written at once, so a path that
  // cannot be written fails here rather than at the first exchange.
  static absl::StatusOr<std::unique_ptr<CassetteRecorder>> Create(world::Filesystem& files,
                                                                  const std::string& path,
                                                                  CassetteHeader header);
  // Open appends a new recording session to the cassette at `path`, creating it when missing.
  // An existing cassette is read first with ReadCassette's checks; one whose last record is torn
  // or that a newer build wrote is refused (FailedPrecondition): appending would bury the cut or
  // mix formats.
  static absl::StatusOr<std::unique_ptr<CassetteRecorder>> Open(world::Filesystem& files,
                                                                const std::string& path,
                                                                CassetteHeader header);
  ~CassetteRecorder();  // Sync
  CassetteRecorder(const CassetteRecorder&) = delete;
  CassetteRecorder& operator=(const CassetteRecorder&) = delete;

  // What the recording wrappers number, each from 1 in this session.
  enum class Numbered { kProcess, kResponse, kTask };
  std::uint32_t Next(Numbered what);

  // Record appends `exchange` after everything recorded before it, or to the task run the
  // calling thread is in (BeginTask). Errors: InvalidArgument when it breaks a rule of
  // cassette.h (in-memory recorders check every rule, file recorders a model exchange's), and
  // the file's.
  absl::Status Record(const v1::Exchange& exchange);

  // RecordModel records one Model::Generate call of model `model` (a failed one with its error,
  // which keyed replay never serves) and returns the exchange as recorded, with its key and,
  // for a success, its ordinal among identical requests in this session. Errors: Record's; the
  // exchange is then not recorded.
  absl::StatusOr<v1::ModelExchange> RecordModel(std::string_view model, const ModelRequest& request,
                                                const absl::StatusOr<ModelResponse>& response);

  // BeginTask and EndTask bracket the run of scheduled task `task` of scheduler `scheduler` on
  // the calling thread; `again` is what a repeating task returned. Runs nest.
  void BeginTask();
  absl::Status EndTask(std::string_view scheduler, std::uint32_t task, bool again);

  // SetChainHead records the head of the audit log the run wrote, and syncs. Errors:
  // InvalidArgument for a head that breaks cassette.h's rule, and the file's.
  absl::Status SetChainHead(const ChainHead& head);

  // Sync flushes a file-backed cassette to stable storage.
  absl::Status Sync();

  // The first error an append met (OK while there was none).
  absl::Status status() const;
  // An in-memory recorder's cassette (a file recorder's is in its file: ReadCassette).
  Cassette cassette() const;
  // The file, or "" for an in-memory recorder.
  const std::string& path() const { return path_; }

 private:
  CassetteRecorder(std::string path, std::unique_ptr<world::AppendableFile> file);
  absl::Status AppendLocked(const v1::Exchange& exchange) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  mutable absl::Mutex mu_;
  std::unique_ptr<world::AppendableFile> file_ ABSL_GUARDED_BY(mu_);
  std::optional<Cassette> memory_ ABSL_GUARDED_BY(mu_);
  absl::Status failed_ ABSL_GUARDED_BY(mu_);
  std::uint32_t numbered_[3] ABSL_GUARDED_BY(mu_) = {0, 0, 0};
  // Successful model calls per key in this session.
  absl::flat_hash_map<std::string, std::uint32_t> ordinals_ ABSL_GUARDED_BY(mu_);
  // The task runs each thread is in, innermost last.
  absl::flat_hash_map<ThreadIdentity, std::vector<std::unique_ptr<v1::TaskFiring>>> runs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::replay
