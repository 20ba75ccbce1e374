// Policy conformance tables and Never (docs/testkit.md): a product's policy is asked
// exactly as the driver asks it, after the driver's own argument check.
#include "testkit/policy_check.h"

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/tool_registry.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

class CheckPolicyTest : public ::testing::Test {
 protected:
  std::unique_ptr<Tool> read_ = product::ReadFile();
  std::unique_ptr<Tool> write_ = product::WriteFile();
  std::unique_ptr<Tool> pay_ = product::Pay();
  std::vector<Tool*> tools_ = {read_.get(), write_.get(), pay_.get()};
  product::WorkspacePolicy policy_;
};
using CheckArgsTest = CheckPolicyTest;
using NeverTest = CheckPolicyTest;

TEST_F(CheckPolicyTest, AgreeingTablePasses) {
  std::vector<PolicyCase> table = {
      {"read anywhere", "read_file", R"({"path":"/etc/hosts"})", Allow()},
      {"write inside", "write_file", R"({"path":"/workspace/a","content":"x"})", Allow()},
      {"write outside", "write_file", R"({"path":"/etc/passwd","content":"x"})", Deny()},
      {"climb out", "write_file", R"({"path":"/workspace/../etc","content":"x"})", Deny()},
      {"big payment", "pay", R"({"amount":250,"currency":"EUR"})", RequireApproval("payment")},
      {"any approval", "pay", R"({"amount":250,"currency":"EUR"})", RequireApproval()},
      {"small payment", "pay", R"({"amount":5,"currency":"USD"})", Allow()},
      {"no path", "read_file", "{}", Refused()},
      {"blank is {}", "read_file", "  ", Refused()},
      {"not JSON", "read_file", R"({"path":)", Refused()},
      {"unknown tool", "delete_all", "{}", Refused()},
  };
  absl::StatusOr<Report> report = CheckPolicy(policy_, tools_, table);
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->Text();
  EXPECT_EQ(report->checked, 11);
  EXPECT_EQ(report->Text(), "policy conformance: all 11 passed\n");
}

TEST_F(CheckPolicyTest, DisagreementsAreOneReadableTable) {
  std::vector<PolicyCase> table = {
      {"write outside", "write_file", R"({"path":"/etc/passwd","content":"x"})", Allow()},
      {"big payment", "pay", R"({"amount":250,"currency":"EUR"})", RequireApproval("transfer")},
      {"read fine", "read_file", R"({"path":"/a"})", Allow()},
      // The schema refuses an amount over 10000 before the policy is ever asked.
      {"huge payment", "pay", R"({"amount":20000,"currency":"EUR"})", Deny()},
      {"extra field", "read_file", R"({"path":"/a","mode":"w"})", Allow()},
  };
  absl::StatusOr<Report> report = CheckPolicy(policy_, tools_, table);
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  ASSERT_EQ(report->failures.size(), 4u);
  std::string text = report->Text();
  // One table: a header, a rule, one line per disagreement, columns aligned.
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  EXPECT_EQ(lines[0], "policy conformance: 4 failures in 5 checked");
  EXPECT_EQ(lines[1],
            "row           | expected                    | got                        | reason");
  EXPECT_EQ(lines[2].find_first_not_of("-+ "), std::string::npos);
  EXPECT_EQ(lines[3],
            "write outside | allow                       | deny                       | writes "
            "stay inside /workspace/");
  EXPECT_EQ(lines[4],
            "big payment   | require_approval (transfer) | require_approval (payment) | payments "
            "over 100 need approval");
  EXPECT_THAT(lines[5], HasSubstr("huge payment  | deny                        | refused"));
  EXPECT_THAT(lines[5], HasSubstr("arguments do not match schema: /amount"));
  EXPECT_THAT(lines[6], HasSubstr("extra field   | allow                       | refused"));
  EXPECT_EQ(lines.size(), 8u);  // the text ends with a newline
  EXPECT_THAT(report->ToStatus().message(), HasSubstr("write outside"));
}

TEST_F(CheckPolicyTest, ViewReachesThePolicy) {
  auto three_failures = [](RunView& view) {
    std::vector<Step> steps;
    for (int i = 0; i < 3; ++i) {
      Step s;
      s.index = i;
      s.status = StepStatus::kFailed;
      steps.push_back(s);
    }
    view.steps = std::move(steps);
    view.run.step_count = 4;
  };
  std::vector<PolicyCase> table = {
      {"fresh run writes", "write_file", R"({"path":"/workspace/a","content":"x"})", Allow()},
      {"after three failures", "write_file", R"({"path":"/workspace/a","content":"x"})", Deny(),
       three_failures},
  };
  absl::StatusOr<Report> report = CheckPolicy(policy_, tools_, table);
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->Text();

  // And the view is the one given: expecting allow after three failures disagrees.
  table[1].expect = Allow();
  report = CheckPolicy(policy_, tools_, table);
  ASSERT_OK(report);
  ASSERT_EQ(report->failures.size(), 1u);
  EXPECT_THAT(report->failures[0], ElementsAre("after three failures", "allow", "deny",
                                               "too many failed steps to keep writing"));
}

