// Re-checking a run's recorded decisions against a policy (reference/core.md §8).
#include "runtime/operator/recheck.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace agentrt {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

class SpecTool : public Tool {
 public:
  SpecTool(std::string name, SideEffect side_effect) : name_(std::move(name)), se_(side_effect) {}
  ToolSpec Spec() const override {
    return ToolSpec{name_, "A tool.", R"({"type":"object"})", se_, absl::Seconds(5), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override { return ToolResult{"{}", "ok"}; }

 private:
  std::string name_;
  SideEffect se_;
};

// Denies everything that is not read_only; asks approval with a presentation of its own.
class StricterPolicy : public Policy {
 public:
  explicit StricterPolicy(std::string presentation = "") : presentation_(std::move(presentation)) {}
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView&) override {
    PolicyDecision d;
    if (request.spec.side_effect == SideEffect::kRemoteMutation && !presentation_.empty()) {
      d.outcome = PolicyOutcome::kRequireApproval;
      d.kind = "remote_mutation";
      d.capability = R"({"args":)" + request.args + R"(,"tool":")" + request.spec.name + "\"}";
      d.presentation = presentation_;
      return d;
    }
    d.outcome = request.spec.side_effect == SideEffect::kReadOnly ? PolicyOutcome::kAllow
                                                                  : PolicyOutcome::kDeny;
    d.reason = "stricter";
    return d;
  }

 private:
  std::string presentation_;
};

Decision Call(std::string tool) { return scripted::Call(std::move(tool), R"({"x":1})"); }

class RecheckTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = *store::Store::OpenInMemory(clock_); }
  void RunWith(std::vector<Decision> script) {
    ScriptedAgent agent(std::move(script));
    std::unique_ptr<Policy> policy = DefaultPolicy();
    DriverOptions options{&agent, policy.get(), {&read_, &write_, &post_}, "test"};
    options.scheduler = &lease_clock_;
    auto driver = *Driver::Create(*store_, clock_, entropy_, options);
    ASSERT_TRUE(driver->StartWithId("run-1", "recheck me", Limits{}).ok());
  }

  world::ManualClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock_{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy_{5};
  std::unique_ptr<store::Store> store_;
  SpecTool read_{"read", SideEffect::kReadOnly};
  SpecTool write_{"write", SideEffect::kLocalMutation};
  SpecTool post_{"post", SideEffect::kRemoteMutation};
};

using ::agentrt::scripted::Complete;

TEST_F(RecheckTest, TheSamePolicyDecidesEveryEvaluationAlike) {
  RunWith({Call("read"), Call("write"), Call("post")});
  std::unique_ptr<Policy> policy = DefaultPolicy();
  absl::StatusOr<RecheckReport> report = Recheck(*store_, "run-1", *policy);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->evaluations, SizeIs(3));
  EXPECT_EQ(report->same, 3);
  EXPECT_TRUE(report->Same());
  EXPECT_THAT(report->notes, ::testing::Contains(HasSubstr("re-checked up to its current state")));
}

TEST_F(RecheckTest, AStricterPolicyNamesExactlyTheEvaluationsThatDiffer) {
  RunWith({Call("read"), Call("write"), Complete()});
  StricterPolicy stricter;
  absl::StatusOr<RecheckReport> report = Recheck(*store_, "run-1", stricter);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->same, 1);
  EXPECT_EQ(report->different, 1);
  const RecheckedEvaluation& write = report->evaluations[1];
  EXPECT_EQ(write.tool, "write");
  EXPECT_EQ(write.result, RecheckResult::kDifferent);
  EXPECT_EQ(write.detail, "was allow, now deny");
  std::string text = FormatRecheck(*report);
  EXPECT_THAT(text, HasSubstr("1 of 2 re-checked evaluations differ"));
  EXPECT_LT(text.find("DIFFERENT step 1"), text.find("same      step 0"));
}

