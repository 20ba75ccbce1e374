#include "runtime/json/decimal.h"

#include "gtest/gtest.h"

namespace agentrt::json {
namespace {

TEST(DecimalTest, ComparesByValueNotByDouble) {
  struct Row {
    const char* a;
    const char* b;
    int order;
  } rows[] = {
      {"1", "1.0", 0},
      {"-0", "0", 0},
      {"1e2", "100", 0},
      {"9007199254740993", "9007199254740992", 1},
      {"-1", "1", -1},
      {"-2", "-1", -1},
      {"0.1", "0.10000000000000000001", -1},
      {"1e-400", "0", 1},
      {"-1e-400", "0", -1},
      {"1e400", "9.99e399", 1},
      {"123.45", "12.345e1", 0},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.a) + " vs " + row.b);
    EXPECT_EQ(CompareDecimal(ParseDecimal(row.a), ParseDecimal(row.b)), row.order);
    EXPECT_EQ(CompareDecimal(ParseDecimal(row.b), ParseDecimal(row.a)), -row.order);
  }
}

TEST(DecimalTest, MultipleOfIsExactForDecimals) {
  struct Row {
    const char* value;
    const char* divisor;
    bool multiple;
  } rows[] = {
      {"19.99", "0.01", true},
      {"0.3", "0.1", true},
      {"0.0075", "0.0001", true},
      {"0.00751", "0.0001", false},
      {"1e308", "0.123456789", false},
      {"10", "2.5", true},
      {"7", "2", false},
      {"0", "3.7", true},
      {"-4.5", "1.5", true},
      {"123456789012345678901234567890", "3", true},
      {"1e1000", "7", false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.value) + " / " + row.divisor);
    Decimal divisor = ParseDecimal(row.divisor);
    ASSERT_TRUE(MultipleOfSupported(divisor));
    EXPECT_EQ(IsMultipleOf(ParseDecimal(row.value), divisor), row.multiple);
  }
  EXPECT_FALSE(MultipleOfSupported(ParseDecimal("0")));
  EXPECT_FALSE(MultipleOfSupported(ParseDecimal("-1")));
}

TEST(DecimalTest, IntegersAreMathematical) {
  EXPECT_TRUE(IsIntegerLiteral("1.0"));
  EXPECT_TRUE(IsIntegerLiteral("2.5e1"));
  EXPECT_FALSE(IsIntegerLiteral("2.5"));
  EXPECT_TRUE(IsIntegerLiteral("-0.0"));
  EXPECT_EQ(ParseDecimal("1.50e3").magnitude(), 3);
}

}  // namespace
}  // namespace agentrt::json
