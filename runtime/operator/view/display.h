// runtime/operator/view/display.h
//
// How operator surfaces write times, money and statuses (docs/operators.md): a time as
// "2006-01-02 15:04:05 -0700" in the zone the caller names (the command uses the local zone,
// tests a fixed one), an estimated cost in micro-dollars as "$0.0123", and a status read from a
// database, which may hold text outside the vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "runtime/types.h"

namespace agentrt::view {

// DisplayTime: "-" for an unset time (absl::InfinitePast()).
std::string DisplayTime(absl::Time t, absl::TimeZone zone);

// DisplayMoney: "$%.4f" of micros / 1e6.
std::string DisplayMoney(std::int64_t micros);

// The cap on a status outside the vocabulary as shown (bytes, before escaping).
inline constexpr int kMaxUnknownStatusBytes = 64;

// DisplayStatus: `known` (the status word, e.g. "FAILED") when `unknown` is empty; otherwise
// the stored text that is none of the vocabulary's words (Run::unknown_status) as
// UNKNOWN("<text>"), escaped (json::Sanitize) and cut at kMaxUnknownStatusBytes: a damaged row
// is never shown as the state it was read as, and its text cannot reach the terminal raw.
std::string DisplayStatus(std::string_view known, std::string_view unknown);

// The same for a row read from a database (a Run, Step, Approval or their summaries), and its
// status as stored, for JSON: the vocabulary's word, or the text outside it.
template <typename Row>
std::string DisplayStatusOf(const Row& row) {
  return DisplayStatus(ToString(row.status), row.unknown_status);
}
template <typename Row>
std::string_view StoredStatus(const Row& row) {
  return row.unknown_status.empty() ? ToString(row.status) : std::string_view(row.unknown_status);
}

}  // namespace agentrt::view
