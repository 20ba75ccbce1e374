// runtime/json/sha256.h
//
// SHA-256 over bytes, computed by OpenSSL's EVP interface. Hex output is lowercase, 64
// characters: the form every hash in agentrt's files and database takes.
//
// Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::json {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest Sha256(std::string_view bytes);
std::string Sha256Hex(std::string_view bytes);
std::string ToHex(const Sha256Digest& digest);

}  // namespace agentrt::json
