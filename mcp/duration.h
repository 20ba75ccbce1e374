// mcp/duration.h
//
// Durations in the operator's files, written as Go's time.Duration writes them: "5s", "1m30s",
// "250ms", "1.5h" (docs/mcp.md, "The configuration"). Parsing accepts exactly that syntax — an
// optional sign, then one or more <decimal>[.<fraction>]<unit> groups with units ns, us, µs, μs,
// ms, s, m, h, or the bare "0" — and nothing else: no bare number ("5"), no "inf", no spaces.
// Writing gives the same short form back ("0s", "50ms", "1.5ms", "10m0s", "1h0m0s"), so a message
// shows a duration the way the operator would write it.
//
// Thread-safe: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt::mcp {

// ParseDurationText reads `text`. Errors: InvalidArgument, `invalid duration "<text>"`,
// `missing unit in duration "<text>"`, `unknown unit "<u>" in duration "<text>"`, or
// `invalid duration "<text>": out of range` past about 292 years.
absl::StatusOr<absl::Duration> ParseDurationText(std::string_view text);

// DurationText writes `d` in that form: "0s"; below a second "<n>ns", "<x>µs" or "<x>ms";
// otherwise hours, minutes (present once hours are) and seconds with their fraction.
// An infinite duration is written as the longest finite one.
std::string DurationText(absl::Duration d);

}  // namespace agentrt::mcp
