// runtime/world/entropy.h
//
// Randomness, injected: run ids, approval ids, tool-use ids and nonces are drawn through an
// Entropy, so a seeded one makes every id of a test or simulation reproducible.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace agentrt::world {

class Entropy {
 public:
  virtual ~Entropy() = default;
  // Fill writes random bytes into `out`.
  virtual void Fill(std::span<std::uint8_t> out) = 0;
  // NewId is 128 random bits as 32 lowercase hex characters.
  std::string NewId();
};

// EntropyWrapper forwards every draw to a target entropy, so an entropy that changes one call
// overrides only that one (clock.h's ClockWrapper says why). The target is not owned and must
// outlive this.
class EntropyWrapper : public Entropy {
 public:
  explicit EntropyWrapper(Entropy& target) : target_(target) {}
  Entropy& target() const { return target_; }
  void Fill(std::span<std::uint8_t> out) override { target_.Fill(out); }

 private:
  Entropy& target_;
};

// OsEntropy draws from the operating system (getrandom). Thread-safe.
class OsEntropy final : public Entropy {
 public:
  void Fill(std::span<std::uint8_t> out) override;
};

// SeededEntropy is a deterministic stream (SplitMix64) from a seed: equal seeds give equal
// bytes. Thread-safe; not for secrets.
class SeededEntropy final : public Entropy {
 public:
  explicit SeededEntropy(std::uint64_t seed) : state_(seed) {}
  void Fill(std::span<std::uint8_t> out) override;

 private:
  absl::Mutex mu_;
  std::uint64_t state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::world
