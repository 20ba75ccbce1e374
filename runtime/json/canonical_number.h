// runtime/json/canonical_number.h
//
// The canonical text of one JSON number literal (docs/formats/json.md). The value is
// computed from the literal's own decimal digits, never from a rounded double:
//   - when a binary64 double holds the literal exactly the result is the ECMAScript
//     Number-to-String form RFC 8785 prescribes (1.0, 1 and 1e0 all give "1"; 1E30 gives
//     "1e+30"; 2e-3 gives "0.002");
//   - otherwise the literal's digits are kept, in the same notation rules, so
//     9007199254740993 and 9007199254740992 stay distinct.
// Both cases are one rule: reduce the literal to (sign, significant digits, exponent) and write
// them the ECMAScript way. The shortest round-trip digits of a double that holds the literal
// exactly are the literal's significant digits, so the ECMAScript form of the double and the
// normalized literal coincide; see docs/decisions/0002-numbers-from-literals.md.
// Zero of either sign is "0", as ECMAScript writes -0.
//
// Thread-safe; allocation-free for literals of up to 21 integer digits.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::json {

// AppendCanonicalNumber appends the canonical text of `literal` to `out`. Precondition:
// `literal` matches the JSON number grammar (intake guarantees it).
void AppendCanonicalNumber(std::string_view literal, std::string& out);

// CanonicalNumber is AppendCanonicalNumber into a fresh string.
std::string CanonicalNumber(std::string_view literal);

}  // namespace agentrt::json
