// The loop's own bookkeeping (docs/architecture.md, "The engine"):
// the steps it keeps in memory are the steps a fresh read gives; JSON too deep is refused where it
// enters; owners never share a lease; the heartbeat is gone when a loop returns; the resume path
// reads the clock a fixed number of times.
#include <algorithm>
#include <filesystem>
#include <functional>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/cancellation.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/timestamp.h"
#include "tests/runtime/describe_step.h"
#include "tests/runtime/fn_tool.h"
#include "tests/runtime/post_tool.h"
#include "tests/support/old_database.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

constexpr absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
// Resuming a grant and completing: the resume reading, the tool start (the step's clock
// restarts), the tool's end, the next step's start, its decision, and its end and the run's end
// (two readings, as every ending of a run with its step).
constexpr std::int64_t kResumeReadings = 7;

using testing::FnTool;

// An agent that checks, at every step, that what it is handed is what a fresh read of the store
// gives, field by field, then plays its script (by step index; Complete past its end).
class Checking final : public Agent {
 public:
  Checking(store::Store& store, std::vector<Decision> script)
      : store_(store), script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    std::vector<Step> fresh = *ReadSteps(store_, input.run.id);
    EXPECT_EQ(fresh.size(), input.steps.size() + 1);  // and the open step
    for (std::size_t i = 0; i < input.steps.size() && i < fresh.size(); ++i) {
      EXPECT_EQ(testing::DescribeStep(*input.steps.Read(i)), testing::DescribeStep(fresh[i]))
          << "step " << i;
    }
    ++checked;
    std::size_t index = static_cast<std::size_t>(input.run.step_count - 1);
    return index < script_.size() ? script_[index] : Complete();
  }
  int checked = 0;

 private:
  store::Store& store_;
  std::vector<Decision> script_;
};

class LoopRulesTest : public ::testing::Test {
 protected:
  std::unique_ptr<Driver> NewDriver(Agent* agent, std::vector<Tool*> tools,
                                    std::string owner = "worker", Reconcile reconcile = nullptr) {
    DriverOptions options;
    options.agent = agent;
    options.policy = policy_.get();
    options.tools = std::move(tools);
    options.scheduler = &lease_clock_;
    options.lease_owner = std::move(owner);
    options.reconcile = std::move(reconcile);
    return *Driver::Create(*store_, clock_, entropy_, options);
  }

  world::ManualClock clock_{kStart};
  world::ManualClock lease_clock_{kStart};
  world::SeededEntropy entropy_{12};
  std::unique_ptr<store::Store> store_ = *test_support::OpenTestStore(clock_);
  std::unique_ptr<Policy> policy_ = DefaultPolicy();
};

// The step cache (docs/architecture.md, "The engine"): what an agent is handed is what the store
// holds, across tool calls, a denial, an invalid decision, a pause and a resume.
TEST_F(LoopRulesTest, TheStepsTheLoopKeepsAreTheStepsAFreshReadGives) {
  FnTool read("read", SideEffect::kReadOnly, [](const ToolCall&) {
    return ToolResult{R"({"text":"x"})", "read"};
  });
  FnTool wipe("wipe", SideEffect::kDestructive, [](const ToolCall&) { return ToolResult{}; });
  testing::PostTool post;
  std::vector<Decision> script = {Call("read", "{}"),
                                  Call("wipe", "{}"),
                                  Call("nope", "{}"),
                                  Call("read", R"({"n":1})"),
                                  Call("post", R"({"to":"x"})"),
                                  Complete()};
  Checking agent(*store_, script);
  ASSERT_EQ(NewDriver(&agent, {&read, &wipe, &post})->StartWithId("r", "cache", Limits{})->status,
            RunStatus::kWaitingForApproval);
  ASSERT_OK(Approve(*store_, clock_, "r", PendingApproval(*store_, "r")->id, Decider{"ops", ""}));
  Checking resumed(*store_, script);
  absl::StatusOr<agentrt::Run> run = NewDriver(&resumed, {&read, &wipe, &post})->Resume("r");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(agent.checked + resumed.checked, 6);
}

