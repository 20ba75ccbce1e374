// runtime/replay/replaying_network.h
//
// A Network whose responses are the ones a cassette recorded: Send answers with the recorded
// status and headers (or error) when the run sends exactly the recorded request (method, URL,
// headers, body, body limit, deadline), and the body is read back chunk by chunk as it arrived
// in the recording. Nothing is sent. See replay_cursor.h for order and mismatches.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/world/network.h"

namespace agentrt::replay {

class ReplayingNetwork final : public world::Network {
 public:
  // `cursor` must outlive this and every response it gives.
  explicit ReplayingNetwork(ReplayCursor& cursor) : cursor_(cursor) {}

  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override;

 private:
  ReplayCursor& cursor_;
};

}  // namespace agentrt::replay
