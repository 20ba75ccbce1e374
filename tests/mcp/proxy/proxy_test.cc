// The proxy's core deciding host calls (mcp/proxy/proxy.h), against an in-process fake bank on a
// manual clock: reference/mcp.md §10.11.
#include "mcp/proxy/proxy.h"

#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

constexpr std::string_view kPay = R"({"to":"bob","amount":25})";

class ProxyTest : public ProxyHarness {};

TEST_F(ProxyTest, ListsTheGovernedToolsAndTheStatusTool) {
  Open();
  std::vector<std::string> names;
  for (const ToolSpec& spec : proxy_->Tools()) names.push_back(spec.name);
  EXPECT_THAT(names, ElementsAre("bank_balance", "bank_pay", "bank_refund", "gate_status"));
}

TEST_F(ProxyTest, AllowedReadReturnsContent) {
  Answer a = Call("bank_balance", R"({"account":"A-1"})");
  EXPECT_FALSE(a.is_error);
  EXPECT_EQ(a.text, "account A-1 holds 120.00 EUR");
  EXPECT_EQ(a.structured, "");
  std::vector<std::string> runs = RunIds();
  ASSERT_THAT(runs, SizeIs(1));
  EXPECT_THAT(runs[0], StartsWith("test."));
  EXPECT_THAT(EventTypes(runs[0]), ElementsAre("run.created", "run.started", "step.started",
                                               "step.decided", "step.policy", "step.tool_started",
                                               "step.tool_finished", "run.finished"));
}

TEST_F(ProxyTest, DeniedAndInvalidRunNothing) {
  Answer refund = Call("bank_refund", R"({"payment":"p-1"})");
  EXPECT_TRUE(refund.is_error);
  EXPECT_THAT(refund.text, StartsWith("DENIED: "));
  EXPECT_THAT(refund.text, HasSubstr("destructive"));

  Configured("bank_pay").outcome = PolicyOutcome::kDeny;
  Open();
  Answer pay = Call("bank_pay", kPay);
  EXPECT_THAT(pay.text, AllOf(StartsWith("DENIED: "), HasSubstr("operator's rule")));

  Answer invalid = Call("bank_balance", R"({"acount":"A-1"})");
  EXPECT_TRUE(invalid.is_error);
  EXPECT_THAT(invalid.text, AllOf(StartsWith("INVALID: "), HasSubstr("account")));
  EXPECT_THAT(payments_, IsEmpty());

  std::vector<std::string> runs = RunIds();
  ASSERT_THAT(runs, SizeIs(3));
  EXPECT_THAT(EventTypes(runs[0]), ElementsAre("run.created", "run.started", "step.started",
                                               "step.decided", "step.policy", "step.failed",
                                               "step.started", "step.decided", "run.finished"));
  EXPECT_THAT(EventTypes(runs[2]),
              ElementsAre("run.created", "run.started", "step.started", "step.decided",
                          "step.failed", "step.started", "step.decided", "run.finished"));
  absl::StatusOr<agentrt::Run> denied = ReadRun(*store_, runs[0]);
  ASSERT_OK(denied);
  EXPECT_EQ(denied->status, RunStatus::kFailed);
  absl::StatusOr<std::vector<agentrt::Step>> steps = ReadSteps(*store_, runs[0]);
  ASSERT_OK(steps);
  ASSERT_THAT(*steps, SizeIs(2));
  EXPECT_EQ(steps->at(0).decision->origin, "model");
  EXPECT_EQ(steps->at(1).decision->kind, "fail");
  EXPECT_EQ(steps->at(1).decision->origin, "operator");
  EXPECT_EQ(steps->at(1).decision->message, "one call per run: the request was denied");
  EXPECT_EQ(denied->reason_detail, "one call per run: the request was denied");
}