// What the loop keeps is the stored form, not what it was handed: arguments and results the
// store rewrites (canonical JSON) are kept as rewritten; and a run interrupted in a call and
// resumed by another driver hands its agent the steps as stored, the interrupted one included.
TEST_F(LoopRulesTest, TheKeptStepsAreTheStoredFormThroughRewritesAndAnInterruption) {
  Cancellation cancel;
  FnTool read("read", SideEffect::kReadOnly, [](const ToolCall&) {
    return ToolResult{R"({ "text" : "x", "n" : 1.50, "e" : 1e2 })", "read"};
  });
  FnTool slow("slow", SideEffect::kReadOnly, [&](const ToolCall&) -> absl::StatusOr<ToolResult> {
    if (!cancel.cancelled()) {
      cancel.Cancel();  // the caller gives up while the call runs
      return absl::CancelledError("stopped");
    }
    return ToolResult{"{}", "done"};
  });
  std::vector<Decision> script = {Call("read", "{ \"b\" : [ 2.0 ], \"a\" : 1 }"),
                                  Call("read", R"({"\u0061":"\u00e9"})"), Call("slow", "{}"),
                                  Call("slow", "{}"), Complete()};
  Checking agent(*store_, script);
  absl::Status stopped =
      NewDriver(&agent, {&read, &slow})->StartWithId("r", "rewrites", Limits{}, &cancel).status();
  ASSERT_EQ(stopped.code(), absl::StatusCode::kCancelled) << stopped;
  std::vector<Step> stored = *ReadSteps(*store_, "r");
  ASSERT_GE(stored.size(), 3u);
  EXPECT_EQ(stored[0].decision->args, R"({"a":1,"b":[2]})");  // canonical, as kept
  EXPECT_EQ(stored[0].observation->content, R"({"e":100,"n":1.5,"text":"x"})");
  EXPECT_EQ(stored[1].decision->args, "{\"a\":\"\xc3\xa9\"}");
  Checking resumed(*store_, script);
  absl::StatusOr<agentrt::Run> run = NewDriver(&resumed, {&read, &slow}, "second")->Resume("r");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  EXPECT_EQ(agent.checked, 3);
  EXPECT_GE(resumed.checked, 2);
}

// A write that fails leaves what the session keeps as it was: a step whose claim could not be
// written (its id collides with a stored one) is not kept, the session's Input is still the
// store's, and the next Step goes on from there.
TEST_F(LoopRulesTest, AFailedWriteLeavesTheKeptStepsAsTheStoreHasThem) {
  // Entropy that can be told to draw an id it drew before.
  class RepeatingEntropy final : public world::Entropy {
   public:
    void Fill(std::span<std::uint8_t> out) override {
      if (!replay.empty() && replay.size() == out.size()) {
        std::copy(replay.begin(), replay.end(), out.begin());
        replay.clear();
        return;
      }
      inner_.Fill(out);
      drawn.emplace_back(out.begin(), out.end());
    }
    // The bytes drawn for the id `hex` (as world::Entropy::NewId spells it).
    std::vector<std::uint8_t> BytesOf(std::string_view hex) const {
      for (const std::vector<std::uint8_t>& bytes : drawn) {
        std::string spelled;
        for (std::uint8_t b : bytes) absl::StrAppend(&spelled, absl::Hex(b, absl::kZeroPad2));
        if (spelled == hex) return bytes;
      }
      return {};
    }
    std::vector<std::vector<std::uint8_t>> drawn;
    std::vector<std::uint8_t> replay;  // drawn once more by the next Fill of its size

   private:
    world::SeededEntropy inner_{5};
  };
  RepeatingEntropy entropy;
  FnTool read("read", SideEffect::kReadOnly, [](const ToolCall&) {
    return ToolResult{R"({"text":"x"})", "read"};
  });
  DriverOptions options;
  options.policy = policy_.get();
  options.tools = {&read};
  options.scheduler = &lease_clock_;
  std::unique_ptr<Driver> driver = *Driver::Create(*store_, clock_, entropy, options);
  std::unique_ptr<GateSession> session = *driver->Begin("r", "collide", Limits{});
  auto same_as_stored = [&](std::string_view when) {
    SCOPED_TRACE(when);
    StepInput input = session->Input();
    std::vector<Step> fresh = *ReadSteps(*store_, "r");
    ASSERT_EQ(input.steps.size(), fresh.size());
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ(testing::DescribeStep(*input.steps.Read(i)), testing::DescribeStep(fresh[i]))
          << "step " << i;
    }
    EXPECT_EQ(input.run.step_count, ReadRun(*store_, "r")->step_count);
  };
  ASSERT_TRUE(*session->Step());
  ASSERT_EQ(session->Propose(Call("read", "{}"))->outcome, GateVerdict::Outcome::kAllowed);
  ASSERT_OK(session->Execute());
  same_as_stored("after one step");
  entropy.replay = entropy.BytesOf(ReadSteps(*store_, "r")->at(0).id);  // the next step's id
  ASSERT_FALSE(entropy.replay.empty());
  absl::StatusOr<bool> collided = session->Step();
  EXPECT_EQ(collided.status().code(), absl::StatusCode::kAlreadyExists) << collided.status();
  same_as_stored("after the failed claim");
  ASSERT_TRUE(*session->Step());
  ASSERT_EQ(session->Propose(Call("read", "{}"))->outcome, GateVerdict::Outcome::kAllowed);
  ASSERT_OK(session->Execute());
  same_as_stored("after the next step");
  EXPECT_EQ(ReadRun(*store_, "r")->step_count, 2);
}

