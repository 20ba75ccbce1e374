// runtime/json/canonical_json.h
//
// Canonical JSON: the one byte form that agentrt hashes. Two documents that mean the same
// thing (key order, whitespace, escapes, 1.0 vs 1) canonicalize to the same bytes; two that
// differ in any value, including a number a double cannot hold exactly, never do.
//
// The form is RFC 8785 (JCS) with one deliberate difference: a number a binary64 double cannot
// hold exactly keeps its own digits instead of being rounded (canonical_number.h). Concretely:
// object keys sorted by UTF-16 code units, no insignificant whitespace, strings escaped only
// where JSON requires it (`"`, `\` and U+0000..U+001F, with \b \f \n \r \t short forms and
// lowercase \u00xx otherwise; everything else, including U+2028, DEL and non-ASCII, raw).
//
// Thread-safe; no allocation beyond the output string.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"

namespace agentrt::json {

// Canonicalize parses `bytes` under the strict intake rules (see intake.h) and returns the
// canonical form. Errors: InvalidArgument naming the byte offset and the rule broken.
absl::StatusOr<std::string> Canonicalize(std::string_view bytes);

// WriteCanonical returns the canonical form of an already parsed value.
std::string WriteCanonical(Value value);
void AppendCanonical(Value value, std::string& out);

// AppendCanonicalString appends `text` (valid UTF-8) as a canonical JSON string literal.
void AppendCanonicalString(std::string_view text, std::string& out);
// AppendJsonString is AppendCanonicalString for any bytes: each run that is not valid UTF-8
// becomes U+FFFD (utf8.h ToValidUtf8), so the literal is always valid JSON.
void AppendJsonString(std::string_view text, std::string& out);

// HashCanonical is the hash the rest of agentrt stores and compares: the lowercase hex
// SHA-256 of Canonicalize(json). Errors as Canonicalize.
absl::StatusOr<std::string> HashCanonical(std::string_view json);

}  // namespace agentrt::json
