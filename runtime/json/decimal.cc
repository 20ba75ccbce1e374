#include "runtime/json/decimal.h"

#include <algorithm>

namespace agentrt::json {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::int64_t Decimal::magnitude() const {
  return digits.empty() ? 0 : static_cast<std::int64_t>(digits.size()) - 1 + exponent;
}

Decimal ParseDecimal(std::string_view literal) {
  Decimal d;
  std::size_t i = 0;
  if (i < literal.size() && literal[i] == '-') {
    d.negative = true;
    ++i;
  }
  d.digits.reserve(literal.size());
  for (; i < literal.size() && IsDigit(literal[i]); ++i) d.digits.push_back(literal[i]);
  if (i < literal.size() && literal[i] == '.') {
    for (++i; i < literal.size() && IsDigit(literal[i]); ++i) {
      d.digits.push_back(literal[i]);
      --d.exponent;
    }
  }
  if (i < literal.size() && (literal[i] == 'e' || literal[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < literal.size() && (literal[i] == '+' || literal[i] == '-')) {
      negative = literal[i] == '-';
      ++i;
    }
    // Intake bounds exponents; saturate so a caller that skipped intake cannot overflow.
    std::int64_t e = 0;
    for (; i < literal.size() && IsDigit(literal[i]); ++i) {
      if (e < (std::int64_t{1} << 40)) e = e * 10 + (literal[i] - '0');
    }
    d.exponent += negative ? -e : e;
  }
  std::size_t first = d.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits.clear();
    d.exponent = 0;
    d.negative = false;
    return d;
  }
  std::size_t last = d.digits.find_last_not_of('0');
  d.exponent += static_cast<std::int64_t>(d.digits.size() - 1 - last);
  d.digits = d.digits.substr(first, last - first + 1);
  return d;
}

int CompareDecimal(const Decimal& a, const Decimal& b) {
  if (a.is_zero() || b.is_zero()) {
    if (a.is_zero() && b.is_zero()) return 0;
    if (a.is_zero()) return b.negative ? 1 : -1;
    return a.negative ? -1 : 1;
  }
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int magnitude_order = 0;
  if (a.magnitude() != b.magnitude()) {
    magnitude_order = a.magnitude() < b.magnitude() ? -1 : 1;
  } else {
    // Same leading power of ten: digit strings compare like fractions 0.ddd. With trailing
    // zeros stripped, a proper prefix is the smaller value.
    int c = a.digits.compare(b.digits);
    magnitude_order = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return a.negative ? -magnitude_order : magnitude_order;
}

bool IsInteger(const Decimal& value) { return value.is_zero() || value.exponent >= 0; }

bool IsIntegerLiteral(std::string_view literal) {
  if (literal.find_first_of(".eE") == std::string_view::npos) return true;
  return IsInteger(ParseDecimal(literal));
}

bool MultipleOfSupported(const Decimal& divisor) {
  return !divisor.is_zero() && !divisor.negative && divisor.digits.size() <= kMaxDivisorDigits;
}

bool IsMultipleOf(const Decimal& value, const Decimal& divisor) {
  if (value.is_zero()) return true;
  // value = X * 10^a, divisor = D * 10^b. With X free of trailing zeros, a < b means X would
  // have to be a multiple of D * 10^(b-a), hence of 10: impossible.
  std::int64_t shift = value.exponent - divisor.exponent;
  if (shift < 0) return false;
  // (X * 10^shift) mod D, one digit at a time. D < 10^36 < 2^120, so r * 10 + 9 fits.
  unsigned __int128 d = 0;
  for (char c : divisor.digits) d = d * 10 + static_cast<unsigned>(c - '0');
  unsigned __int128 r = 0;
  for (char c : value.digits) r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
  for (std::int64_t i = 0; i < shift && r != 0; ++i) r = (r * 10) % d;
  return r == 0;
}

}  // namespace agentrt::json
