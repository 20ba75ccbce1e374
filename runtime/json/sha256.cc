#include "runtime/json/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace agentrt::json {

namespace {

// SHA-256 as OpenSSL's default provider implements it, fetched once: EVP_sha256() names the
// algorithm, and every EVP_Digest with it fetches the implementation again (a lock and a
// lookup that cost as much as hashing a short event). The handle is immutable and shared by
// every thread, so it is a constant, not state; it lives as long as the process.
const EVP_MD* FetchedSha256() {
  static const EVP_MD* const md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) std::abort();
    return fetched;
  }();
  return md;
}

}  // namespace

Sha256Digest Sha256(std::string_view bytes) {
  Sha256Digest digest;
  unsigned int size = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate or lost its SHA-256 provider: a
  // hash that silently came out wrong would break the audit chain, so stop instead.
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, FetchedSha256(), nullptr) != 1 ||
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
  if (context_ == nullptr || EVP_DigestInit_ex(context_, FetchedSha256(), nullptr) != 1) {
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
