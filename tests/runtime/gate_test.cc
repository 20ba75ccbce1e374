// A loop the caller owns writes exactly what the driver writes for the same story
// (reference/core.md §4.14).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/driver.h"
#include "runtime/engine/run_reader.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;

using ::testing::HasSubstr;

class EchoTool : public Tool {
 public:
  EchoTool(std::string name, SideEffect se) : name_(std::move(name)), se_(se) {}
  ToolSpec Spec() const override {
    return ToolSpec{name_,
                    "Echo.",
                    R"({"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]})",
                    se_,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    ++calls;
    return ToolResult{call.args, "echoed"};
  }
  int calls = 0;

 private:
  std::string name_;
  SideEffect se_;
};

std::vector<Decision> Story() {
  Decision done;
  done.kind = "complete";
  done.result = R"({"ok":true})";
  return {Call("echo", R"({"x":1})"), Call("echo", R"({"x":"no"})"), Call("rm", R"({"x":2})"),
          Call("echo", R"({"x":3})"), done};
}

struct World {
  world::ManualClock clock{absl::FromUnixSeconds(1'800'000'000)};
  world::ManualClock lease_clock{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy{11};
  std::unique_ptr<store::Store> store = *store::Store::OpenInMemory(clock);
  EchoTool echo{"echo", SideEffect::kReadOnly};
  EchoTool rm{"rm", SideEffect::kDestructive};
  std::unique_ptr<Policy> policy = DefaultPolicy();
};

std::vector<store::Event> Events(store::Store& store) { return *store.ListEvents(""); }

TEST(GateTest, ACallerOwnedLoopWritesWhatTheDriverWrites) {
  World by_driver;
  ScriptedAgent agent(Story());
  DriverOptions options{&agent, by_driver.policy.get(), {&by_driver.echo, &by_driver.rm}, "same"};
  options.scheduler = &by_driver.lease_clock;
  auto driver = *Driver::Create(*by_driver.store, by_driver.clock, by_driver.entropy, options);
  ASSERT_TRUE(driver->StartWithId("run-1", "the story", Limits{}).ok());

  World by_gate;
  DriverOptions gate_options{nullptr, by_gate.policy.get(), {&by_gate.echo, &by_gate.rm}, "same"};
  gate_options.scheduler = &by_gate.lease_clock;
  auto gate = *Driver::Create(*by_gate.store, by_gate.clock, by_gate.entropy, gate_options);
  absl::StatusOr<std::unique_ptr<GateSession>> session = gate->Begin("run-1", "the story");
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Decision> story = Story();
  std::size_t next = 0;
  std::vector<GateVerdict::Outcome> outcomes;
  while (true) {
    absl::StatusOr<bool> open = (*session)->Step();
    ASSERT_TRUE(open.ok()) << open.status();
    if (!*open) break;
    EXPECT_EQ((*session)->Input().run.step_count, static_cast<int>(next + 1));
    absl::StatusOr<GateVerdict> verdict = (*session)->Propose(story[next++]);
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    outcomes.push_back(verdict->outcome);
    if (verdict->outcome == GateVerdict::Outcome::kAllowed) {
      absl::StatusOr<Observation> obs = (*session)->Execute();
      ASSERT_TRUE(obs.ok()) << obs.status();
      EXPECT_EQ(obs->kind, ObservationKind::kToolResult);
    }
    if (verdict->outcome == GateVerdict::Outcome::kEnded) break;
  }
  EXPECT_THAT(outcomes,
              ::testing::ElementsAre(GateVerdict::Outcome::kAllowed, GateVerdict::Outcome::kDenied,
                                     GateVerdict::Outcome::kDenied, GateVerdict::Outcome::kAllowed,
                                     GateVerdict::Outcome::kEnded));
  std::vector<store::Event> a = Events(*by_driver.store), b = Events(*by_gate.store);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].type);
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].payload_json, b[i].payload_json);
    EXPECT_EQ(a[i].hash, b[i].hash);  // so the whole chain is the same
  }
  EXPECT_EQ(by_driver.echo.calls, by_gate.echo.calls);
  EXPECT_EQ(by_gate.rm.calls, 0);
}

TEST(GateTest, ASessionKeepsItsLeaseWhileTheCallerTakesItsTime) {
  World w;
  int renewals = 0;
  DriverOptions options{nullptr, w.policy.get(), {&w.echo}, "gate"};
  options.scheduler = &w.lease_clock;
  options.on_lease_renewed = [&] { ++renewals; };
  auto gate = *Driver::Create(*w.store, w.clock, w.entropy, options);
  auto session = *gate->Begin("run-1", "slow caller");
  ASSERT_TRUE(*session->Step());
  for (int i = 1; i <= 6; ++i) {  // the caller thinks for two whole TTLs
    w.lease_clock.Advance(absl::Seconds(10));
    EXPECT_EQ(renewals, i);  // the manual world beats on the thread that moves its clock
  }
  DriverOptions rival_options{nullptr, w.policy.get(), {&w.echo}, "rival"};
  rival_options.scheduler = &w.lease_clock;
  auto rival = *Driver::Create(*w.store, w.clock, w.entropy, rival_options);
  EXPECT_THAT(rival->Attach("run-1").status().message(), HasSubstr("is leased by gate/"));
  EXPECT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, GateVerdict::Outcome::kAllowed);
  EXPECT_TRUE(session->Execute().ok());
}

