// Verifying a log (runtime/operator/verify.h): a range is walked up to the head read first, the
// rows are audited only when the walk covers the whole log, a range past the head is reported
// unreached, and a kept head is found, matched, or reported missing.
#include "runtime/operator/verify.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using test_support::StatusIs;

class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = *test_support::OpenTestStore(clock_);
    // Two runs that complete at once: a chain to walk, and rows that agree with it.
    ScriptedAgent agent({scripted::Complete("{}"), scripted::Complete("{}")});
    std::unique_ptr<Policy> policy = DefaultPolicy();
    DriverOptions options;
    options.agent = &agent;
    options.policy = policy.get();
    options.scheduler = &clock_;
    absl::StatusOr<std::unique_ptr<Driver>> driver =
        Driver::Create(*store_, clock_, entropy_, options);
    ASSERT_OK(driver);
    ASSERT_OK((*driver)->Start("first"));
    ASSERT_OK((*driver)->Start("second"));
    head_ = store_->Head()->seq;
    ASSERT_GE(head_, 6);
  }

  std::string HashOf(std::int64_t seq) { return *store_->StoredHash(seq); }

  world::ManualClock clock_{absl::FromUnixSeconds(1700000000)};
  world::SeededEntropy entropy_{7};
  std::unique_ptr<store::Store> store_;
  std::int64_t head_ = 0;
};

TEST_F(VerifyTest, TheWholeLogIsWalkedAndItsRowsAudited) {
  absl::StatusOr<VerifyReport> report = VerifyLog(*store_, {});
  ASSERT_OK(report);
  EXPECT_EQ(report->head.seq, head_);
  EXPECT_EQ(report->walk.from, 1);
  EXPECT_EQ(report->walk.to, head_);
  EXPECT_EQ(report->walk.checked, head_);
  EXPECT_TRUE(report->Intact());
  EXPECT_TRUE(report->reached);
  ASSERT_TRUE(report->rows.has_value());
  EXPECT_EQ(report->rows->runs, 2);
  EXPECT_EQ(report->rows->contradictions, 0);
  EXPECT_TRUE(report->Ok());
}

TEST_F(VerifyTest, APartialWalkAuditsNoRows) {
  absl::StatusOr<VerifyReport> report = VerifyLog(*store_, {.from = 2, .to = head_ - 1});
  ASSERT_OK(report);
  EXPECT_EQ(report->walk.from, 2);
  EXPECT_EQ(report->walk.to, head_ - 1);
  EXPECT_EQ(report->walk.checked, head_ - 2);
  EXPECT_FALSE(report->rows.has_value());
  EXPECT_TRUE(report->Ok());
}

TEST_F(VerifyTest, ARangePastTheHeadIsNotReached) {
  absl::StatusOr<VerifyReport> report = VerifyLog(*store_, {.to = head_ + 4});
  ASSERT_OK(report);
  EXPECT_EQ(report->walk.to, head_);  // walked to the head
  EXPECT_FALSE(report->reached);
  EXPECT_TRUE(report->Intact());
  EXPECT_FALSE(report->Ok());
}

TEST_F(VerifyTest, AKeptHeadIsFoundAndMatched) {
  absl::StatusOr<VerifyReport> same = VerifyLog(*store_, {.kept = KeptHead{3, HashOf(3)}});
  ASSERT_OK(same);
  EXPECT_THAT(same->kept_stored, Optional(HashOf(3)));
  EXPECT_TRUE(same->kept_matches);
  EXPECT_TRUE(same->Ok());

  absl::StatusOr<VerifyReport> other =
      VerifyLog(*store_, {.kept = KeptHead{3, std::string(64, 'a')}});
  ASSERT_OK(other);
  EXPECT_TRUE(other->kept_stored.has_value());
  EXPECT_FALSE(other->kept_matches);
  EXPECT_FALSE(other->Ok());

  // A log cut before the kept head still verifies; only the kept head says so.
  absl::StatusOr<VerifyReport> beyond =
      VerifyLog(*store_, {.kept = KeptHead{head_ + 2, std::string(64, 'a')}});
  ASSERT_OK(beyond);
  EXPECT_TRUE(beyond->Intact());
  EXPECT_FALSE(beyond->kept_stored.has_value());
  EXPECT_FALSE(beyond->Ok());
}

TEST_F(VerifyTest, ARangeOutOfOrderIsRefused) {
  EXPECT_THAT(VerifyLog(*store_, {.from = 4, .to = 2}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(VerifyLog(*store_, {.from = 2, .kept = KeptHead{1, std::string(64, 'a')}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(KeptHeadTest, IsASeqAndAnEventHash) {
  std::string hash(64, 'f');
  EXPECT_THAT(ParseKeptHead("12:" + hash), Optional(::testing::Field(&KeptHead::seq, 12)));
  for (std::string bad : {std::string("12"), "0:" + hash, "-1:" + hash, "x:" + hash,
                          "1:" + hash + "0", "1:" + std::string(64, 'F')}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(ParseKeptHead(bad), std::nullopt);
  }
}

}  // namespace
}  // namespace agentrt
