// runtime/world/timestamp.h
//
// The one text form of an instant in agentrt's files and database: UTC, RFC 3339, always nine
// fractional digits, e.g. "2026-11-29T21:45:00.120000000Z". Fixed width, so timestamps sort
// as text (docs/decisions/0004-fixed-width-timestamps.md). The zero time is "".
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt::world {

std::string FormatTimestamp(absl::Time t);

// ParseTimestamp accepts exactly what FormatTimestamp writes ("" is the zero time,
// absl::UnixEpoch() is not special). Errors: InvalidArgument naming the text.
absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text);

// The zero time: absl::InfinitePast() stands for "not set" in memory.
inline constexpr absl::Time ZeroTime() { return absl::InfinitePast(); }

}  // namespace agentrt::world
