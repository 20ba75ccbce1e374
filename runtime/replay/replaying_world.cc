#include "runtime/replay/replaying_world.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/replay/recording_world.h"

namespace agentrt::replay {

ReplayingWorld::ReplayingWorld(Cassette cassette)
    : cursor_(std::move(cassette)),
      clock_(cursor_, kRunClock),
      scheduler_(cursor_, kLeaseScheduler),
      entropy_(cursor_, kIds),
      environment_(cursor_),
      launcher_(cursor_),
      network_(cursor_) {
  world_.clock = &clock_;
  world_.scheduler = &scheduler_;
  world_.entropy = &entropy_;
  world_.environment = &environment_;
  world_.launcher = &launcher_;
  world_.network = &network_;
}

Model& ReplayingWorld::ReplayModel(std::string name) {
  models_.push_back(std::make_unique<ReplayingModel>(std::move(name), cursor_));
  return *models_.back();
}

absl::Status ReplayingWorld::Finish(const ChainHead& head) {
  AGENTRT_RETURN_IF_ERROR(cursor_.Finish());
  const ChainHead& recorded = cursor_.chain_head();
  if (recorded.seq == 0) {
    return absl::FailedPreconditionError(
        "replay: the cassette recorded no chain head, so the audit log cannot be checked");
  }
  if (head != recorded) {
    return absl::FailedPreconditionError(
        absl::StrCat("replay: the audit log differs from the recording: its head is seq ", head.seq,
                     " ", head.hash, ", the recording's seq ", recorded.seq, " ", recorded.hash));
  }
  return absl::OkStatus();
}

}  // namespace agentrt::replay