// JSON deeper than 256 levels is refused where it enters, never crashing or reaching a store
// column: the agent's arguments (an invalid decision), a tool's content (a tool error), a
// policy's capability (the run fails, internal, naming it).
TEST_F(LoopRulesTest, JsonTooDeepIsRefusedWhereItEnters) {
  std::string deep = std::string(257, '[') + std::string(257, ']');
  FnTool echo("echo", SideEffect::kReadOnly, [&](const ToolCall& call) {
    return ToolResult{call.args == "{}" ? deep : "{}", "echo"};
  });
  ScriptedAgent agent({Call("echo", R"({"a":)" + deep + "}"), Call("echo", "{}"), Complete()});
  Limits limits;
  limits.max_consecutive_tool_failures = 5;
  absl::StatusOr<agentrt::Run> run = NewDriver(&agent, {&echo})->StartWithId("r", "deep", limits);
  ASSERT_OK(run);
  std::vector<Step> steps = *ReadSteps(*store_, "r");
  ASSERT_GE(steps.size(), 2u);
  EXPECT_EQ(steps[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(steps[0].observation->summary, HasSubstr("nesting deeper than 256"));
  EXPECT_EQ(echo.calls, 1);  // the deep arguments never reached the tool
  EXPECT_EQ(steps[1].observation->kind, ObservationKind::kToolError);
  EXPECT_THAT(steps[1].observation->summary, HasSubstr("not usable JSON"));
  EXPECT_THAT(steps[1].observation->summary, HasSubstr("nesting deeper than 256"));
  EXPECT_EQ(run->status, RunStatus::kCompleted);

  // A number past the intake bounds is refused the same way, before any tool sees it.
  ScriptedAgent huge({Call("echo", R"({"n":1e99999999999999999999})"), Complete()});
  ASSERT_OK(NewDriver(&huge, {&echo}, "other")->StartWithId("h", "huge", limits));
  std::vector<Step> huge_steps = *ReadSteps(*store_, "h");
  EXPECT_EQ(huge_steps[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(huge_steps[0].observation->summary, HasSubstr("exponent"));
  EXPECT_EQ(echo.calls, 1);  // still only the first run's one call

  // A policy's capability that deep is refused at NeedApproval, naming which part.
  absl::StatusOr<PolicyDecision> need = NeedApproval("k", "r", deep, "{}");
  EXPECT_EQ(need.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(need.status().message(), HasSubstr("capability"));

  // A policy that builds its answer by hand is refused by the driver: the run fails as
  // internal, naming the part, and nothing runs.
  class Deep final : public Policy {
   public:
    explicit Deep(std::string presentation) : presentation_(std::move(presentation)) {}
    absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
      PolicyDecision d;
      d.outcome = PolicyOutcome::kRequireApproval;
      d.kind = "review";
      d.presentation = presentation_;
      return d;
    }

   private:
    std::string presentation_;
  };
  Deep deep_policy(deep);
  ScriptedAgent asks({Call("echo", "{}"), Complete()});
  DriverOptions options;
  options.agent = &asks;
  options.policy = &deep_policy;
  options.tools = {&echo};
  options.scheduler = &lease_clock_;
  absl::StatusOr<agentrt::Run> refused = (*Driver::Create(*store_, clock_, entropy_, options))
                                             ->StartWithId("p", "deep policy", limits);
  ASSERT_OK(refused);
  EXPECT_EQ(refused->status, RunStatus::kFailed);
  EXPECT_EQ(refused->reason, "internal_error");
  EXPECT_THAT(refused->reason_detail, HasSubstr("presentation is not usable JSON"));
  EXPECT_EQ(echo.calls, 1);

  // Through a gate, the same bounds hold for what a caller proposes.
  std::unique_ptr<Driver> gate_driver = NewDriver(nullptr, {&echo}, "gate");
  std::unique_ptr<GateSession> gate = *gate_driver->Begin("g", "gate");
  ASSERT_TRUE(*gate->Step());
  absl::StatusOr<GateVerdict> verdict = gate->Propose(Call("echo", R"({"n":-1e99999999999})"));
  ASSERT_OK(verdict);
  std::vector<Step> gate_steps = *ReadSteps(*store_, "g");
  ASSERT_EQ(gate_steps.size(), 1u);
  EXPECT_EQ(gate_steps[0].observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(gate_steps[0].observation->summary, HasSubstr("exponent"));
  EXPECT_EQ(echo.calls, 1);
}

// Owners are a name and a fresh id: two drivers given the same name never share a lease, and
// a driver finding its own lease expired takes it over on the record like any other owner.
TEST_F(LoopRulesTest, TwoDriversOfOneNameAreTwoOwnersAndAnOwnExpiredLeaseIsTakenOver) {
  FnTool read("read", SideEffect::kReadOnly, [](const ToolCall&) { return ToolResult{}; });
  std::unique_ptr<Driver> a = NewDriver(nullptr, {&read}, "worker");
  std::unique_ptr<Driver> b = NewDriver(nullptr, {&read}, "worker");
  std::unique_ptr<GateSession> session = *a->Begin("r", "owned", Limits{});
  ASSERT_TRUE(*session->Step());
  std::string owner = ReadLease(*store_, "r")->owner;
  EXPECT_THAT(owner, StartsWith("worker/"));
  absl::Status refused = b->Attach("r").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("is leased by " + owner));
  // a's session dies as a process would: the destructor releases the lease, so put it back as
  // a crash leaves it, lapsed.
  session.reset();
  ASSERT_OK(test_support::Tamper(*store_, "a's lease lapsed, as a crash leaves it",
                                 "UPDATE runs SET lease_owner = ?1, "
                                 "lease_expires_at = '2000-01-01T00:00:00.000000000Z'",
                                 {std::string_view(owner)}));
  auto attached = a->Attach("r");
  ASSERT_OK(attached);
  std::vector<store::Event> events = *store_->ListEvents("r");
  bool taken_over = false;
  for (const store::Event& e : events) {
    if (e.type == "lease.taken_over") {
      taken_over = true;
      EXPECT_THAT(e.payload_json, HasSubstr(R"("previous_owner":")" + owner + "\""));
    }
  }
  EXPECT_TRUE(taken_over);
}

// A run left RUNNING by a build without leases is held by its placeholder lease for one TTL after
// the migration (an old loop may still be inside a call): a resume is refused until it passes,
// then takes the run over on the record and drives it to its end.
TEST_F(LoopRulesTest, ARunFromBeforeLeasesIsTakenOverOnlyOnceItsPlaceholderPasses) {
  std::filesystem::path dir = test_support::TestFolder();
  std::string path = (dir / "old.db").string();
  // The run as that build left it: its row, and the run.created that recorded it (a resume
  // checks the row against it).
  std::string created = world::FormatTimestamp(kStart - absl::Minutes(5));
  ASSERT_OK(test_support::MakeDatabaseAtVersion(
      path, 4,
      {"INSERT INTO runs (id, goal, status, limits_json, created_at) VALUES ('old', "
       "'g', 'RUNNING', '" +
           Limits{}.ToJson() + "', '" + created + "')",
       "INSERT INTO events (run_id, at, type, payload_json) VALUES ('old', '" + created +
           "', 'run.created', '{\"goal\":\"g\",\"limits\":" + Limits{}.ToJson() + "}')"}));
  absl::StatusOr<std::unique_ptr<store::Store>> opened = records::OpenStore(path, clock_);
  ASSERT_OK(opened);
  store_ = *std::move(opened);
  ScriptedAgent agent({Complete()});
  std::unique_ptr<Driver> driver = NewDriver(&agent, {});
  lease_clock_.Advance(absl::Seconds(29));
  absl::Status refused = driver->Resume("old").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("is leased by agentrt:pre-lease-version until " +
                                           world::FormatTimestamp(kStart + absl::Seconds(30))));
  EXPECT_THAT(*store_->ListEvents("old"), SizeIs(1));  // nothing written
  lease_clock_.Advance(absl::Seconds(2));
  absl::StatusOr<agentrt::Run> run = driver->Resume("old");
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted) << run->reason << ": " << run->reason_detail;
  std::vector<store::Event> events = *store_->ListEvents("old");
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[1].type, "lease.taken_over");
  EXPECT_THAT(events[1].payload_json, HasSubstr(R"("previous_owner":"agentrt:pre-lease-version")"));
  EXPECT_FALSE(store_->VerifyEvents()->broken.has_value());
}