// Closing a session, or destroying it, stops its heartbeat and releases its lease: a rival
// attaches at once, with the lease clock unmoved, and the closed session refuses every call.
TEST(GateTest, ClosingOrDroppingASessionReleasesItsLeaseForARivalAtOnce) {
  for (bool close : {true, false}) {
    SCOPED_TRACE(close ? "Close" : "destructor");
    World w;
    DriverOptions options{nullptr, w.policy.get(), {&w.echo}, "gate"};
    options.scheduler = &w.lease_clock;
    auto gate = *Driver::Create(*w.store, w.clock, w.entropy, options);
    auto session = *gate->Begin("run-1", "left mid-step");
    ASSERT_TRUE(*session->Step());
    EXPECT_THAT(ReadLease(*w.store, "run-1")->owner, ::testing::StartsWith("gate/"));
    if (close) {
      ASSERT_TRUE(session->Close().ok());
      EXPECT_TRUE(session->Close().ok());  // twice is fine
      EXPECT_EQ(session->Step().status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_EQ(session->Propose(Call("echo", R"({"x":1})")).status().code(),
                absl::StatusCode::kFailedPrecondition);
      EXPECT_EQ(session->Execute().status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_EQ(session->Fail(absl::InternalError("x")).code(),
                absl::StatusCode::kFailedPrecondition);
    } else {
      session.reset();
    }
    EXPECT_EQ(ReadLease(*w.store, "run-1")->owner, "");
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);  // the heartbeat is gone
    DriverOptions rival_options{nullptr, w.policy.get(), {&w.echo}, "rival"};
    rival_options.scheduler = &w.lease_clock;
    auto rival = *Driver::Create(*w.store, w.clock, w.entropy, rival_options);
    auto attached = rival->Attach("run-1");
    ASSERT_TRUE(attached.ok()) << attached.status();
    EXPECT_EQ(attached->second.outcome, GateVerdict::Outcome::kOpen);
    EXPECT_THAT(ReadLease(*w.store, "run-1")->owner, ::testing::StartsWith("rival/"));
  }
}

TEST(GateTest, ANewRunIsLeasedFromItsFirstWrite) {
  World w;
  DriverOptions options{nullptr, w.policy.get(), {&w.echo}, "first"};
  options.scheduler = &w.lease_clock;
  auto gate = *Driver::Create(*w.store, w.clock, w.entropy, options);
  auto session = *gate->Begin("run-1", "fresh");
  DriverOptions rival_options{nullptr, w.policy.get(), {&w.echo}, "rival"};
  rival_options.scheduler = &w.lease_clock;
  auto rival = *Driver::Create(*w.store, w.clock, w.entropy, rival_options);
  EXPECT_THAT(rival->Attach("run-1").status().message(), HasSubstr("is leased by first/"));
}

TEST(GateTest, MisuseIsRefusedAndChangesNothing) {
  World w;
  DriverOptions options{nullptr, w.policy.get(), {&w.echo}, "gate"};
  options.scheduler = &w.lease_clock;
  auto gate = *Driver::Create(*w.store, w.clock, w.entropy, options);
  auto session = *gate->Begin("run-1", "misuse");
  EXPECT_FALSE(session->Propose(Call("echo", R"({"x":1})")).ok());  // no open step
  EXPECT_FALSE(session->Execute().ok());
  ASSERT_TRUE(*session->Step());
  EXPECT_THAT(session->Step().status().message(), HasSubstr("already open"));
  EXPECT_FALSE(session->Execute().ok());  // nothing allowed yet
  EXPECT_FALSE(session->Fail(absl::OkStatus()).ok());
  ASSERT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, GateVerdict::Outcome::kAllowed);
  EXPECT_FALSE(session->Propose(Call("echo", R"({"x":1})")).ok());  // a second decision
  EXPECT_TRUE(session->Execute().ok());
  EXPECT_FALSE(session->Execute().ok());  // a second execute
  EXPECT_EQ(w.echo.calls, 1);
  ASSERT_TRUE(*session->Step());
  EXPECT_TRUE(session->Fail(absl::UnavailableError("the model is down")).ok());
  EXPECT_EQ(ReadRun(*w.store, "run-1")->reason, "agent_error");
  EXPECT_FALSE(*session->Step());  // the run ended
  // A driver without an agent cannot Start.
  EXPECT_FALSE(gate->StartWithId("run-2", "no agent", Limits{}).ok());
}

}  // namespace
}  // namespace agentrt
