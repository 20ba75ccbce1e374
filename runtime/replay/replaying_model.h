// runtime/replay/replaying_model.h
//
// A Model that answers from a cassette, with no provider (docs/architecture.md, "Record and
// replay"), in one of two orders:
//
//  - Strict (docs/formats/cassette.md, "Replay: one cursor, exact order"): built on the replay's
//  cursor
//    (replay_cursor.h), which every replayed world interface shares. The request must be the
//    cassette's next exchange, a call of this model asking for exactly the recorded request; it
//    gets the recorded answer, a recorded failure included (with its error kind). The first that
//    is not stops the whole replay, naming the exchange and where the requests differ.
//
//  - Keyed (an explicit option): built on a cassette. A request is looked up
//    by its key (model_key.h, with this model's name): the n-th time a key is asked, the n-th
//    successful recording of that key answers (from the latest session that recorded the key),
//    whatever was asked in between. Failures are never served. A request never recorded, or asked
//    more often than it was, fails with NotFound:
//      replay: no recorded response for this request (key 0123456789ab)
//      replay: no recorded response for this request (key 0123456789ab): recorded 2 times,
//      requested 3
//    These errors carry no model error kind, so the caller treats them as permanent.
//
// Either way a response's `raw` is the recorded bytes exactly. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/model.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/world/filesystem.h"

namespace agentrt::replay {

class ReplayingModel : public Model {
 public:
  // Strict: serves model `name`'s calls through `cursor`, which must outlive this.
  ReplayingModel(std::string name, ReplayCursor& cursor);
  // Keyed: serves the successful calls `cassette` recorded for model `name`.
  ReplayingModel(std::string name, const Cassette& cassette);

  // Open reads the cassette file at `path` for keyed replay (ReadCassette's checks and errors).
  static absl::StatusOr<std::unique_ptr<ReplayingModel>> OpenKeyed(std::string name,
                                                                   world::Filesystem& files,
                                                                   const std::string& path);

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

  // How many calls were answered from the recording (failures included in strict order).
  std::size_t served() const;

 private:
  struct Recorded {
    std::string key;
    std::uint32_t ordinal = 0;
    std::string response_json;
    std::string raw;
  };
  absl::StatusOr<ModelResponse> Serve(const std::string& key, std::uint32_t ordinal,
                                      const std::string& response_json,
                                      const std::string& raw) const;
  absl::StatusOr<ModelResponse> GenerateStrict(const ModelRequest& request);
  absl::StatusOr<ModelResponse> GenerateKeyed(const ModelRequest& request);

  const std::string name_;
  ReplayCursor* const cursor_;  // strict; null when keyed
  // Keyed: each key's successful recordings, in ordinal order.
  absl::flat_hash_map<std::string, std::vector<Recorded>> by_key_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::size_t> asked_ ABSL_GUARDED_BY(mu_);  // keyed
  std::size_t served_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace agentrt::replay