// The heartbeat is a task on the scheduler while a loop drives its run, and only then.
TEST_F(LoopRulesTest, TheHeartbeatIsGoneWhenTheLoopReturnsHoweverItEnds) {
  FnTool read("read", SideEffect::kReadOnly, [this](const ToolCall&) {
    EXPECT_EQ(lease_clock_.pending_tasks(), 1u);  // beating while the tool runs
    return ToolResult{};
  });
  testing::PostTool post;
  ScriptedAgent completes({Call("read", "{}"), Complete()});
  ASSERT_OK(NewDriver(&completes, {&read})->StartWithId("a", "ends", Limits{}));
  EXPECT_EQ(lease_clock_.pending_tasks(), 0u);
  ScriptedAgent pauses({Call("post", R"({"to":"x"})")});
  ASSERT_EQ(NewDriver(&pauses, {&post})->StartWithId("b", "pauses", Limits{})->status,
            RunStatus::kWaitingForApproval);
  EXPECT_EQ(lease_clock_.pending_tasks(), 0u);
  ScriptedAgent errs({});  // the script runs out: the agent errs, the run fails
  ASSERT_EQ(NewDriver(&errs, {&read})->StartWithId("c", "errs", Limits{})->reason, "agent_error");
  EXPECT_EQ(lease_clock_.pending_tasks(), 0u);
}

