// Unknown outcomes (reference/mcp.md §8.8, §8.9, §10.13): a mutating call that timed out or got
// no answer is never run again on the policy alone, and its tool is blocked until an operator
// decides.
#include "mcp/proxy/classify.h"
#include "runtime/operator/recheck.h"
#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

constexpr std::string_view kBlock = R"({"to":"ann","amount":5,"mode":"block"})";
constexpr std::string_view kOther = R"({"to":"ben","amount":6})";

class UnknownTest : public ProxyHarness {
 protected:
  UnknownTest() { Configured("bank_pay").outcome = PolicyOutcome::kAllow; }
  int Approvals() {
    int n = 0;
    for (const std::string& run : RunIds()) {
      absl::StatusOr<std::vector<Approval>> a = ListApprovals(*store_, run);
      if (a.ok()) n += static_cast<int>(a->size());
    }
    return n;
  }
};

TEST_F(UnknownTest, TimeoutAfterTheEffectWaitsForAnOperator) {
  Answer first = Call("bank_pay", kBlock);
  EXPECT_FALSE(first.is_error);
  EXPECT_THAT(first.text, AllOf(StartsWith("UNKNOWN_OUTCOME: "), HasSubstr("may have"),
                                HasSubstr("timed out")));
  std::string id = ApprovalIn(first);
  ASSERT_FALSE(id.empty());
  std::string run = RunOf(id);
  EXPECT_THAT(EventTypes(run),
              ElementsAre("run.created", "run.started", "step.started", "step.decided",
                          "step.policy", "step.tool_started", "step.tool_finished", "step.failed",
                          "step.started", "step.decided", "step.policy", "approval.requested"));
  absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(*store_, run);
  ASSERT_OK(approvals);
  ASSERT_THAT(*approvals, SizeIs(1));
  EXPECT_EQ(approvals->at(0).kind, kInterruptedSideEffectKind);
  std::optional<Attempt> attempt = InterruptedAttempt(approvals->at(0));
  ASSERT_TRUE(attempt.has_value());
  EXPECT_EQ(attempt->ended, "timed_out");

  EXPECT_EQ(ApprovalIn(Call("bank_pay", kBlock)), id);
  Answer other = Call("bank_pay", kOther);
  EXPECT_THAT(other.text, AllOf(StartsWith("BLOCKED: "), HasSubstr(id)));
  clock_.Advance(absl::Hours(1));
  EXPECT_THAT(Call("bank_pay", kBlock).text, StartsWith("UNKNOWN_OUTCOME: "));
  EXPECT_THAT(payments_, SizeIs(1));

  pay_.blocked = false;
  ASSERT_OK(Decide(id, true));
  EXPECT_EQ(Call("bank_pay", kBlock).text, "paid 5.00 to ann");
  EXPECT_THAT(payments_, SizeIs(2));
  EXPECT_THAT(Call("bank_pay", kBlock).text, StartsWith("DUPLICATE: "));
  EXPECT_EQ(Call("bank_pay", kOther).text, "paid 6.00 to ben");
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", id, R"("})")).text,
              HasSubstr("APPROVED and executed, and it succeeded."));
}

TEST_F(UnknownTest, RejectionUnblocksAndAnIdenticalCallAsksAgain) {
  std::string id = ApprovalIn(Call("bank_pay", kBlock));
  ASSERT_OK(Decide(id, false, "checked: it went through"));
  Answer identical = Call("bank_pay", kBlock);
  EXPECT_THAT(identical.text,
              AllOf(StartsWith("REJECTED: "), HasSubstr("checked: it went through")));
  EXPECT_EQ(Call("bank_pay", kOther).text, "paid 6.00 to ben");
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(absl::Minutes(11));
    Answer again = Call("bank_pay", kBlock);
    EXPECT_THAT(again.text, StartsWith("UNKNOWN_OUTCOME: ")) << i;
    std::string asked = ApprovalIn(again);
    ASSERT_FALSE(asked.empty());
    ASSERT_OK(Decide(asked, false));
  }
  EXPECT_THAT(payments_, SizeIs(2));
}