TEST_F(RecheckTest, AChangedPresentationIsADifferentApprovalWithTheSameOutcome) {
  RunWith({Call("post")});
  StricterPolicy other_presentation(R"({"warning":"this posts publicly"})");
  absl::StatusOr<RecheckReport> report = Recheck(*store_, "run-1", other_presentation);
  ASSERT_TRUE(report.ok());
  ASSERT_THAT(report->evaluations, SizeIs(1));
  EXPECT_EQ(report->evaluations[0].result, RecheckResult::kDifferent);
  EXPECT_THAT(report->evaluations[0].detail, HasSubstr("a different approval"));
}

TEST_F(RecheckTest, CurrentToolsReplaceTheRecordedSpecs) {
  RunWith({Call("read"), Complete()});
  std::unique_ptr<Policy> policy = DefaultPolicy();
  std::vector<Tool*> none;
  absl::StatusOr<RecheckReport> report = Recheck(*store_, "run-1", *policy, &none);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->evaluations[0].result, RecheckResult::kDifferent);
  EXPECT_THAT(report->evaluations[0].detail, HasSubstr("is not among the current tools"));
  std::vector<Tool*> same = {&read_};
  EXPECT_TRUE(Recheck(*store_, "run-1", *policy, &same)->Same());
}

TEST_F(RecheckTest, PolicyIdentityIsComparedWhenBothSidesNameOne) {
  class Named : public Policy {
   public:
    explicit Named(std::string id) : id_(std::move(id)) {}
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& r, const RunView& v) override {
      return inner_->Evaluate(r, v);
    }
    std::string Id() const override { return id_; }
    std::string id_;
    std::unique_ptr<Policy> inner_ = DefaultPolicy();
  };
  Named v1("rules@1"), v2("rules@2");
  ScriptedAgent agent({Call("read"), Complete()});
  DriverOptions options{&agent, &v1, {&read_}, "test"};
  options.scheduler = &lease_clock_;
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  ASSERT_TRUE(driver->StartWithId("run-1", "named", Limits{}).ok());
  EXPECT_EQ(Recheck(*store_, "run-1", v1)->identity, "unchanged");
  EXPECT_EQ(Recheck(*store_, "run-1", v2)->identity, "changed");
  std::unique_ptr<Policy> unnamed = DefaultPolicy();
  EXPECT_EQ(Recheck(*store_, "run-1", *unnamed)->identity, "unknown");
  EXPECT_THAT(FormatRecheck(*Recheck(*store_, "run-1", v2)), HasSubstr("policy identity changed"));
}

TEST_F(RecheckTest, ARecordedPolicyErrorIsListedAndTheReportIsIncomplete) {
  class Failing : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
      return absl::UnavailableError("rules service down");
    }
  } failing;
  ScriptedAgent agent({Call("read")});
  DriverOptions options{&agent, &failing, {&read_}, "test"};
  options.scheduler = &lease_clock_;
  auto driver = *Driver::Create(*store_, clock_, entropy_, options);
  ASSERT_TRUE(driver->StartWithId("run-1", "fails", Limits{}).ok());
  std::unique_ptr<Policy> policy = DefaultPolicy();
  absl::StatusOr<RecheckReport> report = Recheck(*store_, "run-1", *policy);
  ASSERT_TRUE(report.ok());
  ASSERT_THAT(report->evaluations, SizeIs(1));
  EXPECT_EQ(report->evaluations[0].result, RecheckResult::kNotRecheckable);
  EXPECT_THAT(report->evaluations[0].detail,
              HasSubstr("policy failed; no evaluation recorded: policy error: rules service down"));
  std::string json = RecheckJson(*report);
  EXPECT_THAT(json, HasSubstr(R"("complete":false)"));
  EXPECT_THAT(json, HasSubstr(R"("result":"not_recheckable")"));
}

TEST_F(RecheckTest, UnknownRunIsNotFound) {
  std::unique_ptr<Policy> policy = DefaultPolicy();
  EXPECT_EQ(Recheck(*store_, "nope", *policy).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace agentrt
