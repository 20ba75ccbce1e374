// runtime/json/sha256.h
//
// SHA-256 over bytes, computed by OpenSSL's EVP interface. Hex output is lowercase, 64
// characters: the form every hash in agentrt's files and database takes.
//
// The functions are thread-safe; one Sha256Stream is used by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace agentrt::json {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest Sha256(std::string_view bytes);
std::string Sha256Hex(std::string_view bytes);
std::string ToHex(const Sha256Digest& digest);

// Sha256Stream hashes bytes fed a piece at a time, for input that is never held whole (a
// long event field verified in chunks). Add after HexDigest is a programming error.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void Add(std::string_view bytes);
  // HexDigest ends the stream: the lowercase hex SHA-256 of everything added.
  std::string HexDigest();

 private:
  ::evp_md_ctx_st* context_;
};

}  // namespace agentrt::json
