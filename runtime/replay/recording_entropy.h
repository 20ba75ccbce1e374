// runtime/replay/recording_entropy.h
//
// An Entropy that draws from another and records every draw into a cassette under its name, so
// a replay hands out exactly the ids and nonces the recording did. Thread-safe when the inner
// entropy is; a draw whose recording fails is still returned (the recorder keeps the error).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "runtime/replay/cassette_recorder.h"
#include "runtime/world/entropy.h"

namespace agentrt::replay {

class RecordingEntropy final : public world::EntropyWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingEntropy(world::Entropy& inner, CassetteRecorder& recorder, std::string name)
      : EntropyWrapper(inner), recorder_(recorder), name_(std::move(name)) {}

  void Fill(std::span<std::uint8_t> out) override;

 private:
  CassetteRecorder& recorder_;
  const std::string name_;
};

}  // namespace agentrt::replay
