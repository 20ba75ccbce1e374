// runtime/operator/view/bound.h
//
// Bounding what an operator surface shows (docs/operators.md): a model or a consumer's
// policy can put a megabyte into one argument, and a reader deciding on it should see where it
// starts and where it ends, not scroll past it. Every string longer than kMaxFieldBytes becomes
// its first and last kBoundEdgeBytes bytes (never cut inside a UTF-8 sequence) around a mark
// saying how many bytes were left out: "…[N bytes omitted]…".
//
// Only strings are shortened: the structure (keys, numbers, nesting) is kept, so the result is
// still the same kind of JSON. Bounding is for showing; what is hashed and decided is always
// the stored, unbounded form (BoundApproval leaves the hash alone).
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/json/document.h"
#include "runtime/types.h"

namespace agentrt::view {

inline constexpr std::size_t kMaxFieldBytes = 2000;
inline constexpr std::size_t kBoundEdgeBytes = 200;

// BoundText returns `text` unchanged when it is at most kMaxFieldBytes long, otherwise head +
// "…[N bytes omitted]…" + tail. `text` is expected to be UTF-8; the cuts back off to the start
// of a sequence.
std::string BoundText(std::string_view text);

// BoundValue is the canonical JSON of `value` with every string (not object keys) bounded.
std::string BoundValue(json::Value value);

// BoundRaw parses `raw` and returns BoundValue of it (canonical JSON). Empty or undecodable
// `raw` comes back unchanged: a surface shows it as what it is, it is not repaired here.
std::string BoundRaw(std::string_view raw);

// BoundApproval returns a copy of `approval` with capability, presentation and the request's
// args bounded. The hash is untouched: it still binds the stored, unbounded approval.
Approval BoundApproval(const Approval& approval);

}  // namespace agentrt::view
