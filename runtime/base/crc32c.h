// runtime/base/crc32c.h
//
// CRC-32C (Castagnoli), the checksum framed files carry per record so a reader tells a torn or
// damaged record from a whole one. Masked (rotated and offset), so a record that holds its own
// checksum's bytes does not checksum to itself by construction.
#pragma once

#include <cstdint>
#include <string_view>

namespace agentrt {

// Crc32c of `bytes` (the standard check value: "123456789" -> 0xE3069283).
std::uint32_t Crc32c(std::string_view bytes);

// MaskCrc / UnmaskCrc: the stored form of a checksum and back.
inline std::uint32_t MaskCrc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline std::uint32_t UnmaskCrc(std::uint32_t masked) {
  std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace agentrt
