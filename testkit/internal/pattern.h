// testkit/internal/pattern.h
//
// Drawing a string that a schema's `pattern` matches, for the subset of regular expressions
// tool schemas use: literals, `.`, classes with ranges and negation, \d \w \s and their
// negations, escapes (\n \t \xHH \uHHHH and escaped punctuation), groups (capturing,
// non-capturing, named), alternation, the anchors ^ and $, and the quantifiers ? * + {n} {n,}
// {n,m} (lazy or not). Anything else (lookaround, back references, \b, flags) gives nullopt:
// the caller then draws plain strings and keeps those the validator accepts. Test-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "testkit/internal/rng.h"

namespace agentrt::testkit::internal {

// FromPattern returns a string `pattern` matches (patterns are unanchored, so a match of the
// whole pattern is always a match); open-ended repetitions repeat at most `max_repeat` more
// times than their minimum.
std::optional<std::string> FromPattern(std::string_view pattern, Rng& rng, int max_repeat = 3);

}  // namespace agentrt::testkit::internal
