// runtime/json/intake.h
//
// Strict intake of untrusted JSON bytes (RFC 8259 text, one value). Everything a model, an MCP
// server or a file sends passes through here before anything else looks at it. Intake refuses,
// rather than repairs:
//   - anything that is not RFC 8259 JSON, a byte order mark, and data after the value;
//   - invalid UTF-8 anywhere in the text, and escapes that decode to a lone surrogate;
//   - a duplicate object key at any depth (two readers could otherwise see different values);
//   - nesting deeper than `max_depth` arrays and objects;
//   - a number literal longer than `max_number_chars`, or whose exponent is beyond
//     ±`max_exponent` (such a number is a denial-of-service payload, not data);
//   - input longer than `max_bytes`.
// Each refusal is InvalidArgument with one sentence naming the rule and the byte offset.
//
// Thread-safe: no shared state.
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"

namespace agentrt::json {

struct IntakeLimits {
  int max_depth = 256;
  std::size_t max_number_chars = 10'000;
  int max_exponent = 10'000;
  std::size_t max_bytes = std::size_t{1} << 30;  // offsets inside a Document are 32-bit
};

// Parse reads exactly one JSON value from `bytes` under the strict rules above.
absl::StatusOr<Document> Parse(std::string_view bytes, const IntakeLimits& limits = {});

}  // namespace agentrt::json
