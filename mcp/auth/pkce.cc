#include "mcp/auth/pkce.h"

#include <array>
#include <cstdint>

#include "absl/strings/escaping.h"
#include "runtime/json/sha256.h"

namespace agentrt::mcp::auth {
namespace {

template <std::size_t N>
std::string RandomText(world::Entropy& entropy) {
  std::array<std::uint8_t, N> bytes{};
  entropy.Fill(bytes);
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

std::string S256Challenge(std::string_view verifier) {
  json::Sha256Digest digest = json::Sha256(verifier);
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

Pkce NewPkce(world::Entropy& entropy) {
  Pkce out;
  out.verifier = RandomText<32>(entropy);
  out.challenge = S256Challenge(out.verifier);
  return out;
}

std::string NewState(world::Entropy& entropy) { return RandomText<16>(entropy); }

}  // namespace agentrt::mcp::auth
