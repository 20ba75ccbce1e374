// A proxy process killed at every write (reference/mcp.md §8.13; issue 25: "a restart never runs
// a call twice and never loses a pending approval or a grant waiting to be collected"). Each case
// forks a proxy process that serves the host's call and is SIGKILLed right after the k-th event
// it commits, for every k its uncrashed run reaches; then a proxy restarted on the same database
// (its lease clock past the dead one's lease) gets the host's retries, and the operator approves
// whatever it is asked, until the call has an answer that says it is done. Every effect the
// server made is appended, synced, to a ledger file before its answer, so the count survives the
// process that made it.
//
// After each case: the call completed (its result, or a duplicate of it); the server was paid at
// most once more than the operator approved a re-run of an interrupted call, and never more than
// twice; no approval is left waiting; the audit chain verifies.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

constexpr std::string_view kPay = R"({"to":"bob","amount":25})";

// A payment whose effect is a line appended (and synced) to a ledger file.
class LedgerPay final : public Tool {
 public:
  LedgerPay(std::string ledger, ToolSpec spec)
      : ledger_(std::move(ledger)), spec_(std::move(spec)) {}
  ToolSpec Spec() const override { return spec_; }
  bool die_after_effect = false;
  bool time_out = false;  // the effect happens, then the call times out (the outcome unknown)
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    int fd = ::open(ledger_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return absl::InternalError("ledger");
    std::string line = call.args + "\n";
    bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                   ::fsync(fd) == 0;
    ::close(fd);
    if (!written) return absl::InternalError("ledger write");
    // The process dies between the server's effect and its answer: nothing records the outcome.
    if (die_after_effect) ::kill(::getpid(), SIGKILL);
    if (time_out)
      return absl::DeadlineExceededError("mcp: server \"bank\": tool \"pay\": timed out");
    return ToolResult{json::JsonString("paid 25.00 to bob"), ""};
  }

 private:
  const std::string ledger_;
  const ToolSpec spec_;
};

struct Case {
  bool approval_first = false;  // the call needs an approval, granted before the killed process
  int kill_at = 0;              // the event after which the process dies (0: it is not killed)
};

