// The engine on one thread: a run with a lease, a tool call longer than the lease and model
// retries, driven entirely by the manual world on the test's thread. Nothing starts a thread,
// nothing reads real time, and the same world gives the same audit log byte for byte — what
// the simulator is built on.
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;
using ::testing::Each;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// The threads this process has now, from the kernel's own count.
int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) {
      int n = 0;
      EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(8)), &n));
      return n;
    }
  }
  ADD_FAILURE() << "no Threads: line in /proc/self/status";
  return -1;
}

// Fails twice with a transient error, then answers.
class FlakyModel final : public Model {
 public:
  std::string Name() const override { return "flaky"; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest&, absl::Time) override {
    if (++calls <= 2) return TransientError("overloaded");
    ModelResponse response;
    response.text = "go on";
    response.stop_reason = "end_turn";
    response.usage = Usage{10, 5, 0};
    return response;
  }
  int calls = 0;
};

// Asks the model once at its first step (the retries happen inside), then follows its script.
class AskingAgent final : public Agent {
 public:
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    if (input.steps.empty()) {
      absl::StatusOr<ModelResponse> answer = input.model->Generate(ModelRequest{});
      if (!answer.ok()) return answer.status();
      return Call("slow", R"({"for":"75s"})");
    }
    return Complete(R"({"done":true})");
  }
};

// Takes 75 s of the world's time: two and a half lease TTLs.
class SlowTool final : public Tool {
 public:
  explicit SlowTool(world::ManualClock& world) : world_(world) {}
  ToolSpec Spec() const override {
    return ToolSpec{"slow",
                    "Takes its time.",
                    R"({"type":"object","properties":{"for":{"type":"string"}}})",
                    SideEffect::kLocalMutation,
                    absl::Minutes(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    threads_inside = ThreadCount();
    for (int i = 0; i < 15; ++i) world_.Advance(absl::Seconds(5));
    return ToolResult{R"({"slept":75})", "slept"};
  }
  int threads_inside = 0;

 private:
  world::ManualClock& world_;
};

struct Outcome {
  Run run;
  store::ChainHead head;
  std::vector<std::thread::id> renewed_on;
  std::vector<absl::Duration> jumps;
  int model_calls = 0;
  int threads_inside = 0;
};

// One world for everything: the run's clock, the lease clock and the scheduler are the same
// manual clock, whose waits jump (a backoff takes no time) and which runs the heartbeat when
// the tool moves it.
Outcome Drive() {
  world::ManualClock world(kStart, {.waits = world::ManualClock::Waits::kJump});
  world::SeededEntropy entropy(17);
  std::unique_ptr<store::Store> store = *test_support::OpenTestStore(world);
  FlakyModel model;
  AskingAgent agent;
  SlowTool slow(world);
  std::unique_ptr<Policy> policy = DefaultPolicy();
  Outcome out;
  DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&slow};
  options.scheduler = &world;
  options.lease_ttl = absl::Seconds(30);
  options.on_lease_renewed = [&] { out.renewed_on.push_back(std::this_thread::get_id()); };
  options.model.model = &model;
  options.model.prices = Free({"flaky"});
  options.model.max_retries = 2;
  options.model.backoff = absl::Seconds(20);
  std::unique_ptr<Driver> driver = *Driver::Create(*store, world, entropy, options);
  absl::StatusOr<Run> run = driver->StartWithId("run-1", "one thread", Limits{});
  EXPECT_OK(run);
  if (run.ok()) out.run = *run;
  out.head = *store->Head();
  out.jumps = world.jumps();
  out.model_calls = model.calls;
  out.threads_inside = slow.threads_inside;
  EXPECT_EQ(world.pending_tasks(), 0u);  // the heartbeat ended with the run
  return out;
}

TEST(OneThreadTest, ALeaseALongToolCallAndRetriesRunOnTheCallersThreadAlone) {
  int before = ThreadCount();
  Outcome out = Drive();
  EXPECT_EQ(out.run.status, RunStatus::kCompleted);
  EXPECT_EQ(out.model_calls, 3);
  // The two backoffs (20 s, then 40 s) jumped the clock; the heartbeat (every 10 s) beat
  // during them and during the tool's 75 s, always on this thread.
  EXPECT_THAT(out.jumps, ElementsAre(absl::Seconds(20), absl::Seconds(40)));
  EXPECT_EQ(out.renewed_on.size(), 6u + 7u);  // 60 s of backoff, then 75 s in the tool
  EXPECT_THAT(out.renewed_on, Each(std::this_thread::get_id()));
  EXPECT_EQ(out.threads_inside, before);
  EXPECT_EQ(ThreadCount(), before);
}

TEST(OneThreadTest, TheSameWorldWritesTheSameAuditLog) {
  Outcome a = Drive();
  Outcome b = Drive();
  EXPECT_GT(a.head.seq, 0);
  EXPECT_EQ(a.head.seq, b.head.seq);
  EXPECT_EQ(a.head.hash, b.head.hash);
  EXPECT_EQ(a.run.finished_at, b.run.finished_at);
}

}  // namespace
}  // namespace agentrt
