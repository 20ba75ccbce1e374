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

// As in Sha256, a failure here stops the process rather than yield a wrong hash.
Sha256Stream::Sha256Stream() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr || EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1) {
    std::abort();
  }
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(context_); }

void Sha256Stream::Add(std::string_view bytes) {
  if (EVP_DigestUpdate(context_, bytes.data(), bytes.size()) != 1) std::abort();
}

std::string Sha256Stream::HexDigest() {
  Sha256Digest digest;
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context_, digest.data(), &size) != 1 || size != digest.size()) {
    std::abort();
  }
  return ToHex(digest);
}

}  // namespace agentrt::json
