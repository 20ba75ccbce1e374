#include "runtime/world/entropy.h"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdlib>

namespace agentrt::world {

std::string Entropy::NewId() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::array<std::uint8_t, 16> bytes;
  Fill(bytes);
  std::string id(32, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    id[2 * i] = kHex[bytes[i] >> 4];
    id[2 * i + 1] = kHex[bytes[i] & 0xF];
  }
  return id;
}

void OsEntropy::Fill(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Ids drawn from a broken source could collide or be guessed: stop rather than go on.
      std::abort();
    }
    done += static_cast<std::size_t>(n);
  }
}

void SeededEntropy::Fill(std::span<std::uint8_t> out) {
  absl::MutexLock lock(&mu_);
  for (std::size_t i = 0; i < out.size(); i += 8) {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    for (std::size_t k = 0; k < 8 && i + k < out.size(); ++k) {
      out[i + k] = static_cast<std::uint8_t>(z >> (8 * k));
    }
  }
}

}  // namespace agentrt::world