// The resume of a grant reads the run's clock a fixed number of times, like the loop's paths
// (DriverTest.ClockReadingsPerPathAreStable): replays and simulations read it exactly as often
// as the recording did.
TEST_F(LoopRulesTest, TheResumePathReadsTheClockAFixedNumberOfTimes) {
  world::ManualClock counting(kStart, {.tick = absl::Milliseconds(1)});
  store_ = *test_support::OpenTestStore(counting);
  testing::PostTool post;
  auto driver_on = [&](Agent* agent) {
    DriverOptions options;
    options.agent = agent;
    options.policy = policy_.get();
    options.tools = {&post};
    options.scheduler = &lease_clock_;
    return *Driver::Create(*store_, counting, entropy_, options);
  };
  ScriptedAgent agent({Call("post", R"({"to":"x"})"), Complete()});
  std::int64_t before = counting.readings();
  ASSERT_EQ(driver_on(&agent)->StartWithId("r", "count", Limits{})->status,
            RunStatus::kWaitingForApproval);
  EXPECT_EQ(counting.readings() - before, 5);  // the pause, as the loop's table has it
  ASSERT_OK(Approve(*store_, clock_, "r", PendingApproval(*store_, "r")->id, Decider{"ops", ""}));
  ScriptedAgent again({Complete()});
  before = counting.readings();
  ASSERT_EQ(driver_on(&again)->Resume("r")->status, RunStatus::kCompleted);
  EXPECT_EQ(counting.readings() - before, kResumeReadings);
}

}  // namespace
}  // namespace agentrt
