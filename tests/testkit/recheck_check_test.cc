// Re-check helpers (docs/testkit.md): a policy that decides from its input
// re-checks the same; one that reads outside state does not; a re-check that proves nothing
// fails; a second policy's changes are named by step.
#include "testkit/recheck_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

using ::agentrt::scripted::Call;

class RecheckSameTest : public ::testing::Test {
 protected:
  Scenario Product(Policy& policy) {
    Scenario s;
    s.tools = {read_.get(), write_.get(), pay_.get()};
    s.policy = &policy;
    s.script = {Call("read_file", R"({"path":"/workspace/invoice"})"),
                Call("write_file", R"({"path":"/workspace/note","content":"paid"})"),
                Call("pay", R"({"amount":250,"currency":"EUR"})"),
                Call("read_file", R"({"path":"/workspace/receipt"})"), Decision{"complete"}};
    return s;
  }
  std::unique_ptr<Tool> read_ = product::ReadFile();
  std::unique_ptr<Tool> write_ = product::WriteFile();
  std::unique_ptr<Tool> pay_ = product::Pay();
  product::WorkspacePolicy policy_;
};
using RecheckDiffersTest = RecheckSameTest;

TEST_F(RecheckSameTest, ScenarioPolicyThatDecidesFromItsInputPasses) {
  absl::StatusOr<Report> report = RecheckSame(Product(policy_));
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->Text();
  // read, write, the payment's pause and its evaluation on resume, the second read.
  EXPECT_EQ(report->checked, 5);
}

// Allows the first three requests it is ever asked, then denies: it decides from a counter of
// its own, not from its input.
class QuotaPolicy : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
    PolicyDecision d;
    d.outcome = ++asked_ <= 3 ? PolicyOutcome::kAllow : PolicyOutcome::kDeny;
    d.reason = "quota";
    return d;
  }

 private:
  int asked_ = 0;
};

TEST_F(RecheckSameTest, PolicyThatReadsOutsideStateFails) {
  QuotaPolicy quota;
  absl::StatusOr<Report> report = RecheckSame(Product(quota));
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  // Asked again, its counter has moved on: the three allowed calls are now denied.
  ASSERT_EQ(report->failures.size(), 3u) << report->Text();
  EXPECT_THAT(report->failures[0], ElementsAre("0", "read_file", "allow", "deny", ::testing::_));
  EXPECT_THAT(report->Text(), HasSubstr("re-check of run scenario-run: 3 failures in 4 checked"));
}

TEST_F(RecheckDiffersTest, NamesTheStepsASecondPolicyChanges) {
  // Under review: no more writes and no payments at all.
  class Stricter : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& r, const RunView&) override {
      PolicyDecision d;
      d.outcome = r.spec.side_effect == SideEffect::kReadOnly ? PolicyOutcome::kAllow
                                                              : PolicyOutcome::kDeny;
      d.reason = "read only from now on";
      return d;
    }
  } stricter;
  absl::StatusOr<Changes> changes = RecheckDiffers(Product(policy_), stricter);
  ASSERT_OK(changes);
  EXPECT_THAT(changes->steps, ElementsAre(1, 2));
  EXPECT_THAT(changes->lines, ElementsAre("step 1 (write_file): allow -> deny",
                                          "step 2 (pay): require_approval (payment) -> deny",
                                          "step 2 (on resume) (pay): require_approval "
                                          "(payment) -> deny"));
  // The product's own policy changes nothing.
  absl::StatusOr<Changes> none = RecheckDiffers(Product(policy_), policy_);
  ASSERT_OK(none);
  EXPECT_TRUE(none->steps.empty()) << none->Text();
}

TEST_F(RecheckSameTest, FailsWhenNothingWasRechecked) {
  // Nothing asked: the agent completes at once.
  Scenario quiet = Product(policy_);
  quiet.script = {Decision{"complete"}};
  absl::StatusOr<Report> report = RecheckSame(quiet);
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  EXPECT_THAT(report->Text(), HasSubstr("nothing was re-checked: the run recorded no policy "
                                        "evaluation"));

  // A policy that only ever failed left nothing to ask again.
  class Broken : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& r, const RunView&) override {
      if (r.spec.name == "read_file" && !fail_reads_) {
        PolicyDecision d;
        d.outcome = PolicyOutcome::kAllow;
        return d;
      }
      return absl::UnavailableError("the rules service is down");
    }
    bool fail_reads_ = true;
  } broken;
  report = RecheckSame(Product(broken));
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  EXPECT_THAT(report->Text(), HasSubstr("nothing was re-checked: no recorded evaluation can be "
                                        "asked again"));

  // One read allowed, then the policy failed on the write: a strict re-check fails on the
  // evaluation it could not ask again; a partial one passes on the read and notes the rest.
  broken.fail_reads_ = false;
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  world::SeededEntropy entropy(2);
  auto store = *records::OpenStoreInMemory(clock);
  ScriptedAgent agent({Call("read_file", R"({"path":"/a"})"),
                       Call("write_file", R"({"path":"/workspace/b","content":"x"})")});
  DriverOptions options{&agent, &broken, {read_.get(), write_.get()}, "test"};
  options.scheduler = &clock;
  auto driver = *Driver::Create(*store, clock, entropy, options);
  ASSERT_EQ(driver->StartWithId("r", "half broken", Limits{})->reason, "internal_error");
  absl::StatusOr<Report> strict = RecheckSame(*store, "r", broken);
  ASSERT_OK(strict);
  EXPECT_FALSE(strict->ok());
  EXPECT_THAT(strict->failures,
              ElementsAre(ElementsAre("1", "write_file", "", "not re-checkable",
                                      HasSubstr("policy failed; no evaluation recorded"))));
  absl::StatusOr<Report> partial = RecheckSamePartial(*store, "r", broken);
  ASSERT_OK(partial);
  EXPECT_TRUE(partial->ok()) << partial->Text();
  EXPECT_THAT(partial->notes, Contains(HasSubstr("step 1 not re-checkable")));
  // Partial still needs something re-checked.
  EXPECT_FALSE(RecheckSamePartial(*store, "r", broken).value().failures.size() > 0);
  EXPECT_THAT(RecheckSame(*store, "missing", broken).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace agentrt::testkit
