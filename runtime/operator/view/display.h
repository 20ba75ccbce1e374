// runtime/operator/view/display.h
//
// How operator surfaces write times and money (reference/core.md §15): a time as
// "2006-01-02 15:04:05 -0700" in the zone the caller names (the command uses the local zone,
// tests a fixed one), and an estimated cost in micro-dollars as "$0.0123".
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace agentrt::view {

// DisplayTime: "-" for an unset time (absl::InfinitePast()).
std::string DisplayTime(absl::Time t, absl::TimeZone zone);

// DisplayMoney: "$%.4f" of micros / 1e6.
std::string DisplayMoney(std::int64_t micros);

}  // namespace agentrt::view
