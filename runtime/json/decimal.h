// runtime/json/decimal.h
//
// Exact arithmetic on JSON number literals, for the places where a double would give a wrong
// answer: JSON equality (1.0 == 1, 9007199254740993 != 9007199254740992), range checks and
// multipleOf in JSON Schema. A Decimal is the literal reduced to sign, significant digits and
// a power of ten; it is exact for every literal intake accepts.
//
// Thread-safe; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::json {

struct Decimal {
  bool negative = false;
  std::string digits;         // significant digits, no leading or trailing zeros; "" is zero
  std::int64_t exponent = 0;  // value = digits * 10^exponent

  bool is_zero() const { return digits.empty(); }
  // The power of ten of the first significant digit (1.5e3 -> 3). Zero for zero.
  std::int64_t magnitude() const;
};

// ParseDecimal reduces a literal matching the JSON number grammar (intake guarantees it).
Decimal ParseDecimal(std::string_view literal);

// CompareDecimal orders by value: <0, 0 or >0. Negative zero equals zero.
int CompareDecimal(const Decimal& a, const Decimal& b);

// IsInteger: the value is a mathematical integer (1.0 and 1e2 are; 1.5 is not).
bool IsInteger(const Decimal& value);
// IsIntegerLiteral is IsInteger(ParseDecimal(literal)) with a fast path for plain integers.
bool IsIntegerLiteral(std::string_view literal);

// MultipleOfSupported: `divisor` is positive and has at most kMaxDivisorDigits significant
// digits, the precision IsMultipleOf computes exactly.
inline constexpr std::size_t kMaxDivisorDigits = 36;
bool MultipleOfSupported(const Decimal& divisor);

// IsMultipleOf: value / divisor is an integer, computed exactly. Precondition:
// MultipleOfSupported(divisor).
bool IsMultipleOf(const Decimal& value, const Decimal& divisor);

}  // namespace agentrt::json