TEST_F(UnknownTest, ServerErrorIsAKnownFailure) {
  std::string_view error = R"({"to":"oli","amount":1,"mode":"error"})";
  Answer a = Call("bank_pay", error);
  EXPECT_TRUE(a.is_error);
  EXPECT_THAT(a.text, HasSubstr("card declined for oli"));
  EXPECT_THAT(Call("bank_pay", error).text,
              AllOf(StartsWith("DUPLICATE: "), HasSubstr("card declined")));
  clock_.Advance(absl::Minutes(11));
  EXPECT_THAT(Call("bank_pay", error).text, HasSubstr("card declined for oli"));
  EXPECT_THAT(payments_, SizeIs(2));
  EXPECT_EQ(Approvals(), 0);
}

TEST_F(UnknownTest, UnrecordedResultCountsAsExecuted) {
  std::string_view deep = R"({"to":"deb","amount":1,"mode":"deep"})";
  Answer a = Call("bank_pay", deep);
  EXPECT_FALSE(a.is_error);
  EXPECT_THAT(a.text, AllOf(StartsWith("UNRECORDED: "), HasSubstr("so it executed"),
                            HasSubstr("could not be recorded"), Not(HasSubstr("failed"))));
  EXPECT_THAT(payments_, SizeIs(1));
  Answer duplicate = Call("bank_pay", deep);
  EXPECT_THAT(duplicate.text, AllOf(StartsWith("DUPLICATE: "), HasSubstr("could not be recorded"),
                                    Not(HasSubstr("it failed"))));
  EXPECT_EQ(Call("bank_pay", kOther).text, "paid 6.00 to ben");
  EXPECT_EQ(Approvals(), 0);
}

TEST_F(UnknownTest, AConnectionClosedMidCallIsUnknown) {
  Answer a = Call("bank_pay", R"({"to":"cy","amount":2,"mode":"closed"})");
  EXPECT_THAT(a.text, AllOf(StartsWith("UNKNOWN_OUTCOME: "),
                            HasSubstr("failed without an answer from the server")));
  EXPECT_THAT(Call("bank_pay", kOther).text, StartsWith("BLOCKED: "));
}

TEST_F(UnknownTest, StepLimitAsksAgainInAFreshRun) {
  std::string first = ApprovalIn(Call("bank_pay", kBlock));
  ASSERT_OK(Decide(first, true));
  Answer second = Call("bank_pay", kBlock);  // re-run, times out again: asked in the same run
  EXPECT_THAT(second.text, StartsWith("UNKNOWN_OUTCOME: "));
  std::string second_id = ApprovalIn(second);
  ASSERT_OK(Decide(second_id, true));
  Answer third = Call("bank_pay", kBlock);  // the run's steps are used up: a fresh run asks
  EXPECT_THAT(third.text, StartsWith("UNKNOWN_OUTCOME: "));
  std::string third_id = ApprovalIn(third);
  ASSERT_FALSE(third_id.empty());
  EXPECT_NE(RunOf(third_id), RunOf(first));
  EXPECT_THAT(payments_, SizeIs(3));
  EXPECT_THAT(Call("bank_pay", kOther).text, AllOf(StartsWith("BLOCKED: "), HasSubstr(third_id)));
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", second_id, R"("})")).text,
              AllOf(HasSubstr("APPROVED and executed, but it timed out before the server "
                              "answered, so whether it took effect is unknown"),
                    HasSubstr("Approval " + third_id + " now waits")));
  ASSERT_OK(Decide(third_id, false));
  EXPECT_EQ(Call("bank_pay", kOther).text, "paid 6.00 to ben");
}

