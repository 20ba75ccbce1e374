// The status matchers match what they say and, above all, fail on the wrong status with the
// status's code and message in the failure: that message is why they replace ASSERT_TRUE(x.ok()).
#include "tests/support/status_matchers.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace agentrt::test_support {
namespace {

using ::testing::DescribeMatcher;
using ::testing::ExplainMatchResult;
using ::testing::Matcher;
using ::testing::StringMatchResultListener;

const absl::Status kNotFound = absl::NotFoundError("run r-7 not found");

// What the matcher says about `value` when it is applied: whether it matched, and why.
template <typename T, typename M>
std::string Explanation(const M& matcher, const T& value) {
  StringMatchResultListener listener;
  ExplainMatchResult(matcher, value, &listener);
  return listener.str();
}

TEST(IsOkTest, MatchesAnOkStatusAndAStatusOrWithAValue) {
  EXPECT_THAT(absl::OkStatus(), IsOk());
  EXPECT_THAT(absl::StatusOr<int>(7), IsOk());
  EXPECT_THAT(absl::StatusOr<std::string>("seven"), IsOk());
}

TEST(IsOkTest, DoesNotMatchAnError) {
  EXPECT_THAT(kNotFound, Not(IsOk()));
  EXPECT_THAT(absl::StatusOr<int>(kNotFound), Not(IsOk()));
  EXPECT_FALSE(Matcher<absl::Status>(IsOk()).Matches(kNotFound));
}

TEST(IsOkTest, ExplainsAnErrorWithItsCodeAndMessage) {
  EXPECT_EQ(Explanation(IsOk(), kNotFound), "which has status NOT_FOUND: run r-7 not found");
  EXPECT_EQ(Explanation(IsOk(), absl::StatusOr<int>(kNotFound)),
            "which has status NOT_FOUND: run r-7 not found");
  EXPECT_EQ(Explanation(Not(IsOk()), absl::OkStatus()), "which is OK");
  EXPECT_EQ(DescribeMatcher<absl::Status>(IsOk()), "is OK");
  EXPECT_EQ(DescribeMatcher<absl::Status>(IsOk(), /*negation=*/true), "is not OK");
}

TEST(IsOkTest, MacrosFailWithTheStatusMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(kNotFound), "NOT_FOUND: run r-7 not found");
  EXPECT_FATAL_FAILURE(ASSERT_OK(absl::StatusOr<int>(kNotFound)), "NOT_FOUND: run r-7 not found");
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(kNotFound) << "while loading pins.json", "pins.json");
  EXPECT_OK(absl::OkStatus());
  ASSERT_OK(absl::StatusOr<int>(1));
}

TEST(IsOkTest, MacrosEvaluateTheExpressionOnce) {
  int calls = 0;
  auto call = [&] {
    ++calls;
    return absl::OkStatus();
  };
  EXPECT_OK(call());
  EXPECT_EQ(calls, 1);
}

TEST(StatusIsTest, MatchesTheCode) {
  EXPECT_THAT(kNotFound, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(absl::StatusOr<int>(kNotFound), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(absl::OkStatus(), StatusIs(absl::StatusCode::kOk));
  EXPECT_THAT(absl::StatusOr<int>(3), StatusIs(absl::StatusCode::kOk));
}

TEST(StatusIsTest, DoesNotMatchAnotherCode) {
  EXPECT_THAT(kNotFound, Not(StatusIs(absl::StatusCode::kInvalidArgument)));
  EXPECT_THAT(absl::StatusOr<int>(kNotFound), Not(StatusIs(absl::StatusCode::kDataLoss)));
  EXPECT_THAT(absl::OkStatus(), Not(StatusIs(absl::StatusCode::kNotFound)));
  EXPECT_THAT(absl::StatusOr<int>(3), Not(StatusIs(absl::StatusCode::kNotFound)));
}

TEST(StatusIsTest, MatchesTheMessageToo) {
  EXPECT_THAT(kNotFound, StatusIs(absl::StatusCode::kNotFound, HasSubstr("r-7")));
  EXPECT_THAT(kNotFound, StatusIs(absl::StatusCode::kNotFound, "run r-7 not found"));
  EXPECT_THAT(kNotFound, Not(StatusIs(absl::StatusCode::kNotFound, HasSubstr("r-8"))));
  EXPECT_THAT(kNotFound, Not(StatusIs(absl::StatusCode::kNotFound, "run r-7")));
  // Both must match: the right message under the wrong code is not a match.
  EXPECT_THAT(kNotFound, Not(StatusIs(absl::StatusCode::kInternal, HasSubstr("r-7"))));
  EXPECT_THAT(kNotFound, StatusIs(Not(absl::StatusCode::kOk), HasSubstr("not found")));
}

TEST(StatusIsTest, ExplainsWithTheActualStatus) {
  EXPECT_EQ(Explanation(StatusIs(absl::StatusCode::kInternal), kNotFound),
            "which has status NOT_FOUND: run r-7 not found");
  EXPECT_EQ(Explanation(StatusIs(absl::StatusCode::kNotFound), absl::StatusOr<int>(1)),
            "which is OK");
  EXPECT_EQ(DescribeMatcher<absl::Status>(StatusIs(absl::StatusCode::kNotFound, HasSubstr("r-7"))),
            "has a status code that is equal to NOT_FOUND, and a message that has substring "
            "\"r-7\"");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_THAT(kNotFound, StatusIs(absl::StatusCode::kNotFound, HasSubstr("r-8"))),
      "which has status NOT_FOUND: run r-7 not found");
}

TEST(IsOkAndHoldsTest, MatchesTheValue) {
  EXPECT_THAT(absl::StatusOr<int>(7), IsOkAndHolds(7));
  EXPECT_THAT(absl::StatusOr<std::string>("seven"), IsOkAndHolds(HasSubstr("eve")));
  EXPECT_THAT(absl::StatusOr<std::vector<int>>(std::vector<int>{1, 2}),
              IsOkAndHolds(ElementsAre(1, 2)));
  // A move-only value too.
  EXPECT_THAT(absl::StatusOr<std::unique_ptr<int>>(std::make_unique<int>(3)),
              IsOkAndHolds(testing::Pointee(3)));
}

TEST(IsOkAndHoldsTest, DoesNotMatchAnotherValueOrAnError) {
  EXPECT_THAT(absl::StatusOr<int>(7), Not(IsOkAndHolds(8)));
  EXPECT_THAT(absl::StatusOr<int>(kNotFound), Not(IsOkAndHolds(7)));
  EXPECT_THAT(absl::StatusOr<int>(kNotFound), Not(IsOkAndHolds(testing::_)));
}

TEST(IsOkAndHoldsTest, ExplainsWithTheStatusOrTheValue) {
  EXPECT_EQ(Explanation(IsOkAndHolds(7), absl::StatusOr<int>(kNotFound)),
            "which has status NOT_FOUND: run r-7 not found");
  EXPECT_EQ(Explanation(IsOkAndHolds(8), absl::StatusOr<int>(7)), "which is OK and holds 7");
  EXPECT_EQ(DescribeMatcher<absl::StatusOr<int>>(IsOkAndHolds(7)),
            "is OK and holds a value that is equal to 7");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(absl::StatusOr<int>(kNotFound), IsOkAndHolds(7)),
                          "NOT_FOUND: run r-7 not found");
}

}  // namespace
}  // namespace agentrt::test_support
