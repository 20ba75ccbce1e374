// runtime/replay/replaying_model.h
//
// A Model that answers from a cassette, with no provider (reference/core.md §9 "Replayer").
// A request is looked up by its key (model_key.h, with this model's name): the n-th time a
// key is asked, the n-th recording of that key answers, its response with `raw` equal to the
// recorded bytes exactly. A request never recorded, or asked more often than it was, fails
// with NotFound:
//   replay: no recorded response for this request (key 0123456789ab)
//   replay: no recorded response for this request (key 0123456789ab): recorded 2 times, requested 3
// These errors carry no model error kind, so the caller treats them as permanent.
//
// Two orders:
//  - kByKey (the default, the reference's): each key keeps its own counter, so requests for
//    different keys may come in any order; only the order among identical requests matters.
//  - kStrict (DESIGN.md "Replay is strict and in exact order"): the request must be the next
//    model exchange of this model in the cassette. The first that is not stops the replay
//    with FailedPrecondition naming both keys, and every later call fails the same way, so a
//    run that diverged from its recording cannot wander on. The cursor runs over this
//    model's exchanges only; exchanges of other models and other kinds are served by their
//    own replayers.
//
// Thread-safe.
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

namespace agentrt::replay {

enum class ReplayOrder { kByKey, kStrict };

class ReplayingModel : public Model {
 public:
  // Serves the model exchanges of `cassette` recorded for model `name`.
  ReplayingModel(std::string name, const Cassette& cassette,
                 ReplayOrder order = ReplayOrder::kByKey);

  // Open reads the cassette file at `path` (ReadCassette's checks and errors).
  static absl::StatusOr<std::unique_ptr<ReplayingModel>> Open(
      std::string name, const std::string& path, ReplayOrder order = ReplayOrder::kByKey);

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

  // How many of this model's recorded exchanges have been served.
  std::size_t served() const;
  // How many this model has in the cassette.
  std::size_t recorded() const { return exchanges_.size(); }

 private:
  absl::StatusOr<ModelResponse> Serve(const ModelExchange& exchange) const;

  const std::string name_;
  const ReplayOrder order_;
  std::vector<ModelExchange> exchanges_;  // this model's, in cassette order
  absl::flat_hash_map<std::string, std::vector<std::size_t>> by_key_;  // in ordinal order

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::size_t> asked_ ABSL_GUARDED_BY(mu_);  // kByKey
  std::size_t next_ ABSL_GUARDED_BY(mu_) = 0;                                 // kStrict
  absl::Status stopped_ ABSL_GUARDED_BY(mu_);                                 // kStrict
  std::size_t served_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace agentrt::replay
