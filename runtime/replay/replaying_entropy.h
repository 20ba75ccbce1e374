// runtime/replay/replaying_entropy.h
//
// An Entropy whose draws are the ones a cassette recorded under its name, served in order
// through the replay's cursor. A draw of another size than the recorded one stops the replay.
// Entropy cannot fail: once the replay has stopped, draws come from a fixed seed, so ids stay
// distinct and the run can end as it would (the composition root learns of the stop from the
// cursor).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "runtime/replay/replay_cursor.h"
#include "runtime/world/entropy.h"

namespace agentrt::replay {

class ReplayingEntropy final : public world::Entropy {
 public:
  // `cursor` must outlive this.
  ReplayingEntropy(ReplayCursor& cursor, std::string name)
      : cursor_(cursor), name_(std::move(name)) {}

  void Fill(std::span<std::uint8_t> out) override;

 private:
  ReplayCursor& cursor_;
  const std::string name_;
  world::SeededEntropy after_stop_{0};
};

}  // namespace agentrt::replay