TEST_F(ProxyTest, AToolTheProxyDoesNotOfferIsInvalidEveryTime) {
  for (int i = 0; i < 3; ++i) {
    Answer a = Call("bank_steal", R"({"from":"everyone"})");
    EXPECT_TRUE(a.is_error);
    EXPECT_THAT(a.text, AllOf(StartsWith("INVALID: "), HasSubstr("unknown tool"))) << i;
  }
  EXPECT_THAT(RunIds(), SizeIs(3));  // each recorded, none executed
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(ProxyTest, ApprovalRoundTrip) {
  Answer first = Call("bank_pay", kPay);
  EXPECT_FALSE(first.is_error);
  EXPECT_THAT(first.text, StartsWith("PENDING_APPROVAL: "));
  std::string id = ApprovalIn(first);
  ASSERT_FALSE(id.empty());
  EXPECT_THAT(payments_, IsEmpty());
  std::string run = RunOf(id);
  ASSERT_FALSE(run.empty());
  EXPECT_THAT(log_, Contains(HasSubstr("agentrt approve " + run + " --approval " + id)));

  Answer second = Call("bank_pay", kPay);
  EXPECT_THAT(second.text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_EQ(ApprovalIn(second), id);

  ASSERT_OK(Decide(id, true));
  Answer collected = Call("bank_pay", kPay);
  EXPECT_FALSE(collected.is_error);
  EXPECT_EQ(collected.text, "paid 25.00 to bob");
  EXPECT_THAT(payments_, SizeIs(1));
  EXPECT_THAT(
      EventTypes(run),
      ElementsAre("run.created", "run.started", "step.started", "step.decided", "step.policy",
                  "approval.requested", "approval.decided", "run.resumed", "step.policy",
                  "step.tool_started", "step.tool_finished", "run.finished"));

  Answer third = Call("bank_pay", kPay);
  EXPECT_TRUE(third.is_error);
  EXPECT_THAT(third.text, AllOf(StartsWith("DUPLICATE: "), HasSubstr("paid 25.00 to bob")));
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(ProxyTest, RepeatWindowZeroAsksAgain) {
  Configured("bank_pay").repeat_window = absl::ZeroDuration();
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  EXPECT_EQ(Call("bank_pay", kPay).text, "paid 25.00 to bob");
  Answer again = Call("bank_pay", kPay);
  EXPECT_THAT(again.text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_NE(ApprovalIn(again), id);
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(ProxyTest, ApprovedWithinTheHoldCompletesInOneCall) {
  settings_.hold = absl::Seconds(20);
  Open();
  // The operator approves 1.5 s into the hold (the clock jumps through the hold's waits).
  clock_.RunAt(clock_.Now() + absl::Milliseconds(1500), [this] {
    for (const std::string& line : log_) {
      if (line.starts_with("approval ")) {
        std::string id = line.substr(9, line.find(' ', 9) - 9);
        ASSERT_OK(Decide(id, true));
      }
    }
  });
  std::vector<double> progress;
  HostCall host;
  host.progress = [&](double waited, double total) {
    progress.push_back(waited);
    EXPECT_EQ(total, 20);
  };
  absl::Time start = clock_.Now();
  Answer a = Call("bank_pay", R"({"to":"carol","amount":3})", host);
  EXPECT_EQ(a.text, "paid 3.00 to carol");
  EXPECT_THAT(payments_, SizeIs(1));
  EXPECT_LT(clock_.Now() - start, absl::Seconds(2));
  EXPECT_THAT(progress, SizeIs(1));
}

TEST_F(ProxyTest, AHoldEndsWhenTheHostGivesUpOrTheProxyStops) {
  settings_.hold = absl::Seconds(20);
  Open();
  absl::Notification gone;
  clock_.RunAt(clock_.Now() + absl::Seconds(2), [&] { gone.Notify(); });
  HostCall host;
  host.gone = &gone;
  absl::Time start = clock_.Now();
  EXPECT_THAT(Call("bank_pay", kPay, host).text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_LT(clock_.Now() - start, absl::Seconds(3));
  // Held once a call: an unheard approval answers when the hold passes.
  start = clock_.Now();
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_GE(clock_.Now() - start, absl::Seconds(20));
  proxy_->Stop();
  start = clock_.Now();
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_EQ(clock_.Now(), start);
}

TEST_F(ProxyTest, CanonicalMatching) {
  settings_.max_pending = 10;
  Open();
  std::string id = ApprovalIn(Call("bank_pay", R"({"to":"Bob","amount":10})"));
  for (std::string_view same :
       {R"({"amount":10,"to":"Bob"})", R"( { "to" : "B\u006fb", "amount" : 10 } )",
        R"({"to":"Bob","amount":10.0})", R"({"to":"Bob","amount":1e1})"}) {
    EXPECT_EQ(ApprovalIn(Call("bank_pay", same)), id) << same;
  }
  std::set<std::string> ids = {id};
  for (std::string_view other : {R"({"to":"Dan","amount":10})", R"({"to":"Bob","amount":10.5})",
                                 R"({"to":"Bob","amount":-10})", R"({"to":"bob","amount":10})"}) {
    ids.insert(ApprovalIn(Call("bank_pay", other)));
  }
  EXPECT_THAT(ids, SizeIs(5));
}

TEST_F(ProxyTest, SeveralApprovalsAtOnceAndTheCap) {
  settings_.max_pending = 2;
  Open();
  std::string a = ApprovalIn(Call("bank_pay", R"({"to":"a","amount":1})"));
  std::string b = ApprovalIn(Call("bank_pay", R"({"to":"b","amount":2})"));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  Answer third = Call("bank_pay", R"({"to":"c","amount":3})");
  EXPECT_TRUE(third.is_error);
  EXPECT_THAT(third.text, AllOf(StartsWith("BLOCKED: "), HasSubstr("2 requests are already")));
  EXPECT_EQ(Call("bank_balance", R"({"account":"x"})").text, "account x holds 120.00 EUR");
  ASSERT_OK(Decide(b, true));
  EXPECT_EQ(Call("bank_pay", R"({"to":"b","amount":2})").text, "paid 2.00 to b");
  ASSERT_OK(Decide(a, true));
  EXPECT_EQ(Call("bank_pay", R"({"to":"a","amount":1})").text, "paid 1.00 to a");
  EXPECT_THAT(payments_, SizeIs(2));
}

TEST_F(ProxyTest, RejectedIsNotAskedAgain) {
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, false, "not \x1b[2Jtoday"));
  for (int i = 0; i < 2; ++i) {
    Answer a = Call("bank_pay", kPay);
    EXPECT_TRUE(a.is_error);
    EXPECT_THAT(a.text, AllOf(StartsWith("REJECTED: "), HasSubstr("(approval " + id + ")"),
                              HasSubstr("not \\x1b[2Jtoday")));
    EXPECT_THAT(a.text, Not(HasSubstr("\x1b")));
  }
  clock_.Advance(absl::Minutes(11));
  Answer later = Call("bank_pay", kPay);
  EXPECT_THAT(later.text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_NE(ApprovalIn(later), id);
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(ProxyTest, ExpiredIsNotAskedAgain) {
  settings_.approval_ttl = absl::Hours(1);
  Open();
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  clock_.Advance(absl::Hours(2));
  for (int i = 0; i < 2; ++i) {
    Answer a = Call("bank_pay", kPay);
    EXPECT_THAT(a.text, AllOf(StartsWith("EXPIRED: "), HasSubstr(id)));
  }
  EXPECT_THAT(RunIds(), SizeIs(1));
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(ProxyTest, StaleGrantExecutesNothing) {
  settings_.grant_ttl = absl::Hours(1);
  Open();
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  clock_.Advance(absl::Hours(2));
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("EXPIRED: "));
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(ProxyTest, PolicyChangedToDenyBeforeCollection) {
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  settings_.policy[SideEffect::kRemoteMutation] = PolicyOutcome::kDeny;
  Open();
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("DENIED: "));
  EXPECT_THAT(payments_, IsEmpty());
  Answer status = Call("gate_status", absl::StrCat(R"({"approval_id":")", id, R"("})"));
  EXPECT_THAT(status.text,
              HasSubstr("APPROVED but not executed: the policy denied it when it was collected"));
}

TEST_F(ProxyTest, ChangedFixedValueAsksAgain) {
  Configured("bank_pay").fixed = {{"currency", "\"EUR\""}};
  Open();
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  Configured("bank_pay").fixed = {{"currency", "\"USD\""}};
  Open();
  Answer a = Call("bank_pay", kPay);
  EXPECT_THAT(a.text, StartsWith("PENDING_APPROVAL: "));
  EXPECT_NE(ApprovalIn(a), id);
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(ProxyTest, UpstreamErrorAndStructuredResult) {
  Configured("bank_pay").outcome = PolicyOutcome::kAllow;
  Open();
  Answer error = Call("bank_pay", R"({"to":"jo","amount":1,"mode":"error"})");
  EXPECT_TRUE(error.is_error);
  EXPECT_THAT(error.text, HasSubstr("card declined for jo"));
  Answer structured = Call("bank_pay", R"({"to":"jo","amount":2,"mode":"structured"})");
  EXPECT_FALSE(structured.is_error);
  EXPECT_EQ(structured.structured, R"({"paid":2,"to":"jo"})");
  Answer again = Call("bank_pay", R"({"to":"jo","amount":1,"mode":"error"})");
  EXPECT_THAT(again.text, AllOf(StartsWith("DUPLICATE: "), HasSubstr("card declined")));
  EXPECT_THAT(payments_, SizeIs(2));
}

TEST_F(ProxyTest, StatusToolReportsAndNeverExecutes) {
  settings_.approval_ttl = absl::Hours(1);
  Open();
  EXPECT_EQ(Call("gate_status", "").text,
            "GATE_STATUS: no request in this session is waiting for an operator's approval.");
  std::string a = ApprovalIn(Call("bank_pay", R"({"to":"a","amount":1})"));
  std::string b = ApprovalIn(Call("bank_pay", R"({"to":"b","amount":2})"));
  std::string c = ApprovalIn(Call("bank_pay", R"({"to":"c","amount":3})"));
  std::size_t runs = RunIds().size();
  Answer all = Call("gate_status", "{}");
  EXPECT_FALSE(all.is_error);
  EXPECT_THAT(all.text, AllOf(StartsWith("GATE_STATUS: 3 requests"), HasSubstr(a), HasSubstr(b),
                              HasSubstr(c), HasSubstr("PENDING")));
  ASSERT_OK(Decide(a, true));
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", a, R"("})")).text,
              AllOf(HasSubstr("APPROVED"),
                    HasSubstr("Call bank_pay again with exactly the same arguments")));
  ASSERT_OK(Decide(b, false, "no"));
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", b, R"("})")).text,
              AllOf(HasSubstr("REJECTED"), HasSubstr("\"no\"")));
  clock_.Advance(absl::Minutes(61));
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", c, R"("})")).text,
              HasSubstr("EXPIRED"));
  EXPECT_THAT(Call("gate_status", R"({"approval_id":"nope"})").text,
              StartsWith("GATE_STATUS: no approval nope is known"));
  Answer bad = Call("gate_status", R"({"run":"x"})");
  EXPECT_TRUE(bad.is_error);
  EXPECT_THAT(bad.text, AllOf(StartsWith("INVALID: "), HasSubstr("approval_id, a string")));
  EXPECT_THAT(payments_, IsEmpty());
  EXPECT_EQ(RunIds().size(), runs);
}

TEST_F(ProxyTest, StatusSaysWhetherAnApprovedRequestExecuted) {
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  std::string ask = absl::StrCat(R"({"approval_id":")", id, R"("})");
  EXPECT_THAT(Call("gate_status", ask).text, HasSubstr("APPROVED, awaiting collection"));
  Call("bank_pay", kPay);
  EXPECT_THAT(Call("gate_status", ask).text, HasSubstr("APPROVED and executed, and it succeeded."));

  std::string other = ApprovalIn(Call("bank_pay", R"({"to":"x","amount":9})"));
  ASSERT_OK(Decide(other, true));
  ASSERT_OK(Cancel(*store_, clock_, RunOf(other), Decider{.by = "operator"}));
  EXPECT_THAT(Call("gate_status", absl::StrCat(R"({"approval_id":")", other, R"("})")).text,
              HasSubstr("APPROVED but not executed: an operator cancelled it"));
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(ProxyTest, ArgumentsTheRuntimeRefusesNeverCollect) {
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, true));
  for (std::string_view refused :
       {R"({"to":"bob","to":"bob","amount":25})", R"({"to":"bob","amount":25e9223372036854775807})",
        R"({"to":"bob","amount":25e-10000000})", R"({"to":"bob\ud800","amount":25})"}) {
    Answer a = Call("bank_pay", refused);
    EXPECT_TRUE(a.is_error) << refused;
    EXPECT_THAT(a.text, StartsWith("INVALID: ")) << refused;
  }
  EXPECT_THAT(payments_, IsEmpty());
  EXPECT_EQ(Call("bank_pay", kPay).text, "paid 25.00 to bob");
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(ProxyTest, ServerTextInProseIsEscaped) {
  Configured("bank_pay").outcome = PolicyOutcome::kAllow;
  Open();
  std::string hostile = "\\u001b[2J\\u202e";
  Answer error =
      Call("bank_pay", absl::StrCat(R"({"to":")", hostile, R"(","amount":1,"mode":"error"})"));
  EXPECT_TRUE(error.is_error);
  EXPECT_THAT(error.text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(error.text, Not(HasSubstr("\u202e")));
  Answer duplicate =
      Call("bank_pay", absl::StrCat(R"({"to":")", hostile, R"(","amount":1,"mode":"error"})"));
  EXPECT_THAT(duplicate.text, StartsWith("DUPLICATE: "));
  EXPECT_THAT(duplicate.text, Not(HasSubstr("\x1b")));
  Answer raw = Call("bank_pay", absl::StrCat(R"({"to":")", hostile, R"(","amount":2})"));
  EXPECT_THAT(raw.text, HasSubstr("\x1b"));  // a result is the server's, passed back as sent
}

TEST_F(ProxyTest, ModelVisibleTextNamesNoOperatorPathOrRun) {
  settings_.max_pending = 1;
  Open();
  std::vector<Answer> seen;
  seen.push_back(Call("bank_pay", kPay));
  seen.push_back(Call("bank_pay", R"({"to":"x","amount":1})"));
  seen.push_back(Call("bank_refund", R"({"payment":"p"})"));
  seen.push_back(Call("bank_balance", R"({"acount":"x"})"));
  seen.push_back(Call("gate_status", "{}"));
  ASSERT_OK(Decide(ApprovalIn(seen[0]), false, "no"));
  seen.push_back(Call("bank_pay", kPay));
  for (const ToolSpec& spec : proxy_->Tools()) seen.push_back(Answer{spec.description, false, ""});
  std::vector<std::string> runs = RunIds();
  for (const Answer& a : seen) {
    EXPECT_THAT(absl::AsciiStrToLower(a.text), Not(HasSubstr("agentrt"))) << a.text;
    EXPECT_THAT(a.text, Not(HasSubstr(db_))) << a.text;
    for (const std::string& run : runs) EXPECT_THAT(a.text, Not(HasSubstr(run))) << a.text;
  }
}

}  // namespace
}  // namespace agentrt::proxy::testing
