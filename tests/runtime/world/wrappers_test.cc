// The forwarding bases of the world's interfaces: a wrapper that overrides nothing is its
// target, call for call, and one that overrides a call changes only that call.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/environment.h"
#include "runtime/world/launcher.h"
#include "runtime/world/network.h"
#include "runtime/world/scheduler.h"
#include "tests/support/fake_world.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(WrappersTest, AClockWrapperReadsWaitsAndWakesItsTarget) {
  ManualClock target(kStart, {.waits = ManualClock::Waits::kJump});
  ClockWrapper clock(target);
  EXPECT_EQ(clock.Now(), kStart);
  target.Advance(absl::Seconds(3));
  EXPECT_EQ(clock.Now(), kStart + absl::Seconds(3));
  absl::Notification never;
  EXPECT_FALSE(clock.WaitUntil(never, kStart + absl::Minutes(1)));  // the target jumps
  EXPECT_EQ(target.Now(), kStart + absl::Minutes(1));
  EXPECT_EQ(&clock.target(), &target);
}

TEST(WrappersTest, AClockThatOverridesOneCallForwardsTheOthers) {
  class Late final : public ClockWrapper {
   public:
    using ClockWrapper::ClockWrapper;
    absl::Time Now() const override { return ClockWrapper::Now() + absl::Hours(1); }
  };
  ManualClock target(kStart, {.waits = ManualClock::Waits::kJump});
  Late clock(target);
  EXPECT_EQ(clock.Now(), kStart + absl::Hours(1));
  absl::Notification never;
  EXPECT_FALSE(clock.WaitUntil(never, kStart + absl::Seconds(5)));
  EXPECT_EQ(target.Now(), kStart + absl::Seconds(5));
}

TEST(WrappersTest, ASchedulerWrapperSchedulesAndCancelsOnItsTarget) {
  ManualClock target(kStart);
  SchedulerWrapper scheduler(target);
  EXPECT_EQ(&scheduler.clock(), &target);
  std::vector<std::string> ran;
  scheduler.RunAt(kStart + absl::Seconds(1), [&] { ran.push_back("once"); });
  Scheduler::TaskId every = scheduler.RunEvery(kStart + absl::Seconds(2), absl::Seconds(2), [&] {
    ran.push_back("every");
    return true;
  });
  target.Advance(absl::Seconds(4));
  EXPECT_TRUE(scheduler.Cancel(every));
  target.Advance(absl::Seconds(10));
  EXPECT_THAT(ran, ElementsAre("once", "every", "every"));
  EXPECT_EQ(target.pending_tasks(), 0u);
}

TEST(WrappersTest, AnEntropyWrapperDrawsFromItsTarget) {
  SeededEntropy target(7), same(7);
  EntropyWrapper entropy(target);
  EXPECT_EQ(entropy.NewId(), same.NewId());
  EXPECT_EQ(target.NewId(), same.NewId());  // the target's stream moved on
}

TEST(WrappersTest, AnEnvironmentWrapperReadsItsTarget) {
  FixedEnvironment target(std::map<std::string, std::string, std::less<>>{{"PATH", "/bin"}});
  EnvironmentWrapper environment(target);
  EXPECT_THAT(environment.Get("PATH"), Optional(std::string("/bin")));
  EXPECT_EQ(environment.Get("HOME"), std::nullopt);
}

// A launcher that overrides only Start, to wrap each process in a ProcessWrapper that overrides
// only Write: everything else is the fake `wc`'s own.
TEST(WrappersTest, LauncherAndProcessWrappersForwardWhatTheyDoNotOverride) {
  class Doubling final : public ProcessWrapper {
   public:
    using ProcessWrapper::ProcessWrapper;
    absl::Status Write(std::string_view bytes, absl::Time deadline) override {
      absl::Status first = ProcessWrapper::Write(bytes, deadline);
      if (!first.ok()) return first;
      return ProcessWrapper::Write(bytes, deadline);
    }
  };
  class DoublingLauncher final : public LauncherWrapper {
   public:
    using LauncherWrapper::LauncherWrapper;
    absl::StatusOr<std::unique_ptr<Process>> Start(const LaunchSpec& spec) override {
      absl::StatusOr<std::unique_ptr<Process>> started = LauncherWrapper::Start(spec);
      if (!started.ok()) return started.status();
      return std::make_unique<Doubling>(*std::move(started));
    }
  };
  test_support::FakeLauncher target;
  DoublingLauncher launcher(target);
  absl::StatusOr<std::unique_ptr<Process>> wc = launcher.Start({.argv = {"wc"}});
  ASSERT_OK(wc);
  EXPECT_EQ((*wc)->pid(), 4242);
  ASSERT_OK((*wc)->Write("two words ", absl::InfiniteFuture()));
  ASSERT_OK((*wc)->CloseStdin());
  EXPECT_THAT((*wc)->Read(absl::InfiniteFuture(), 64), IsOkAndHolds("4\n"));
  EXPECT_THAT((*wc)->Wait(absl::InfiniteFuture()), IsOkAndHolds(ExitStatus{.code = 0}));
  EXPECT_EQ((*wc)->StderrTail(absl::InfiniteFuture()), "wc: counting\n");
  EXPECT_EQ((*wc)->Close(), ExitStatus{.code = 0});
  EXPECT_EQ(target.started(), 1);
  EXPECT_EQ(launcher.Start({.argv = {"cat"}}).status().code(), absl::StatusCode::kNotFound);
}

TEST(WrappersTest, NetworkAndResponseWrappersForwardWhatTheyDoNotOverride) {
  class Counting final : public NetworkWrapper {
   public:
    using NetworkWrapper::NetworkWrapper;
    absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                       absl::Time deadline) override {
      ++sent;
      absl::StatusOr<std::unique_ptr<HttpResponse>> response =
          NetworkWrapper::Send(request, deadline);
      if (!response.ok()) return response.status();
      return std::make_unique<HttpResponseWrapper>(*std::move(response));
    }
    int sent = 0;
  };
  test_support::FakeNetwork target;
  Counting network(target);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.method = "POST", .url = "http://fake.test/mcp"}, absl::InfiniteFuture());
  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 200);
  EXPECT_EQ((*response)->headers().size(), 1u);
  absl::StatusOr<std::string> body = ReadBody(**response, absl::InfiniteFuture());
  ASSERT_OK(body);
  EXPECT_THAT(*body, ::testing::HasSubstr("POST"));
  (*response)->Close();
  EXPECT_EQ((*response)->Read(absl::InfiniteFuture()).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(network.sent, 1);
  EXPECT_EQ(target.sent(), 1);
}

}  // namespace
}  // namespace agentrt::world