TEST_F(UnknownTest, ExpiryAsksAgainRatherThanUnblocks) {
  settings_.approval_ttl = absl::Minutes(1);
  Open();
  std::string first = ApprovalIn(Call("bank_pay", kBlock));
  clock_.Advance(absl::Minutes(2));
  Answer other = Call("bank_pay", kOther);
  EXPECT_THAT(other.text, StartsWith("BLOCKED: "));
  std::string asked = ApprovalIn(other);
  EXPECT_NE(asked, first);
  EXPECT_EQ(ApprovalIn(Call("bank_pay", kBlock)), asked);
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(UnknownTest, ARecheckOfAReRunOfAnUnknownOutcomeIsTheSame) {
  std::string id = ApprovalIn(Call("bank_pay", kBlock));
  std::string run = RunOf(id);
  ProxyPolicy policy(settings_.policy, tools_, settings_.policy_id);
  absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(*store_, run);
  ASSERT_OK(approvals);
  policy.RegisterPriorsOf(run, *approvals);
  absl::StatusOr<RecheckReport> report = Recheck(*store_, run, policy);
  ASSERT_OK(report);
  EXPECT_EQ(report->same, 2);  // the allowed call, and the interruption approval asked after it
  EXPECT_EQ(report->different, 0);
  EXPECT_EQ(report->identity, "unchanged");
  // Without the attempt the approval named, the question would not be asked the same way.
  ProxyPolicy forgetful(settings_.policy, tools_, settings_.policy_id);
  absl::StatusOr<RecheckReport> without = Recheck(*store_, run, forgetful);
  ASSERT_OK(without);
  EXPECT_EQ(without->different, 1);
}

TEST(ClassifyTest, ClassifiesRecordedErrors) {
  GovernedTool pay;
  pay.server = "bank";
  pay.upstream = "pay";
  pay.name = "bank_pay";
  pay.side_effect = SideEffect::kRemoteMutation;
  auto classify = [&](std::string error, std::string failure = "error", bool read_only = false) {
    std::string ended;
    std::string content = json::JsonObject()
                              .String("tool", "bank_pay")
                              .String("error", error)
                              .String("failure", failure)
                              .Build();
    Known k = ClassifyToolError(&pay, read_only, content, &ended);
    return k == Known::kKnown ? std::string("known") : "unknown " + ended;
  };
  EXPECT_EQ(classify("deadline", "timeout"), "unknown timed_out");
  EXPECT_EQ(classify("mcp: server \"bank\": tool \"pay\": connection closed"), "unknown no_answer");
  EXPECT_EQ(classify("anything else"), "unknown no_answer");
  EXPECT_EQ(classify("bank/pay: 12 bytes, error: card declined"), "known");
  EXPECT_EQ(classify("bank/pay: 12 bytes, truncated, error: x"), "known");
  EXPECT_EQ(classify("bank/pay: 3 bytes, truncated, structured content of 9 bytes dropped for the "
                     "text, error: x"),
            "known");
  EXPECT_EQ(classify("bank_pay: parameter \"currency\" is fixed by the operator"), "known");
  EXPECT_EQ(classify("bank_pay: parameter \"memo\" is denied by the operator"), "known");
  EXPECT_EQ(classify("bank_pay: arguments are not a JSON object: x"), "known");
  EXPECT_EQ(classify("bank_pay: the server asked for more input, which..."), "known");
  EXPECT_EQ(classify("content is not usable JSON", "invalid_content"), "known");
  EXPECT_EQ(classify("bank/payx: 1 bytes, error: x"), "unknown no_answer");
  EXPECT_EQ(classify("bank/pay: bytes, error: x"), "unknown no_answer");
  EXPECT_EQ(classify("deadline", "timeout", /*read_only=*/true), "known");
  std::string ended;
  EXPECT_EQ(ClassifyToolError(&pay, false, "not json", &ended), Known::kUnknown);
  EXPECT_EQ(ended, "no_answer");
}

}  // namespace
}  // namespace agentrt::proxy::testing
