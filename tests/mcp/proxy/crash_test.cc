// A proxy that stops answering mid-call (reference/mcp.md §8.13, §10.12, §10.15): a second
// proxy process on the same database, with its own store and clock, finds the run under a lease
// that stops being renewed, waits while it lives, then takes it over. The first proxy's call
// is parked inside the server (as a process that froze), and its clock and scheduler never
// move, so its heartbeat never beats again; it is released at the end to show its late writes
// are refused.
#include <thread>

#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

constexpr std::string_view kPay = R"({"to":"bob","amount":25})";

class CrashTest : public ProxyHarness {
 protected:
  CrashTest()
      : frozen_clock_(clock_.Now()),
        dying_pay_("bank_pay", SideEffect::kRemoteMutation, &payments_, &frozen_clock_),
        dying_balance_("bank_balance", SideEffect::kReadOnly, &payments_, &frozen_clock_) {
    Configured("bank_pay").outcome = PolicyOutcome::kAllow;
    dying_pay_.started = dying_balance_.started = &started_;
    dying_pay_.never = dying_balance_.never = &release_;
  }
  ~CrashTest() override {
    if (!release_.HasBeenNotified()) release_.Notify();
    if (first_.joinable()) first_.join();
  }

  // The first proxy process: the same configuration over tools that park mid-call.
  void StartDying(std::string tool, std::string args) {
    Open();  // the second process's store makes the database first
    absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db_, frozen_clock_);
    ASSERT_OK(store);
    dying_store_ = *std::move(store);
    std::vector<GovernedTool> tools = tools_;
    for (GovernedTool& t : tools) {
      if (t.name == "bank_pay") t.tool = &dying_pay_;
      if (t.name == "bank_balance") t.tool = &dying_balance_;
    }
    world::World world;
    world.clock = &frozen_clock_;
    world.scheduler = &frozen_clock_;
    world.entropy = &dying_entropy_;
    absl::StatusOr<std::unique_ptr<Proxy>> proxy =
        Proxy::Create(*dying_store_, world, settings_, tools, [](std::string_view) {});
    ASSERT_OK(proxy);
    dying_ = *std::move(proxy);
    first_ = std::thread([this, tool, args] { first_answer_ = dying_->Call(tool, args); });
    started_.WaitForNotification();
  }
  // The frozen process wakes: its call returns, and what it tried to write is refused.
  Answer ReleaseDying() {
    release_.Notify();
    first_.join();
    return first_answer_;
  }

  world::ManualClock frozen_clock_;
  world::SeededEntropy dying_entropy_{99};
  BankTool dying_pay_, dying_balance_;
  absl::Notification started_, release_;
  std::unique_ptr<store::Store> dying_store_;
  std::unique_ptr<Proxy> dying_;
  std::thread first_;
  Answer first_answer_;
};

TEST_F(CrashTest, CrashThenApproveRunsItAgainOnce) {
  StartDying("bank_pay", std::string(kPay));
  ASSERT_THAT(payments_, SizeIs(1));
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("IN_PROGRESS: "));
  clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
  Answer interrupted = Call("bank_pay", kPay);
  EXPECT_FALSE(interrupted.is_error);
  EXPECT_THAT(interrupted.text, StartsWith("INTERRUPTED: "));
  std::string id = ApprovalIn(interrupted);
  ASSERT_FALSE(id.empty());
  std::string run = RunOf(id);
  absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(*store_, run);
  ASSERT_OK(approvals);
  std::optional<Attempt> attempt = InterruptedAttempt(approvals->back());
  ASSERT_TRUE(attempt.has_value());
  EXPECT_EQ(attempt->ended, "cut_off");

  EXPECT_THAT(Call("bank_pay", R"({"to":"eve","amount":1})").text,
              AllOf(StartsWith("BLOCKED: "), HasSubstr(id)));
  EXPECT_EQ(Call("bank_balance", R"({"account":"A-1"})").text, "account A-1 holds 120.00 EUR");
  EXPECT_EQ(ApprovalIn(Call("bank_pay", kPay)), id);

  ASSERT_OK(Decide(id, true));
  EXPECT_EQ(Call("bank_pay", kPay).text, "paid 25.00 to bob");
  EXPECT_THAT(payments_, SizeIs(2));
  EXPECT_THAT(
      EventTypes(run),
      ElementsAre("run.created", "run.started", "step.started", "step.decided", "step.policy",
                  "step.tool_started", "lease.taken_over", "step.interrupted", "step.policy",
                  "approval.requested", "approval.decided", "run.resumed", "step.policy",
                  "step.tool_started", "step.tool_finished", "run.finished"));
  EXPECT_THAT(Call("bank_pay", kPay).text, StartsWith("DUPLICATE: "));

  // The frozen owner wakes: its outcome is refused (another owner holds the run), and it
  // claims nothing happened that the record does not hold.
  Answer late = ReleaseDying();
  EXPECT_THAT(late.text, Not(HasSubstr("paid")));
  EXPECT_THAT(payments_, SizeIs(2));
  absl::StatusOr<agentrt::Run> after = ReadRun(*store_, run);
  ASSERT_OK(after);
  EXPECT_EQ(after->status, RunStatus::kCompleted);
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
}

TEST_F(CrashTest, CrashThenRejectRunsNothingAndUnblocks) {
  StartDying("bank_pay", std::string(kPay));
  clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
  std::string id = ApprovalIn(Call("bank_pay", kPay));
  ASSERT_OK(Decide(id, false, "it went through"));
  EXPECT_THAT(Call("bank_pay", kPay).text,
              AllOf(StartsWith("REJECTED: "), HasSubstr("it went through")));
  EXPECT_EQ(Call("bank_pay", R"({"to":"eve","amount":1})").text, "paid 1.00 to eve");
  EXPECT_THAT(payments_, SizeIs(2));
  // After the window the identical call asks again (an operator decides; it never just runs).
  clock_.Advance(absl::Minutes(11));
  Answer again = Call("bank_pay", kPay);
  EXPECT_THAT(again.text, StartsWith("INTERRUPTED: "));
  EXPECT_NE(ApprovalIn(again), id);
  EXPECT_THAT(payments_, SizeIs(2));
  ReleaseDying();
}

TEST_F(CrashTest, AnAbandonedReadIsEndedAndRunFresh) {
  StartDying("bank_balance", R"({"account":"A-1"})");
  EXPECT_THAT(Call("bank_balance", R"({"account":"A-1"})").text, StartsWith("IN_PROGRESS: "));
  clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
  EXPECT_EQ(Call("bank_balance", R"({"account":"A-1"})").text, "account A-1 holds 120.00 EUR");
  std::vector<std::string> runs = RunIds();
  ASSERT_THAT(runs, SizeIs(2));
  absl::StatusOr<agentrt::Run> old = ReadRun(*store_, runs[0]);
  ASSERT_OK(old);
  EXPECT_EQ(old->status, RunStatus::kFailed);
  EXPECT_THAT(old->reason_detail, HasSubstr("taken over after an interruption"));
  ReleaseDying();
}

}  // namespace
}  // namespace agentrt::proxy::testing
