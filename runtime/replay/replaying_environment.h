// runtime/replay/replaying_environment.h
//
// An Environment whose reads are the ones a cassette recorded, served in order through the
// replay's cursor: a read of another variable stops the replay. Once the replay has stopped,
// every variable reads as not set (the composition root learns of the stop from the cursor).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/replay/replay_cursor.h"
#include "runtime/world/environment.h"

namespace agentrt::replay {

class ReplayingEnvironment final : public world::Environment {
 public:
  // `cursor` must outlive this.
  explicit ReplayingEnvironment(ReplayCursor& cursor) : cursor_(cursor) {}

  std::optional<std::string> Get(std::string_view name) override;

 private:
  ReplayCursor& cursor_;
};

}  // namespace agentrt::replay
