#include "runtime/json/canonical_number.h"

#include <cstdint>
#include <string>

#include "runtime/json/decimal.h"

namespace agentrt::json {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendInt(std::int64_t v, std::string& out) { out += std::to_string(v); }

}  // namespace

void AppendCanonicalNumber(std::string_view literal, std::string& out) {
  bool negative = !literal.empty() && literal[0] == '-';
  std::string_view body = negative ? literal.substr(1) : literal;

  // Fast path: a plain integer of at most 21 digits is already in ECMAScript form.
  std::size_t int_end = 0;
  while (int_end < body.size() && IsDigit(body[int_end])) ++int_end;
  if (int_end == body.size() && int_end <= 21) {
    if (body == "0") {
      out.push_back('0');  // -0 too: ECMAScript writes negative zero as "0"
    } else {
      out.append(literal);
    }
    return;
  }

  Decimal value = ParseDecimal(literal);
  if (value.is_zero()) {
    out.push_back('0');
    return;
  }
  std::string_view significant = value.digits;
  std::int64_t exponent = value.exponent;
  if (negative) out.push_back('-');
  auto n = static_cast<std::int64_t>(significant.size());
  std::int64_t sci = n - 1 + exponent;  // the power of ten of the first digit
  if (sci < -6 || sci >= 21) {
    out.push_back(significant[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(significant.substr(1));
    }
    out.push_back('e');
    if (sci >= 0) out.push_back('+');
    AppendInt(sci, out);
  } else if (exponent >= 0) {
    out.append(significant);
    out.append(static_cast<std::size_t>(exponent), '0');
  } else {
    std::int64_t point = n + exponent;
    if (point > 0) {
      out.append(significant.substr(0, static_cast<std::size_t>(point)));
      out.push_back('.');
      out.append(significant.substr(static_cast<std::size_t>(point)));
    } else {
      out.append("0.");
      out.append(static_cast<std::size_t>(-point), '0');
      out.append(significant);
    }
  }
}

std::string CanonicalNumber(std::string_view literal) {
  std::string out;
  AppendCanonicalNumber(literal, out);
  return out;
}

}  // namespace agentrt::json