TEST_F(CheckPolicyTest, PolicyErrorsAndThrowsAreReportedNotDecisions) {
  class Throwing : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& r, const RunView&) override {
      if (r.spec.name == "pay") throw std::runtime_error("no ledger");
      return absl::UnavailableError("policy store down");
    }
  } policy;
  absl::StatusOr<Report> report =
      CheckPolicy(policy, tools_,
                  {{"pay", "pay", R"({"amount":1,"currency":"EUR"})", Allow()},
                   {"read", "read_file", R"({"path":"/a"})", Allow()}});
  ASSERT_OK(report);
  ASSERT_EQ(report->failures.size(), 2u);
  EXPECT_THAT(report->failures[0],
              ElementsAre("pay", "allow", "policy error", "policy threw: no ledger"));
  EXPECT_THAT(report->failures[1],
              ElementsAre("read", "allow", "policy error", "policy store down"));
}

TEST_F(CheckPolicyTest, ToolsTheDriverWouldRefuseAreAnError) {
  auto again = product::ReadFile();
  EXPECT_THAT(CheckPolicy(policy_, {read_.get(), again.get()}, {}).status().message(),
              HasSubstr("duplicate tool \"read_file\""));
  product::EchoTool bad("bad", SideEffect::kReadOnly, "not json");
  EXPECT_THAT(CheckPolicy(policy_, {&bad}, {}).status().message(),
              HasSubstr("tool \"bad\": input schema refused"));
}

// CheckArgs is the driver's acceptance: the text a refused row reports is the very text the
// agent is shown by the driver for the same arguments.
TEST_F(CheckArgsTest, IsTheDriversAcceptance) {
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  world::SeededEntropy entropy(3);
  auto store = *records::OpenStoreInMemory(clock);
  std::vector<std::string> bad = {R"({"amount":-1,"currency":"EUR"})",
                                  R"({"amount":1})",
                                  R"({"amount":1,"currency":"EUR","x":1})",
                                  R"([1])",
                                  R"({"amount":)",
                                  "  "};
  std::vector<Decision> script;
  for (const std::string& args : bad) script.push_back(Decision{"tool_call", "pay", args});
  ScriptedAgent agent(script);
  DriverOptions options{&agent, &policy_, tools_, "test"};
  options.scheduler = &clock;
  auto driver = *Driver::Create(*store, clock, entropy, options);
  Limits limits;
  limits.max_consecutive_tool_failures = 100;
  limits.max_steps = static_cast<int>(bad.size());
  ASSERT_OK(driver->StartWithId("r", "bad args", limits));
  std::vector<Step> steps = *ReadSteps(*store, "r");
  ASSERT_EQ(steps.size(), bad.size());
  RecordedSpec spec = *RecordSpec(pay_->Spec());
  for (std::size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(bad[i]);
    absl::Status checked = CheckArgs(spec, bad[i]);
    ASSERT_THAT(checked, Not(IsOk()));
    ASSERT_TRUE(steps[i].observation.has_value());
    EXPECT_EQ(steps[i].observation->kind, ObservationKind::kInvalidDecision);
    std::string error = product::Member(steps[i].observation->content, "error");
    EXPECT_EQ(error, checked.message());
  }
  EXPECT_OK(CheckArgs(spec, R"({"amount":1,"currency":"EUR"})"));
}

TEST_F(NeverTest, HoldsAndFails) {
  // The product's rule: nothing outside the workspace is ever written.
  Forbidden writes_outside = [](const ToolRequest& r, const PolicyDecision& d) {
    if (r.spec.name != "write_file" || d.outcome != PolicyOutcome::kAllow) return false;
    std::string path = product::Member(r.args, "path");
    return !absl::StartsWith(path, "/workspace/") || absl::StrContains(path, "..");
  };
  absl::StatusOr<Report> held = Never(policy_, tools_, writes_outside);
  ASSERT_OK(held);
  EXPECT_TRUE(held->ok()) << held->Text();
  EXPECT_EQ(held->checked, 150);  // 50 generated requests for each of the three tools

  // A careless policy allows every write: drawn paths are not under /workspace/, so Never
  // names them.
  class AllowAll : public Policy {
   public:
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
      PolicyDecision d;
      d.outcome = PolicyOutcome::kAllow;
      d.reason = "yes";
      return d;
    }
  } careless;
  absl::StatusOr<Report> broken = Never(careless, tools_, writes_outside);
  ASSERT_OK(broken);
  EXPECT_FALSE(broken->ok());
  for (const auto& row : broken->failures) {
    EXPECT_EQ(row[0], "write_file");
    EXPECT_EQ(row[2], "allow");
  }
  EXPECT_THAT(broken->Text(), HasSubstr("never: "));
  // Same seed, same requests.
  EXPECT_EQ(Never(careless, tools_, writes_outside)->Text(), broken->Text());
}

}  // namespace
}  // namespace agentrt::testkit
