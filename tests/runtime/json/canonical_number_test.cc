#include "runtime/json/canonical_number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace agentrt::json {
namespace {

struct Row {
  const char* literal;
  const char* expected;
};

TEST(CanonicalNumberTest, ExactDoublesTakeTheEcmaScriptForm) {
  const Row rows[] = {
      {"0", "0"},
      {"-0", "0"},
      {"-0.0", "0"},
      {"0e10", "0"},
      {"1.0", "1"},
      {"1e2", "100"},
      {"1E+2", "100"},
      {"100.00", "100"},
      {"12e0", "12"},
      {"2.50", "2.5"},
      {"4.50", "4.5"},
      {"2e-3", "0.002"},
      {"0.000001", "0.000001"},
      {"1e-7", "1e-7"},
      {"1e20", "100000000000000000000"},
      {"1e21", "1e+21"},
      {"1E30", "1e+30"},
      {"0.000000000000000000000000001", "1e-27"},
      {"123456789012345680000", "123456789012345680000"},
      {"5e-324", "5e-324"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"1.5e300", "1.5e+300"},
      {"-12.5e-1", "-1.25"},
      {"-1e-7", "-1e-7"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.literal);
    EXPECT_EQ(CanonicalNumber(row.literal), row.expected);
  }
}

TEST(CanonicalNumberTest, LiteralsADoubleWouldRoundKeepTheirDigits) {
  const Row rows[] = {
      {"9007199254740993", "9007199254740993"},
      {"12345678901234567890", "12345678901234567890"},
      {"0.1000000000000000000001", "0.1000000000000000000001"},
      {"0.10000000000000000000010", "0.1000000000000000000001"},
      {"1.00000000000000000001e300", "1.00000000000000000001e+300"},
      {"3.141592653589793238462643383279", "3.141592653589793238462643383279"},
      {"-9007199254740993.000", "-9007199254740993"},
      {"9.007199254740993E15", "9007199254740993"},
      {"0.00000012345678901234567890123", "1.2345678901234567890123e-7"},
      {"123456789012345678901234567890", "1.2345678901234567890123456789e+29"},
      {"100000000000000000000000000000000001", "1.00000000000000000000000000000000001e+35"},
      {"1e400", "1e+400"},
      {"-1e-400", "-1e-400"},
      {"333333333.33333329", "333333333.33333329"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.literal);
    EXPECT_EQ(CanonicalNumber(row.literal), row.expected);
  }
}

// ECMAScript Number::toString for a finite double, written from the specification's steps
// with the shortest round-trip digits std::to_chars gives. The property below checks that
// normalizing a literal equals this whenever the double holds the literal exactly.
std::string EcmaScriptNumberToString(double value) {
  if (value == 0) return "0";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(value),
                                 std::chars_format::scientific);
  std::string sci(buffer, end);
  std::size_t e = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e > 2 ? sci.substr(2, e - 2) : "");
  int k = static_cast<int>(digits.size());
  int n = std::stoi(sci.substr(e + 1)) + 1;
  std::string out = value < 0 ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += "e" + std::string(n - 1 >= 0 ? "+" : "-") + std::to_string(std::abs(n - 1));
  }
  return out;
}

TEST(CanonicalNumberTest, ShortestDoubleTextsMatchEcmaScriptForRandomDoubles) {
  std::mt19937_64 bits(20261129);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t raw = bits();
    double value;
    static_assert(sizeof(value) == sizeof(raw));
    std::memcpy(&value, &raw, sizeof(value));
    if (!std::isfinite(value)) continue;
    char buffer[64];
    for (auto format : {std::chars_format::general, std::chars_format::scientific}) {
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value, format);
      ASSERT_EQ(ec, std::errc());
      std::string literal(buffer, end);
      SCOPED_TRACE(literal);
      ASSERT_EQ(CanonicalNumber(literal), EcmaScriptNumberToString(value));
      ++checked;
    }
  }
  EXPECT_GT(checked, 300000);
}

// A literal that spells out a double's exact binary value is a different number from the
// double's shortest text, although both parse to the same double: canonical form follows the
// number written, so the two stay distinct (docs/decisions/0002-numbers-from-literals.md).
TEST(CanonicalNumberTest, ExactExpansionOfADoubleIsNotFoldedIntoItsShortestText) {
  EXPECT_EQ(CanonicalNumber("348769051247485465151818563692627466120267988260093952"),
            "3.48769051247485465151818563692627466120267988260093952e+53");
  EXPECT_EQ(CanonicalNumber("3.4876905124748547e+53"), "3.4876905124748547e+53");
  EXPECT_EQ(CanonicalNumber("0.1000000000000000055511151231257827021181583404541015625"),
            "0.1000000000000000055511151231257827021181583404541015625");
}

}  // namespace
}  // namespace agentrt::json
