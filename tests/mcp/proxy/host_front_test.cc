// The proxy's stdio front (mcp/proxy/host_front.h) in-process: the handshake, the listing, a call
// the host cancels while it executes (it finishes and is recorded), and shutdown.
#include "mcp/proxy/host_front.h"

#include <thread>

#include "absl/synchronization/mutex.h"
#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

class HostFrontTest : public ProxyHarness {
 protected:
  void SetUp() override {
    Configured("bank_pay").outcome = PolicyOutcome::kAllow;
    Open();
    front_ = std::make_unique<HostFront>(*proxy_);
    send_ = [this](std::string line) {
      absl::MutexLock lock(&mu_);
      sent_.push_back(std::move(line));
    };
  }
  std::vector<std::string> Sent() {
    absl::MutexLock lock(&mu_);
    return sent_;
  }

  absl::Mutex mu_;
  std::vector<std::string> sent_;
  std::unique_ptr<HostFront> front_;
  Send send_;
};

TEST_F(HostFrontTest, HandshakeOffersTheLatestAndAcceptsTheLegacyVersions) {
  for (std::string_view asked : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "x"}) {
    sent_.clear();
    front_->Receive(
        absl::StrCat(
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")",
            ToAbsl(asked), R"("}})"),
        send_);
    ASSERT_THAT(Sent(), SizeIs(1));
    bool legacy = asked == "2025-06-18" || asked == "2025-03-26";
    EXPECT_THAT(Sent()[0], HasSubstr(absl::StrCat(R"("protocolVersion":")",
                                                  legacy ? ToAbsl(asked) : "2025-11-25", "\"")))
        << asked;
    EXPECT_THAT(Sent()[0], AllOf(HasSubstr(R"("name":"gated-tools")"), HasSubstr(R"("tools")")));
  }
}

TEST_F(HostFrontTest, AHostThatCancelsAnExecutingCallLetsItFinishAndBeRecorded) {
  absl::Notification started, release;
  pay_.started = &started;
  pay_.never = &release;
  std::optional<std::function<void()>> task = front_->Receive(
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bank_pay","arguments":{"to":"kim","amount":7}}})",
      send_);
  ASSERT_TRUE(task.has_value());
  std::thread call(*task);
  started.WaitForNotification();
  EXPECT_FALSE(front_->Receive(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}})", send_));
  release.Notify();
  call.join();
  ASSERT_THAT(Sent(), SizeIs(1));
  EXPECT_THAT(Sent()[0], HasSubstr("paid 7.00 to kim"));
  pay_.started = nullptr;
  pay_.never = nullptr;
  EXPECT_THAT(Call("bank_pay", R"({"to":"kim","amount":7})").text,
              AllOf(StartsWith("DUPLICATE: "), HasSubstr("paid 7.00 to kim")));
  EXPECT_THAT(payments_, SizeIs(1));
}

TEST_F(HostFrontTest, AfterShutdownACallIsRefusedAndNothingRuns) {
  front_->Shutdown();
  EXPECT_FALSE(front_->Receive(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bank_pay","arguments":{"to":"a","amount":1}}})",
      send_));
  ASSERT_THAT(Sent(), SizeIs(1));
  EXPECT_THAT(Sent()[0], HasSubstr("the proxy is shutting down"));
  EXPECT_THAT(payments_, IsEmpty());
}

TEST_F(HostFrontTest, CallsPastTheBoundInFlightAreRefusedAtOnce) {
  HostFront bounded(*proxy_, /*max_in_flight=*/2);
  std::vector<std::function<void()>> tasks;
  for (int i = 1; i <= 3; ++i) {
    std::optional<std::function<void()>> task = bounded.Receive(
        absl::StrCat(
            R"({"jsonrpc":"2.0","id":)", i,
            R"(,"method":"tools/call","params":{"name":"bank_balance","arguments":{"account":"a"}}})"),
        send_);
    if (task) tasks.push_back(*std::move(task));
  }
  EXPECT_THAT(tasks, SizeIs(2));
  ASSERT_THAT(Sent(), SizeIs(1));
  EXPECT_THAT(Sent()[0], AllOf(HasSubstr(R"("id":3)"), HasSubstr("too many calls in flight")));
  for (auto& task : tasks) task();
  EXPECT_TRUE(
      bounded
          .Receive(
              R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bank_balance","arguments":{"account":"a"}}})",
              send_)
          .has_value());
}

TEST_F(HostFrontTest, AResultIsTextAndAnObjectIsAlsoStructuredContent) {
  std::optional<std::function<void()>> task = front_->Receive(
      R"({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"bank_pay","arguments":{"to":"jo","amount":2,"mode":"structured"}}})",
      send_);
  ASSERT_TRUE(task.has_value());
  (*task)();
  ASSERT_THAT(Sent(), SizeIs(1));
  EXPECT_THAT(Sent()[0], AllOf(HasSubstr(R"("id":"s")"),
                               HasSubstr(R"("structuredContent":{"paid":2,"to":"jo"})"),
                               HasSubstr(R"("type":"text")")));
  EXPECT_THAT(Sent()[0], Not(HasSubstr("isError")));
}

}  // namespace
}  // namespace agentrt::proxy::testing
