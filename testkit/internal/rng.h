// testkit/internal/rng.h
//
// The kit's deterministic draws: a seeded stream (world::SeededEntropy), so equal seeds give
// equal documents on every machine. Test-only.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/world/entropy.h"

namespace agentrt::testkit::internal {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : entropy_(seed) {}

  std::uint64_t Next() {
    std::array<std::uint8_t, 8> bytes;
    entropy_.Fill(bytes);
    std::uint64_t v = 0;
    for (std::uint8_t b : bytes) v = (v << 8) | b;
    return v;
  }
  // Below: uniform in [0, n); 0 when n is 0.
  std::uint64_t Below(std::uint64_t n) { return n == 0 ? 0 : Next() % n; }
  // Between: uniform in [lo, hi] (lo when hi < lo).
  std::int64_t Between(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(Below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  bool OneIn(std::uint64_t n) { return Below(n) == 0; }

 private:
  world::SeededEntropy entropy_;
};

}  // namespace agentrt::testkit::internal
