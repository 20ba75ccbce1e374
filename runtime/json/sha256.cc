#include "runtime/json/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace agentrt::json {

Sha256Digest Sha256(std::string_view bytes) {
  Sha256Digest digest;
  unsigned int size = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate or lost its SHA-256 provider: a
  // hash that silently came out wrong would break the audit chain, so stop instead.
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size()) {
    std::abort();
  }
  return digest;
}

std::string ToHex(const Sha256Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(digest.size() * 2, '0');
  for (std::size_t i = 0; i < digest.size(); ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

std::string Sha256Hex(std::string_view bytes) { return ToHex(Sha256(bytes)); }

}  // namespace agentrt::json
