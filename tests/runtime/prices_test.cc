// Prices and budgets: absence is not free, budgets read as people
// write them.
#include "runtime/prices.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt {
namespace {

TEST(PricesTest, UnpricedModelRefused) {
  PriceTable table{{"paid-model", Price{3'000'000, 15'000'000, 300'000}}};
  absl::StatusOr<Price> known = PriceFor(table, "paid-model");
  ASSERT_OK(known);
  EXPECT_EQ(known->output_per_mtok, 15'000'000);
  absl::StatusOr<Price> unknown = PriceFor(table, "another-paid-model");
  EXPECT_TRUE(absl::IsNotFound(unknown.status()));
  EXPECT_EQ(unknown.status().message(), "another-paid-model: no price for this model");
}

TEST(PricesTest, FreeDistinguishesFreeFromUnpriced) {
  PriceTable table = Merge({PriceTable{{"paid", Price{1, 2, 3}}}, Free({"local:llama"})});
  absl::StatusOr<Price> local = PriceFor(table, "local:llama");
  ASSERT_OK(local);
  EXPECT_EQ(CostMicros(Usage{1'000'000, 1'000'000, 0}, *local), 0);
  EXPECT_EQ(PriceFor(table, "local:other").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(PriceFor(table, "local:other").status().message(), HasSubstr("local:other"));
  EXPECT_EQ(PriceFor(table, "paid")->cached_input_per_mtok, 3);
}

TEST(PricesTest, MergeLaterTableWins) {
  PriceTable merged = Merge({PriceTable{{"m", Price{1, 1, 1}}}, PriceTable{{"m", Price{2, 2, 2}}}});
  EXPECT_EQ(merged.at("m").input_per_mtok, 2);
}

TEST(PricesTest, CostIsExactFlooredAndSaturating) {
  Price p{3'000'000, 15'000'000, 300'000};
  EXPECT_EQ(CostMicros(Usage{1200, 300, 200}, p), 3000 + 60 + 4500);
  // Each term floors on its own: 1 token at 1.5 micros per token is 1 micro.
  EXPECT_EQ(CostMicros(Usage{1, 0, 0}, Price{1'500'000, 0, 0}), 1);
  EXPECT_EQ(CostMicros(Usage{-5, -1, -1}, p), 0);
  EXPECT_EQ(CostMicros(Usage{INT64_MAX, INT64_MAX, 0}, Price{INT64_MAX, INT64_MAX, 0}), INT64_MAX);
}

TEST(PricesTest, ParseDollarsAcceptedForms) {
  struct Case {
    const char* text;
    std::int64_t micros;
  };
  for (const Case& c : {Case{"5", 5'000'000}, Case{"4.41", 4'410'000}, Case{"$0.50", 500'000},
                        Case{" $2 ", 2'000'000}, Case{"0", 0}, Case{"0.000001", 1},
                        Case{"0.0000005", 1}, Case{"0.0000004", 0}, Case{"$ 3", 3'000'000}}) {
    absl::StatusOr<std::int64_t> got = ParseDollars(c.text);
    ASSERT_OK(got) << c.text;
    EXPECT_EQ(*got, c.micros) << c.text;
  }
  for (const char* bad : {"", "-1", "$-0.5", "free", "1,50", "NaN", "Inf", "1e13", "+1", "1.", ".5",
                          "$$1", "1e300"}) {
    absl::StatusOr<std::int64_t> got = ParseDollars(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(got.status())) << bad;
  }
  // Amounts are read exactly, not through a double: the largest int64 of micros is accepted,
  // one micro more is too large.
  EXPECT_EQ(*ParseDollars("9223372036854.775807"), INT64_MAX);
  EXPECT_THAT(ParseDollars("9223372036854.775808").status().message(), HasSubstr("too large"));
  EXPECT_THAT(ParseDollars("\x1b[31m").status().message(), HasSubstr("\\x1b"));
}

}  // namespace
}  // namespace agentrt
