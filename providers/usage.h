// providers/usage.h
//
// Reading a provider's token counts, which are untrusted input: a count the runtime would
// charge must be a plain non-negative integer that fits 64 bits, and the counts must agree
// (cached input is part of input). A reply whose counts cannot be believed is charged the
// conservative estimate by the model caller (runtime/model.h, UnusableUsageError), never what
// it claims.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/json/document.h"
#include "runtime/model.h"
#include "runtime/world/entropy.h"

namespace agentrt::providers {

// UsageCount reads the count `field` of a reply: absent or null is 0; otherwise a JSON number
// written as a base-10 integer (no fraction, no exponent) from 0 to 2^63-1. Anything else (a
// string, a boolean, -1, 1.5, 1e3, 9223372036854775808) is UnusableUsageError
// "unusable usage: <field> is <value, at most 64 bytes>, not a count".
absl::StatusOr<std::int64_t> UsageCount(std::string_view field, std::optional<json::Value> value);

// CheckUsage is OK, or UnusableUsageError naming what is wrong: "input tokens -1",
// "output tokens -1", "cached input tokens -1", "cached input tokens 11 exceed input tokens 10".
absl::Status CheckUsage(const Usage& usage);

// SynthesizeToolUseId gives a tool use the provider sent without an id one of its own,
// "call_<16 hex digits from entropy>_<index>": unique within a reply, and the same on a replay of
// a recorded run (the entropy is the world's).
std::string SynthesizeToolUseId(world::Entropy& entropy, std::size_t index);

}  // namespace agentrt::providers
