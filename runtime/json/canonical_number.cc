#include "runtime/json/canonical_number.h"

#include <cstdint>
#include <string>

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

  // Reduce to digits * 10^exponent with no leading or trailing zeros in digits.
  std::string digits;
  digits.reserve(body.size());
  std::int64_t exponent = 0;
  std::size_t i = 0;
  for (; i < body.size() && IsDigit(body[i]); ++i) digits.push_back(body[i]);
  if (i < body.size() && body[i] == '.') {
    for (++i; i < body.size() && IsDigit(body[i]); ++i) {
      digits.push_back(body[i]);
      --exponent;
    }
  }
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) {
      exponent_negative = body[i] == '-';
      ++i;
    }
    // Intake bounds the exponent; saturate anyway so a caller that skipped intake gets a
    // wrong-but-safe answer instead of overflow.
    std::int64_t e = 0;
    for (; i < body.size() && IsDigit(body[i]); ++i) {
      if (e < (std::int64_t{1} << 40)) e = e * 10 + (body[i] - '0');
    }
    exponent += exponent_negative ? -e : e;
  }
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    out.push_back('0');
    return;
  }
  std::size_t last = digits.find_last_not_of('0');
  exponent += static_cast<std::int64_t>(digits.size() - 1 - last);
  std::string_view significant = std::string_view(digits).substr(first, last - first + 1);

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