class KillTest : public ProxyHarness {
 protected:
  void Prepare(const Case& c, int index) {
    db_ = test_support::TestFile(absl::StrCat("kill-", index, ".db"));
    ledger_ = test_support::TestFile(absl::StrCat("ledger-", index, ".txt"));
    settings_.database = db_;
    settings_.lease_ttl = absl::Seconds(30);
    pay_tool_ = std::make_unique<LedgerPay>(ledger_, pay_.Spec());
    Configured("bank_pay").tool = pay_tool_.get();
    Configured("bank_pay").outcome =
        c.approval_first ? PolicyOutcome::kRequireApproval : PolicyOutcome::kAllow;
    store_.reset();
    proxy_.reset();
    log_.clear();
  }
  // The call asked for its approval and the operator granted it, in a proxy that then stopped.
  void ApproveBeforehand() {
    Open();
    std::string id = ApprovalIn(Call("bank_pay", kPay));
    ASSERT_OK(Decide(id, true));
    proxy_.reset();
    store_.reset();
  }
  int Effects() {
    std::ifstream in(ledger_);
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  // Runs the host's call in a child process that dies after its `kill_at`-th committed event (-1:
  // right after the server's effect). Returns how many events it committed (all of them when it
  // was not killed).
  int ServeInAChild(int kill_at, std::string_view kill_after_type = "",
                    std::string_view args = kPay) {
    int pipe_fds[2];
    EXPECT_EQ(::pipe(pipe_fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      pay_tool_->die_after_effect = kill_at == -1;
      world::ManualClock clock(clock_.Now(), {.waits = world::ManualClock::Waits::kJump});
      world::SeededEntropy entropy(1234);
      absl::StatusOr<std::unique_ptr<store::Store>> store = records::OpenStore(db_, clock);
      if (!store.ok()) ::_exit(3);
      int events = 0;
      (*store)->AddObserver([&](const store::Event& e) {
        ++events;
        if (events == kill_at || (!kill_after_type.empty() && e.type == kill_after_type)) {
          ::kill(::getpid(), SIGKILL);
        }
      });
      world::World world{.clock = &clock, .scheduler = &clock, .entropy = &entropy};
      absl::StatusOr<std::unique_ptr<Proxy>> proxy =
          Proxy::Create(**store, world, settings_, tools_, [](std::string_view) {});
      if (!proxy.ok()) ::_exit(4);
      (*proxy)->Call("bank_pay", args);
      (void)!::write(pipe_fds[1], &events, sizeof(events));
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    int events = -1;
    if (::read(pipe_fds[0], &events, sizeof(events)) != sizeof(events)) events = -1;
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return events;
  }

  // The restarted proxy: the host retries, the operator approves what it is asked, until done.
  Answer RetryUntilDone() {
    Answer a;
    for (int i = 0; i < 8; ++i) {
      a = Call("bank_pay", kPay);
      std::string id = ApprovalIn(a);
      if (!a.is_error &&
          (a.text.starts_with("PENDING_APPROVAL") || a.text.starts_with("INTERRUPTED") ||
           a.text.starts_with("UNKNOWN_OUTCOME"))) {
        ++approved_reruns_;
        if (!Decide(id, true).ok()) ADD_FAILURE() << "could not approve " << id;
        continue;
      }
      if (a.text.starts_with("IN_PROGRESS")) {
        clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
        continue;
      }
      return a;
    }
    return a;
  }

  std::string ledger_;
  std::unique_ptr<LedgerPay> pay_tool_;
  int approved_reruns_ = 0;
};

void CheckCase(KillTest& t, const Answer& final_answer, int approvals_granted, int effects,
               const std::string& label) {
  SCOPED_TRACE(label);
  EXPECT_TRUE(final_answer.text == "paid 25.00 to bob" ||
              (final_answer.text.starts_with("DUPLICATE: ") &&
               final_answer.text.find("paid 25.00 to bob") != std::string::npos))
      << final_answer.text;
  EXPECT_GE(effects, 1);
  // One payment, and one more only when an operator approved running an interrupted one again.
  EXPECT_LE(effects, 1 + approvals_granted);
  EXPECT_LE(effects, 2);
}

TEST_F(KillTest, AKilledProxyNeverPaysTwiceOnItsOwnAndLosesNoApproval) {
  int cases = 0;
  for (bool approval_first : {false, true}) {
    Prepare({approval_first, 0}, cases++);
    if (approval_first) ApproveBeforehand();
    int events = ServeInAChild(0);
    ASSERT_GT(events, 0) << "the uncrashed run committed no event";
    ASSERT_EQ(Effects(), 1);
    for (int k = -1; k <= events; ++k) {
      if (k == 0) continue;
      Prepare({approval_first, k}, cases++);
      int granted = 0;
      if (approval_first) ApproveBeforehand();
      ServeInAChild(k);
      // The restart: the dead process's lease is judged on this clock, which has moved past it.
      clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
      approved_reruns_ = 0;
      Open();
      Answer done = RetryUntilDone();
      granted = approved_reruns_;
      CheckCase(*this, done, granted, Effects(),
                k == -1 ? absl::StrCat(approval_first ? "approved first" : "allowed",
                                       ", killed after the server's effect")
                        : absl::StrCat(approval_first ? "approved first" : "allowed",
                                       ", killed after event ", k, " of ", events));
      if (k == -1) EXPECT_EQ(Effects(), 2);  // the cut-off payment, and the approved re-run
      std::vector<std::string> runs = RunIds();
      for (const std::string& run : runs) {
        absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(*store_, run);
        ASSERT_OK(approvals);
        for (const Approval& a : *approvals) {
          EXPECT_NE(a.status, ApprovalStatus::kPending) << "approval " << a.id << " left waiting";
        }
      }
      absl::StatusOr<store::ChainReport> chain = store_->VerifyEvents();
      ASSERT_OK(chain);
      EXPECT_FALSE(chain->broken.has_value());
    }
  }
  EXPECT_GT(cases, 10);
}

// The proxy died after the timeout was recorded and before it asked anyone about it: the next
// payment of any other request finds the unknown outcome, asks about it in a fresh run, and is
// blocked on that question; the identical call waits on the same question; approved, it pays.
TEST_F(KillTest, ACrashBeforeTheReRunWasAskedKeepsTheToolBlocked) {
  Prepare({false, 0}, 0);
  pay_tool_->time_out = true;
  ServeInAChild(0, "step.failed");
  ASSERT_EQ(Effects(), 1);
  clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
  pay_tool_->time_out = false;
  Open();
  Answer other = Call("bank_pay", R"({"to":"eve","amount":1})");
  EXPECT_TRUE(other.text.starts_with("BLOCKED: ")) << other.text;
  std::string asked = ApprovalIn(other);
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(RunIds().size(), 2u);  // the question is a run of its own
  Answer identical = Call("bank_pay", kPay);
  EXPECT_TRUE(identical.text.starts_with("UNKNOWN_OUTCOME: ")) << identical.text;
  EXPECT_EQ(ApprovalIn(identical), asked);
  ASSERT_OK(Decide(asked, true));
  EXPECT_EQ(Call("bank_pay", kPay).text, "paid 25.00 to bob");
  EXPECT_EQ(Call("bank_pay", R"({"to":"eve","amount":1})").text, "paid 25.00 to bob");
  EXPECT_EQ(Effects(), 3);
}

// Cut off before its call started (the step was still being decided): nothing ran, so nothing is
// asked and the tool is not blocked; the old run is ended as taken over and the call runs fresh.
TEST_F(KillTest, CutOffBeforeExecutingIsNoAttempt) {
  Prepare({false, 0}, 0);
  ServeInAChild(0, "step.started");
  ASSERT_EQ(Effects(), 0);
  clock_.Advance(settings_.lease_ttl + absl::Seconds(1));
  Open();
  EXPECT_EQ(Call("bank_pay", kPay).text, "paid 25.00 to bob");
  EXPECT_EQ(Call("bank_pay", R"({"to":"eve","amount":1})").text, "paid 25.00 to bob");
  std::vector<std::string> runs = RunIds();
  ASSERT_GE(runs.size(), 2u);
  absl::StatusOr<agentrt::Run> old = ReadRun(*store_, runs[0]);
  ASSERT_OK(old);
  EXPECT_EQ(old->status, RunStatus::kFailed);
  EXPECT_THAT(old->reason_detail, HasSubstr("taken over after an interruption"));
  for (const std::string& run : runs) EXPECT_THAT(*ListApprovals(*store_, run), IsEmpty());
  EXPECT_EQ(Effects(), 2);
}

}  // namespace
}  // namespace agentrt::proxy::testing
