// A loop the caller owns (the Gate, docs/architecture.md): it writes exactly what the driver
// writes for the same story, refuses misuse and every call once its lease is lost, hands the
// caller exactly what an agent would see, and leaves nothing scheduled once its session is over.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/approvals.h"
#include "runtime/driver.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "runtime/world/timestamp.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tamper.h"
#include "tests/support/test_store.h"

namespace agentrt {
namespace {

using ::agentrt::scripted::Call;
using ::agentrt::scripted::Complete;

using Outcome = GateVerdict::Outcome;

absl::Time Start() { return absl::FromUnixSeconds(1'800'000'000); }

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
    if (during) during();
    if (work_clock != nullptr) work_clock->Advance(work);  // the call takes its time
    return ToolResult{call.args, "echoed"};
  }
  int calls = 0;
  std::function<void()> during;  // runs inside the call: a rival taking the run over, say
  world::ManualClock* work_clock = nullptr;
  absl::Duration work = absl::ZeroDuration();

 private:
  std::string name_;
  SideEffect se_;
};

class FuncPolicy : public Policy {
 public:
  using Fn = std::function<absl::StatusOr<PolicyDecision>(const ToolRequest&, const RunView&)>;
  explicit FuncPolicy(Fn fn) : fn_(std::move(fn)) {}
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                          const RunView& view) override {
    return fn_(request, view);
  }

 private:
  Fn fn_;
};

// One world: the run's clock (with `tick`, every reading a little later than the one before),
// the lease clock that is also the scheduler, and the store, whose own clock only stamps its
// migrations, so the run clock's readings are the driver's alone.
struct World {
  explicit World(absl::Duration tick = absl::ZeroDuration()) : clock(Start(), {.tick = tick}) {}

  DriverOptions Options(std::string owner, Agent* agent = nullptr,
                        world::Scheduler* scheduler = nullptr) {
    DriverOptions options{
        agent, policy.get(), {&echo, &rm, &post, &write, &nuke}, std::move(owner)};
    options.scheduler = scheduler != nullptr ? scheduler : &lease_clock;
    return options;
  }
  std::unique_ptr<Driver> NewDriver(std::string owner, Agent* agent = nullptr,
                                    world::Scheduler* scheduler = nullptr) {
    return *Driver::Create(*store, clock, entropy, Options(std::move(owner), agent, scheduler));
  }
  // The operator approves the run's pending approval after thinking it over for a minute.
  void ApproveAfterAMinute() {
    clock.Advance(absl::Minutes(1));
    lease_clock.Advance(absl::Minutes(1));
    absl::StatusOr<Approval> pending = PendingApproval(*store, "run-1");
    ASSERT_OK(pending);
    ASSERT_OK(Approve(*store, clock, "run-1", pending->id, Decider{"ops", "fine"}));
  }

  world::ManualClock store_clock{Start()};
  world::ManualClock clock;
  world::ManualClock lease_clock{Start()};
  world::SeededEntropy entropy{11};
  std::unique_ptr<store::Store> store = *test_support::OpenTestStore(store_clock);
  EchoTool echo{"echo", SideEffect::kReadOnly};
  EchoTool rm{"rm", SideEffect::kDestructive};          // DefaultPolicy denies it
  EchoTool post{"post", SideEffect::kRemoteMutation};   // DefaultPolicy pauses it for approval
  EchoTool write{"write", SideEffect::kLocalMutation};  // allowed, and not read_only
  EchoTool nuke{"nuke", SideEffect::kDestructive};      // what a test's own policy aborts
  std::unique_ptr<Policy> policy = DefaultPolicy();
};

// Every row of the tables a run writes, by key, one line each.
std::string Rows(store::Store& store) {
  std::string out;
  absl::Status read = store.Read([&](store::Transaction& tx) -> absl::Status {
    for (const char* table : {"runs", "steps", "approvals", "tool_specs", "model_calls"}) {
      absl::StatusOr<std::vector<store::SqlRow>> rows =
          test_support::PeekIn(tx, "every row of the run's tables",
                               absl::StrCat("SELECT * FROM ", table, " ORDER BY 1"));
      if (!rows.ok()) return rows.status();
      for (const store::SqlRow& row : *rows) {
        absl::StrAppend(&out, table, ": ", absl::StrJoin(row, " | "), "\n");
      }
    }
    return absl::OkStatus();
  });
  EXPECT_OK(read);
  return out;
}

std::vector<store::Event> Events(store::Store& store) { return *store.ListEvents(""); }

std::vector<std::string> Types(store::Store& store) {
  std::vector<std::string> types;
  for (const store::Event& e : Events(store)) types.push_back(e.type);
  return types;
}

// What a refused call must leave as it was: every row and every event.
std::string Stored(store::Store& store) {
  std::string out = Rows(store);
  for (const store::Event& e : Events(store)) {
    absl::StrAppend(&out, e.seq, " ", e.run_id, " ", e.step_id, " ", e.at, " ", e.type, " ",
                    e.payload_json, " ", e.hash, "\n");
  }
  return out;
}

// The transactions a store committed: the events of each, the run clock's readings and every
// row as the commit left them. The store tells its observers each event after the commit, so
// the head seen from an observer is the last event of the event's own transaction.
struct Commit {
  std::vector<std::string> events;
  std::int64_t readings = 0;
  std::string rows;
};

class CommitLog {
 public:
  CommitLog(store::Store& store, const world::ManualClock& clock) {
    store.AddObserver([this, &store, &clock](const store::Event& e) {
      std::int64_t head = store.Head()->seq;
      if (commits.empty() || head != head_) {
        commits.push_back(Commit{{}, clock.readings(), Rows(store)});
        head_ = head;
      }
      commits.back().events.push_back(e.type);
    });
  }
  std::vector<Commit> commits;

 private:
  std::int64_t head_ = 0;
};

std::string Dump(const Decision& d) {
  return absl::StrCat("decision{", d.kind, ",", d.tool, ",", d.args, ",", d.reason, ",", d.result,
                      ",", d.message, ",", d.origin, "}");
}

std::string Dump(const Run& r) {
  return absl::StrCat("run{", r.id, ",", r.goal, ",", std::string(ToString(r.status)), ",",
                      r.reason, ",", r.reason_detail, ",", r.limits.ToJson(), ",", r.step_count,
                      ",", absl::FormatTime(r.created_at), ",", absl::FormatTime(r.finished_at),
                      ",", r.result, ",", absl::FormatDuration(r.active_time), ",", r.model_calls,
                      ",", r.input_tokens, ",", r.output_tokens, ",", r.cached_input_tokens, ",",
                      r.estimated_cost_micros, "}");
}

std::string Dump(const Step& s) {
  std::string out =
      absl::StrCat("step{", s.id, ",", s.run_id, ",", s.index, ",", std::string(ToString(s.status)),
                   ",", s.spec_hash, ",", absl::FormatTime(s.started_at), ",",
                   absl::FormatTime(s.finished_at), ",", s.decode_error);
  if (s.decision) absl::StrAppend(&out, ",", Dump(*s.decision));
  if (s.policy) {
    const PolicyDecision& p = *s.policy;
    absl::StrAppend(&out, ",policy{", std::string(ToString(p.outcome)), ",", p.outcome_text, ",",
                    p.reason, ",", p.kind, ",", p.capability, ",", p.presentation, "}");
  }
  if (s.observation) {
    const Observation& o = *s.observation;
    absl::StrAppend(&out, ",observation{", std::string(ToString(o.kind)), ",", o.content, ",",
                    o.summary, ",", o.content_hash, "}");
  }
  return out + "}";
}

std::string Dump(const StepInput& in) {
  std::string out = Dump(in.run);
  std::vector<Step> steps = *in.steps.ToVector();
  for (const Step& s : steps) absl::StrAppend(&out, "\n  ", Dump(s));
  for (const ToolSpec& t : in.tools) {
    absl::StrAppend(&out, "\n  tool{", t.name, ",", t.description, ",", t.input_schema, ",",
                    std::string(ToString(t.side_effect)), ",", absl::FormatDuration(t.timeout), ",",
                    t.terminal, "}");
  }
  absl::StrAppend(&out, "\n  model:", in.model != nullptr,
                  " cancellation:", in.cancellation != nullptr);
  return out;
}

// An agent that plays a script and keeps what it was handed at every step.
class RecordingAgent : public Agent {
 public:
  explicit RecordingAgent(std::vector<Decision> script) : script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    inputs.push_back(Dump(input));
    if (next_ >= script_.size()) return absl::OutOfRangeError("the script ran out");
    return script_[next_++];
  }
  std::vector<std::string> inputs;

 private:
  std::vector<Decision> script_;
  std::size_t next_ = 0;
};

// Allowed, invalid, denied, paused for approval (then approved and resumed), allowed, complete.
std::vector<Decision> Story() {
  return {Call("echo", R"({"x":1})"), Call("echo", R"({"x":"no"})"), Call("rm", R"({"x":2})"),
          Call("post", R"({"x":4})"), Call("echo", R"({"x":3})"),    Complete(R"({"ok":true})")};
}

// The same story, driven by the driver (Start, approve, Resume) and by a caller-owned loop
// (Begin, approve, Attach), in two worlds whose clocks move: every reading a millisecond after
// the last, each tool call taking 250 ms, the operator a minute. Both write the same
// transactions with the same events (type, time, payload, hash), leave the same rows after each
// commit and read the run clock the same number of times, at the same points; the caller's
// Input at each step is exactly what the driver handed its agent, and reads no clock.
TEST(GateTest, ACallerOwnedLoopWritesWhatTheDriverWrites) {
  const absl::Duration kTick = absl::Milliseconds(1);
  World by_driver(kTick);
  CommitLog driver_log(*by_driver.store, by_driver.clock);
  for (EchoTool* t : {&by_driver.echo, &by_driver.post}) {
    t->work_clock = &by_driver.clock;
    t->work = absl::Milliseconds(250);
  }
  RecordingAgent agent(Story());
  auto driver = by_driver.NewDriver("same", &agent);
  absl::StatusOr<agentrt::Run> paused = driver->StartWithId("run-1", "the story");
  ASSERT_OK(paused);
  ASSERT_EQ(paused->status, RunStatus::kWaitingForApproval) << paused->reason_detail;
  by_driver.ApproveAfterAMinute();
  absl::StatusOr<agentrt::Run> done = driver->Resume("run-1");
  ASSERT_OK(done);
  ASSERT_EQ(done->status, RunStatus::kCompleted);

  World by_gate(kTick);
  CommitLog gate_log(*by_gate.store, by_gate.clock);
  for (EchoTool* t : {&by_gate.echo, &by_gate.post}) {
    t->work_clock = &by_gate.clock;
    t->work = absl::Milliseconds(250);
  }
  auto gate = by_gate.NewDriver("same");
  std::vector<Decision> story = Story();
  std::size_t next = 0;
  std::vector<Outcome> outcomes;
  std::vector<std::string> inputs;
  auto drive = [&](GateSession& session) {
    while (true) {
      absl::StatusOr<bool> open = session.Step();
      ASSERT_OK(open);
      if (!*open) return;
      std::int64_t readings = by_gate.clock.readings();
      inputs.push_back(Dump(session.Input()));
      EXPECT_EQ(by_gate.clock.readings(), readings);  // Input reads no clock
      ASSERT_LT(next, story.size());
      absl::StatusOr<GateVerdict> verdict = session.Propose(story[next++]);
      ASSERT_OK(verdict);
      outcomes.push_back(verdict->outcome);
      if (verdict->outcome == Outcome::kAllowed) {
        absl::StatusOr<Observation> obs = session.Execute();
        ASSERT_OK(obs);
        EXPECT_EQ(obs->kind, ObservationKind::kToolResult);
      }
      if (verdict->outcome == Outcome::kPending || verdict->outcome == Outcome::kEnded) return;
    }
  };
  absl::StatusOr<std::unique_ptr<GateSession>> begun = gate->Begin("run-1", "the story");
  ASSERT_OK(begun);
  drive(**begun);
  ASSERT_EQ(outcomes.back(), Outcome::kPending);
  EXPECT_OK((*begun)->Close());
  by_gate.ApproveAfterAMinute();
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  ASSERT_EQ(attached->second.outcome, Outcome::kAllowed);
  absl::StatusOr<Observation> granted = attached->first->Execute();
  ASSERT_OK(granted);
  drive(*attached->first);

  EXPECT_THAT(outcomes, ElementsAre(Outcome::kAllowed, Outcome::kDenied, Outcome::kDenied,
                                    Outcome::kPending, Outcome::kAllowed, Outcome::kEnded));
  EXPECT_THAT(inputs, ElementsAreArray(agent.inputs));
  std::vector<store::Event> a = Events(*by_driver.store), b = Events(*by_gate.store);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(absl::StrCat(i, " ", a[i].type));
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].step_id, b[i].step_id);
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].payload_json, b[i].payload_json);
    EXPECT_EQ(a[i].hash, b[i].hash);  // so the whole chain is the same
  }
  // The clocks moved: no two steps started at the same time, so equal times mean something.
  std::set<std::string> step_starts;
  for (const store::Event& e : a) {
    if (e.type == "step.started") step_starts.insert(e.at);
  }
  EXPECT_EQ(step_starts.size(), story.size());
  ASSERT_EQ(driver_log.commits.size(), gate_log.commits.size());
  for (std::size_t i = 0; i < driver_log.commits.size(); ++i) {
    const Commit& d = driver_log.commits[i];
    const Commit& g = gate_log.commits[i];
    SCOPED_TRACE(absl::StrCat("commit ", i, ": ", absl::StrJoin(d.events, ", ")));
    EXPECT_EQ(d.events, g.events);
    EXPECT_EQ(d.readings, g.readings);
    EXPECT_EQ(d.rows, g.rows);
  }
  EXPECT_EQ(by_driver.clock.readings(), by_gate.clock.readings());
  EXPECT_EQ(Rows(*by_driver.store), Rows(*by_gate.store));
  EXPECT_EQ(by_driver.echo.calls, by_gate.echo.calls);
  EXPECT_EQ(by_gate.echo.calls, 2);
  EXPECT_EQ(by_gate.post.calls, 1);
  EXPECT_EQ(by_gate.rm.calls, 0);
}

TEST(GateTest, ASessionKeepsItsLeaseWhileTheCallerTakesItsTime) {
  World w;
  int renewals = 0;
  DriverOptions options = w.Options("gate");
  options.on_lease_renewed = [&] { ++renewals; };
  auto gate = *Driver::Create(*w.store, w.clock, w.entropy, options);
  auto session = *gate->Begin("run-1", "slow caller");
  ASSERT_TRUE(*session->Step());
  for (int i = 1; i <= 6; ++i) {  // the caller thinks for two whole TTLs
    w.lease_clock.Advance(absl::Seconds(10));
    EXPECT_EQ(renewals, i);  // the manual world beats on the thread that moves its clock
  }
  auto rival = w.NewDriver("rival");
  EXPECT_THAT(rival->Attach("run-1").status().message(), HasSubstr("is leased by gate/"));
  EXPECT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, Outcome::kAllowed);
  EXPECT_OK(session->Execute());
}

// Closing a session, or destroying it, stops its heartbeat and releases its lease: a rival
// attaches at once, with the lease clock unmoved, and the closed session refuses every call.
TEST(GateTest, ClosingOrDroppingASessionReleasesItsLeaseForARivalAtOnce) {
  for (bool close : {true, false}) {
    SCOPED_TRACE(close ? "Close" : "destructor");
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "left mid-step");
    ASSERT_TRUE(*session->Step());
    EXPECT_THAT(ReadLease(*w.store, "run-1")->owner, StartsWith("gate/"));
    if (close) {
      ASSERT_OK(session->Close());
      EXPECT_OK(session->Close());  // twice is fine
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
    auto rival = w.NewDriver("rival");
    auto attached = rival->Attach("run-1");
    ASSERT_OK(attached);
    EXPECT_EQ(attached->second.outcome, Outcome::kOpen);
    EXPECT_THAT(ReadLease(*w.store, "run-1")->owner, StartsWith("rival/"));
  }
}

// A decision commits with its verdict (ADR 16): an allowed proposal has written nothing until
// Execute, where step.decided, step.policy and step.tool_started commit together; a session
// closed between the two (or dropped) still keeps the decision, the step left deciding.
TEST(GateTest, AnAllowedDecisionCommitsWithItsToolStartOrWithTheClose) {
  for (bool execute : {true, false}) {
    SCOPED_TRACE(execute ? "Execute" : "Close");
    World w;
    std::vector<std::string> open;  // the types of the events committed since the last look
    w.store->AddObserver([&](const store::Event& e) { open.push_back(e.type); });
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "one call");
    ASSERT_TRUE(*session->Step());
    open.clear();
    absl::StatusOr<GateVerdict> verdict = session->Propose(Call("write", R"({"x":1})"));
    ASSERT_OK(verdict);
    ASSERT_EQ(verdict->outcome, Outcome::kAllowed);
    EXPECT_TRUE(open.empty()) << "an allowed proposal writes nothing: " << open.front();
    EXPECT_THAT(Types(*w.store), Not(::testing::Contains("step.decided")));
    if (execute) {
      ASSERT_OK(session->Execute());
      ASSERT_FALSE(open.empty());
      EXPECT_THAT(std::vector<std::string>(open.begin(), open.begin() + 3),
                  ElementsAre("step.decided", "step.policy", "step.tool_started"));
    } else {
      ASSERT_OK(session->Close());
      EXPECT_THAT(open, ElementsAre("step.decided"));
      absl::StatusOr<std::vector<Step>> steps = ReadSteps(*w.store, "run-1");
      ASSERT_OK(steps);
      ASSERT_EQ(steps->size(), 1u);
      EXPECT_EQ(steps->back().status, StepStatus::kDeciding);
      ASSERT_TRUE(steps->back().decision.has_value());
      EXPECT_EQ(steps->back().decision->tool, "write");
      EXPECT_EQ(w.write.calls, 0);
    }
    EXPECT_FALSE(w.store->VerifyEvents()->broken.has_value());
  }
}

// A driver refuses a second session of a run it is driving (Begin, Attach, Start, Resume), at
// once and changing nothing, rather than wait on its own lease; once the first session ends
// the run is the driver's to drive again, without waiting a TTL.
TEST(GateTest, TheDriverRefusesASecondSessionOfARunItDrives) {
  World w;
  ScriptedAgent agent({Complete()});
  auto driver = w.NewDriver("gate", &agent);
  auto session = *driver->Begin("run-1", "held");
  ASSERT_TRUE(*session->Step());
  std::string before = Stored(*w.store);
  std::int64_t readings = w.clock.readings();
  auto refused = [&](std::string what, absl::Status status) {
    SCOPED_TRACE(what);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(status.message(), HasSubstr("is executing it in another session"));
    EXPECT_THAT(status.message(), HasSubstr("is leased by gate/"));
  };
  refused("Begin", driver->Begin("run-1", "again").status());
  refused("Attach", driver->Attach("run-1").status());
  refused("Start", driver->StartWithId("run-1", "again", {}).status());
  refused("Resume", driver->Resume("run-1").status());
  EXPECT_EQ(Stored(*w.store), before);
  EXPECT_EQ(w.clock.readings(), readings);
  // Another run of the same driver is not held by it.
  auto other = driver->Begin("run-2", "another");
  ASSERT_OK(other);
  // The session ends: the driver may attach to its run again at once.
  ASSERT_OK(session->Close());
  auto attached = driver->Attach("run-1");
  ASSERT_OK(attached);
  EXPECT_EQ(attached->second.outcome, Outcome::kOpen);
  // A session refused is not a claim: after a refusal the run is still free once released.
  ASSERT_OK(attached->first->Close());
  absl::StatusOr<agentrt::Run> resumed = driver->Resume("run-1");
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->status, RunStatus::kCompleted);
}

TEST(GateTest, ANewRunIsLeasedFromItsFirstWrite) {
  World w;
  auto gate = w.NewDriver("first");
  auto session = *gate->Begin("run-1", "fresh");
  auto rival = w.NewDriver("rival");
  EXPECT_THAT(rival->Attach("run-1").status().message(), HasSubstr("is leased by first/"));
}

// Every misuse is refused with FailedPrecondition (InvalidArgument for a Fail without an error)
// saying what was wrong, and changes no row, no event and reads no clock.
TEST(GateTest, MisuseIsRefusedAndChangesNothing) {
  World w;
  auto gate = w.NewDriver("gate");
  auto session = *gate->Begin("run-1", "misuse");
  auto refused = [&](std::string what, const std::function<absl::Status()>& call,
                     absl::StatusCode code, std::string message) {
    SCOPED_TRACE(what);
    std::string before = Stored(*w.store);
    std::int64_t readings = w.clock.readings();
    absl::Status status = call();
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_THAT(status.message(), HasSubstr(message));
    EXPECT_EQ(Stored(*w.store), before);
    EXPECT_EQ(w.clock.readings(), readings);
  };
  auto propose = [&] { return session->Propose(Call("echo", R"({"x":1})")).status(); };
  auto execute = [&] { return session->Execute().status(); };
  auto fail = [&] { return session->Fail(absl::UnavailableError("the model is down")); };
  auto step = [&] { return session->Step().status(); };
  const absl::StatusCode kState = absl::StatusCode::kFailedPrecondition;

  refused("a decision with no step open", propose, kState, "no open step awaiting a decision");
  refused("an execute with no step open", execute, kState, "nothing to execute");
  refused("a failure with no step open", fail, kState, "no open step to fail");
  ASSERT_TRUE(*session->Step());
  refused("a second open step", step, kState, "a step is already open");
  refused("an execute before a decision", execute, kState, "nothing to execute");
  refused(
      "a failure without an error", [&] { return session->Fail(absl::OkStatus()); },
      absl::StatusCode::kInvalidArgument, "Fail needs the error");
  ASSERT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, Outcome::kAllowed);
  refused("a second decision", propose, kState, "no open step awaiting a decision");
  refused("a failure of an allowed call", fail, kState, "no open step to fail");
  refused("a step over an allowed call", step, kState, "a step is already open");
  ASSERT_OK(session->Execute());
  refused("a second execute", execute, kState, "nothing to execute");
  EXPECT_EQ(w.echo.calls, 1);
  ASSERT_OK(session->Close());
  refused("a step after Close", step, kState, "the gate session is closed");
  refused("a decision after Close", propose, kState, "the gate session is closed");
  refused("an execute after Close", execute, kState, "the gate session is closed");
  refused("a failure after Close", fail, kState, "the gate session is closed");
  EXPECT_EQ(w.echo.calls, 1);
  // A driver without an agent cannot Start.
  refused(
      "Start without an agent",
      [&] { return gate->StartWithId("run-2", "no agent", Limits{}).status(); }, kState,
      "Start needs an agent");
}

// A denial is an observation and the session goes on; an abort ends the run, and the session
// then opens no step and refuses every call, writing nothing and keeping nothing scheduled.
TEST(GateTest, ADenialContinuesAndAnAbortEndsTheRunAndEveryLaterCall) {
  World w;
  w.policy = std::make_unique<FuncPolicy>(
      [inner = std::shared_ptr<Policy>(DefaultPolicy())](
          const ToolRequest& request, const RunView& view) -> absl::StatusOr<PolicyDecision> {
        if (request.spec.name != "nuke") return inner->Evaluate(request, view);
        PolicyDecision abort;
        abort.outcome = PolicyOutcome::kAbort;
        abort.reason = "nothing is nuked here";
        return abort;
      });
  auto gate = w.NewDriver("gate");
  auto session = *gate->Begin("run-1", "abort");
  ASSERT_TRUE(*session->Step());
  absl::StatusOr<GateVerdict> denied = session->Propose(Call("rm", R"({"x":1})"));
  ASSERT_OK(denied);
  EXPECT_EQ(denied->outcome, Outcome::kDenied);
  ASSERT_TRUE(denied->observation.has_value());
  EXPECT_EQ(denied->observation->kind, ObservationKind::kPolicyDenied);
  ASSERT_TRUE(*session->Step());  // the session goes on
  absl::StatusOr<GateVerdict> aborted = session->Propose(Call("nuke", R"({"x":2})"));
  ASSERT_OK(aborted);
  EXPECT_EQ(aborted->outcome, Outcome::kEnded);
  EXPECT_EQ(aborted->run.status, RunStatus::kFailed);
  EXPECT_EQ(aborted->run.reason, "policy_abort");
  EXPECT_EQ(aborted->run.reason_detail, "nothing is nuked here");
  EXPECT_EQ(session->run().status, RunStatus::kFailed);  // the run as last read
  EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);          // the session is over

  std::string before = Stored(*w.store);
  absl::StatusOr<bool> step = session->Step();
  ASSERT_OK(step);
  EXPECT_FALSE(*step);  // the run is no longer running: no step opens
  EXPECT_EQ(session->Propose(Call("echo", R"({"x":3})")).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(session->Execute().status().message(), HasSubstr("nothing to execute"));
  absl::Status fail = session->Fail(absl::InternalError("late"));
  EXPECT_EQ(fail.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fail.message(), HasSubstr("no open step to fail"));
  EXPECT_EQ(Stored(*w.store), before);
  EXPECT_EQ(w.nuke.calls + w.rm.calls + w.echo.calls, 0);
  EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);
}

// A session whose run another owner took over (its process froze past its lease: the rival's
// lease clock is ahead) refuses every later call, FailedPrecondition saying it lost its lease,
// and writes nothing, even once the lease row would let it renew; so does one whose lease
// expired (its renewals failed). Its heartbeat stops.
TEST(GateTest, ASessionThatLostItsLeaseRefusesEveryLaterCall) {
  struct Row {
    std::string name;
    bool allowed_first;  // the loss comes between an allowed decision and its Execute
    bool taken_over;     // a rival took the run over; else only the expiry passed
    std::string message;
  } rows[] = {
      {"taken over while deciding", false, true, "lost its lease (now held by rival/"},
      {"taken over after allowed", true, true, "lost its lease (now held by rival/"},
      {"expired", false, false, "lost its lease (it expired at "},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "frozen");
    ASSERT_TRUE(*session->Step());
    if (row.allowed_first) {
      ASSERT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, Outcome::kAllowed);
    }
    world::ManualClock rival_clock{Start() + absl::Seconds(31)};
    std::unique_ptr<Driver> rival = w.NewDriver("rival", nullptr, &rival_clock);
    std::unique_ptr<GateSession> rival_session;
    if (row.taken_over) {
      auto attached = rival->Attach("run-1");
      ASSERT_OK(attached);
      ASSERT_EQ(attached->second.outcome, Outcome::kOpen);
      rival_session = std::move(attached->first);
    } else {
      std::string past = world::FormatTimestamp(Start() - absl::Seconds(1));
      ASSERT_OK(test_support::Tamper(*w.store, "the lease lapsed",
                                     "UPDATE runs SET lease_expires_at = ?1", {past}));
    }
    std::string before = Stored(*w.store);
    std::int64_t readings = w.clock.readings();
    std::vector<absl::Status> calls = {
        row.allowed_first ? session->Execute().status()
                          : session->Propose(Call("echo", R"({"x":1})")).status(),
        session->Fail(absl::UnavailableError("the model is down")),
        session->Execute().status(),
        session->Propose(Call("echo", R"({"x":1})")).status(),
        session->Step().status(),
    };
    if (!row.taken_over) {  // the row would let it renew now: the session is over all the same
      std::string future = world::FormatTimestamp(Start() + absl::Minutes(5));
      ASSERT_OK(test_support::Tamper(*w.store, "the lease renewed by the row alone",
                                     "UPDATE runs SET lease_expires_at = ?1", {future}));
      before = Stored(*w.store);
      calls.push_back(session->Step().status());
    }
    for (const absl::Status& s : calls) {
      EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
      EXPECT_THAT(s.message(), HasSubstr(row.message));
    }
    EXPECT_EQ(Stored(*w.store), before);
    EXPECT_EQ(w.clock.readings(), readings);
    EXPECT_EQ(w.echo.calls, 0);
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);  // its heartbeat stopped
    EXPECT_OK(session->Close());
    session.reset();
    if (rival_session != nullptr) {
      EXPECT_EQ(Stored(*w.store), before);  // closing it releases nobody else's lease
      EXPECT_THAT(ReadLease(*w.store, "run-1")->owner, StartsWith("rival/"));
      EXPECT_TRUE(*rival_session->Step());  // the new owner goes on
    }
  }
}

// A session abandoned while its tool runs (its process froze; a rival took the run over, from a
// lease clock past its lease) records nothing when the call returns: for a read_only tool the
// rival goes on with the run, for one that is not read_only the rival paused it for an operator
// (interrupted_side_effect). The abandoned session's Execute is refused and so is what follows.
TEST(GateTest, AnAbandonedSessionCannotRecordWhatItsToolDid) {
  struct Row {
    std::string tool;
    Outcome rival_sees;
    std::string execute_message;
  } rows[] = {
      {"echo", Outcome::kOpen, "is leased by rival/"},
      {"write", Outcome::kPending, "is WAITING_FOR_APPROVAL, not RUNNING"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.tool);
    World w;
    auto gate = w.NewDriver("gate");
    world::ManualClock rival_clock{Start() + absl::Seconds(31)};
    std::unique_ptr<Driver> rival = w.NewDriver("rival", nullptr, &rival_clock);
    std::unique_ptr<GateSession> rival_session;
    std::string after_takeover;
    EchoTool& tool = row.tool == "echo" ? w.echo : w.write;
    tool.during = [&] {
      auto attached = rival->Attach("run-1");
      ASSERT_OK(attached);
      EXPECT_EQ(attached->second.outcome, row.rival_sees);
      rival_session = std::move(attached->first);
      after_takeover = Stored(*w.store);
    };
    auto session = *gate->Begin("run-1", "abandoned mid-call");
    ASSERT_TRUE(*session->Step());
    ASSERT_EQ(session->Propose(Call(row.tool, R"({"x":1})"))->outcome, Outcome::kAllowed);
    absl::Status executed = session->Execute().status();
    EXPECT_EQ(executed.code(), absl::StatusCode::kFailedPrecondition) << executed;
    EXPECT_THAT(executed.message(), HasSubstr(row.execute_message));
    EXPECT_EQ(tool.calls, 1);
    EXPECT_EQ(Stored(*w.store), after_takeover);  // the outcome was not recorded
    absl::StatusOr<bool> step = session->Step();
    if (row.rival_sees == Outcome::kOpen) {
      EXPECT_EQ(step.status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_THAT(step.status().message(), HasSubstr("lost its lease"));
    } else {
      ASSERT_OK(step);
      EXPECT_FALSE(*step);  // the run waits for an operator
      EXPECT_EQ(PendingApproval(*w.store, "run-1")->kind, kInterruptedSideEffectKind);
    }
    EXPECT_EQ(session->Fail(absl::InternalError("late")).code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(Stored(*w.store), after_takeover);
    if (row.rival_sees == Outcome::kOpen) {
      EXPECT_TRUE(*rival_session->Step());  // the new owner goes on
    }
  }
}

// Decision.Origin is recorded with the decision and changes nothing else: the same approval
// hash, and every other event the same.
TEST(GateTest, TheDecisionOriginIsRecordedAndTheApprovalHashIsTheSameWithout) {
  std::vector<std::vector<store::Event>> events;
  std::vector<std::string> hashes;
  for (std::string origin : {"", "operator"}) {
    SCOPED_TRACE(origin);
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "origin");
    ASSERT_TRUE(*session->Step());
    Decision post = Call("post", R"({"x":1})");
    post.origin = origin;
    ASSERT_EQ(session->Propose(post)->outcome, Outcome::kPending);
    hashes.push_back(PendingApproval(*w.store, "run-1")->hash);
    EXPECT_EQ(ReadSteps(*w.store, "run-1")->at(0).decision->origin, origin);
    events.push_back(Events(*w.store));
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  ASSERT_EQ(events[0].size(), events[1].size());
  for (std::size_t i = 0; i < events[0].size(); ++i) {
    const store::Event& without = events[0][i];
    const store::Event& with = events[1][i];
    SCOPED_TRACE(without.type);
    EXPECT_EQ(without.type, with.type);
    EXPECT_EQ(without.at, with.at);
    if (without.type == "step.decided") {
      EXPECT_THAT(without.payload_json, Not(HasSubstr("origin")));
      EXPECT_THAT(with.payload_json, HasSubstr(R"("origin":"operator")"));
    } else {
      EXPECT_EQ(without.payload_json, with.payload_json);  // approval.requested and its hash too
    }
  }
}

TEST(GateTest, AnUnknownDecisionOriginIsAnInvalidDecision) {
  World w;
  auto gate = w.NewDriver("gate");
  auto session = *gate->Begin("run-1", "origins");
  ASSERT_TRUE(*session->Step());
  Decision robot = Call("echo", R"({"x":1})");
  robot.origin = "robot";
  absl::StatusOr<GateVerdict> verdict = session->Propose(robot);
  ASSERT_OK(verdict);
  EXPECT_EQ(verdict->outcome, Outcome::kDenied);
  ASSERT_TRUE(verdict->observation.has_value());
  EXPECT_EQ(verdict->observation->kind, ObservationKind::kInvalidDecision);
  EXPECT_THAT(verdict->observation->content, HasSubstr(R"(unknown decision origin \"robot\")"));
  EXPECT_EQ(w.echo.calls, 0);
  EXPECT_EQ(ReadSteps(*w.store, "run-1")->at(0).status, StepStatus::kFailed);
  int x = 2;
  for (std::string origin : {"model", "plan", "operator"}) {
    SCOPED_TRACE(origin);
    ASSERT_TRUE(*session->Step());
    Decision known = Call("echo", absl::StrCat(R"({"x":)", x++, "}"));
    known.origin = origin;
    EXPECT_EQ(session->Propose(known)->outcome, Outcome::kAllowed);
    EXPECT_OK(session->Execute());
  }
  EXPECT_EQ(w.echo.calls, 3);
}

// Attach asks the policy again: when it now wants a different approval, the run pauses again
// (a new pending approval, nothing runs, no run.resumed), and rejecting that one cancels the run,
// which no Attach resumes.
TEST(GateTest, AttachAsksThePolicyAgainSoADifferentApprovalPausesAndARejectCancels) {
  World w;
  int limit = 100;
  w.policy = std::make_unique<FuncPolicy>(
      [&](const ToolRequest&, const RunView&) -> absl::StatusOr<PolicyDecision> {
        std::string capability = absl::StrCat(R"({"limit":)", limit, "}");
        return NeedApproval("payment", "payments need a person", capability, capability);
      });
  auto gate = w.NewDriver("gate");
  {
    auto session = *gate->Begin("run-1", "pay");
    ASSERT_TRUE(*session->Step());
    ASSERT_EQ(session->Propose(Call("post", R"({"x":1})"))->outcome, Outcome::kPending);
  }
  w.ApproveAfterAMinute();
  limit = 200;  // the operator's policy changed its mind while the run waited
  std::size_t before = Events(*w.store).size();
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  EXPECT_EQ(attached->second.outcome, Outcome::kPending);
  EXPECT_EQ(attached->second.run.status, RunStatus::kWaitingForApproval);
  std::vector<std::string> types = Types(*w.store);
  EXPECT_THAT(
      std::vector<std::string>(types.begin() + static_cast<std::ptrdiff_t>(before), types.end()),
      ElementsAre("step.policy", "approval.requested"));
  EXPECT_THAT(attached->first->Execute().status().message(), HasSubstr("nothing to execute"));
  std::vector<Approval> approvals = *ListApprovals(*w.store, "run-1");
  ASSERT_EQ(approvals.size(), 2u);
  EXPECT_EQ(approvals[0].status, ApprovalStatus::kApproved);
  EXPECT_EQ(approvals[1].status, ApprovalStatus::kPending);
  EXPECT_EQ(approvals[1].capability, R"({"limit":200})");
  EXPECT_NE(approvals[0].hash, approvals[1].hash);
  EXPECT_EQ(w.post.calls, 0);
  EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);

  ASSERT_OK(Reject(*w.store, w.clock, "run-1", approvals[1].id, Decider{"ops", "no"}));
  EXPECT_EQ(ReadRun(*w.store, "run-1")->status, RunStatus::kCancelled);
  EXPECT_EQ(ReadRun(*w.store, "run-1")->reason, "approval_rejected");
  absl::Status again = gate->Attach("run-1").status();
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("is CANCELLED and cannot be resumed"));
  EXPECT_EQ(w.post.calls, 0);
}

// The step, consecutive-failure and loop limits are checked by Step before it opens a step, as
// the driver's loop checks them: Step answers false (no error) and the run has failed.
TEST(GateTest, StepEndsTheRunWhenALimitIsReached) {
  struct Row {
    std::string name;
    Limits limits;
    std::vector<Decision> script;
    std::string reason;
    std::string detail;
    std::vector<std::string> last_events;
  };
  Limits steps, failures, loop;
  steps.max_steps = 2;
  failures.max_consecutive_tool_failures = 2;
  loop.loop_threshold = 2;
  std::vector<Row> rows = {
      {"steps",
       steps,
       {Call("echo", R"({"x":1})"), Call("echo", R"({"x":2})")},
       "limit_steps",
       "step limit 2 reached",
       {"limit.exceeded", "run.finished"}},
      {"failures",
       failures,
       {Call("echo", R"({"x":"one"})"), Call("rm", R"({"x":2})")},
       "repeated_tool_failures",
       "2 consecutive failed steps",
       {"limit.exceeded", "run.finished"}},
      {"loop",
       loop,
       {Call("echo", R"({"x":1})"), Call("echo", R"({"x":1})")},
       "loop_detected",
       "echo produced the same observation 2 times in a row",
       {"loop.detected", "run.finished"}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "limits", row.limits);
    for (const Decision& d : row.script) {
      ASSERT_TRUE(*session->Step());
      absl::StatusOr<GateVerdict> verdict = session->Propose(d);
      ASSERT_OK(verdict);
      if (verdict->outcome == Outcome::kAllowed) {
        ASSERT_OK(session->Execute());
      }
    }
    absl::StatusOr<bool> open = session->Step();
    ASSERT_OK(open);
    EXPECT_FALSE(*open);
    absl::StatusOr<agentrt::Run> run = ReadRun(*w.store, "run-1");
    EXPECT_EQ(run->status, RunStatus::kFailed);
    EXPECT_EQ(run->reason, row.reason);
    EXPECT_EQ(run->reason_detail, row.detail);
    EXPECT_EQ(run->step_count, static_cast<int>(row.script.size()));  // no step was opened
    std::vector<std::string> types = Types(*w.store);
    ASSERT_GE(types.size(), 2u);
    EXPECT_THAT(std::vector<std::string>(types.end() - 2, types.end()),
                ElementsAreArray(row.last_events));
    if (row.reason == "loop_detected") {
      EXPECT_THAT(types, Not(::testing::Contains("limit.exceeded")));
    }
    EXPECT_EQ(session->run().status, RunStatus::kFailed);
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);
  }
}

// Input with no step open is the run as last read or written with every step it has (and no
// step's model); with a step open it is what an agent deciding that step gets (for the approved
// step Attach leaves open: the waiting run and the steps before it). It reads no clock.
TEST(GateTest, InputAtEveryPointOfASession) {
  World w;
  auto gate = w.NewDriver("gate");
  auto session = *gate->Begin("run-1", "inputs");
  // The input between steps, checked against the store.
  auto between = [&](GateSession& s, std::size_t steps, RunStatus status) {
    std::int64_t readings = w.clock.readings();
    StepInput input = s.Input();
    EXPECT_EQ(w.clock.readings(), readings);
    EXPECT_EQ(input.run.status, status);
    EXPECT_EQ(Dump(input.run), Dump(*ReadRun(*w.store, "run-1")));
    ASSERT_EQ(input.steps.size(), steps);
    std::vector<Step> stored = *ReadSteps(*w.store, "run-1");
    for (std::size_t i = 0; i < steps; ++i) {
      EXPECT_EQ(input.steps.Read(i)->id, stored[i].id);
      EXPECT_EQ(input.steps.Read(i)->status, stored[i].status);
      EXPECT_EQ(input.steps.Read(i)->observation.has_value(), stored[i].observation.has_value());
    }
    EXPECT_EQ(input.tools.size(), 5u);
    EXPECT_EQ(input.model, nullptr);
  };
  between(*session, 0, RunStatus::kRunning);
  ASSERT_TRUE(*session->Step());
  StepInput first = session->Input();
  EXPECT_EQ(first.run.step_count, 1);
  EXPECT_TRUE(first.steps.empty());
  ASSERT_EQ(session->Propose(Call("echo", R"({"x":1})"))->outcome, Outcome::kAllowed);
  EXPECT_EQ(Dump(session->Input()), Dump(first));  // still the step's input
  ASSERT_OK(session->Execute());
  between(*session, 1, RunStatus::kRunning);
  ASSERT_TRUE(*session->Step());
  EXPECT_EQ(session->Input().steps.size(), 1u);
  ASSERT_EQ(session->Propose(Call("rm", R"({"x":1})"))->outcome, Outcome::kDenied);
  between(*session, 2, RunStatus::kRunning);
  ASSERT_TRUE(*session->Step());
  ASSERT_EQ(session->Propose(Call("post", R"({"x":1})"))->outcome, Outcome::kPending);
  between(*session, 3, RunStatus::kWaitingForApproval);
  EXPECT_EQ(session->Input().steps.back().status, StepStatus::kAwaitingApproval);
  session.reset();

  w.ApproveAfterAMinute();
  auto attached = gate->Attach("run-1");
  ASSERT_OK(attached);
  ASSERT_EQ(attached->second.outcome, Outcome::kAllowed);
  GateSession& resumed = *attached->first;
  StepInput approved = resumed.Input();  // the approved step is open
  EXPECT_EQ(approved.run.status, RunStatus::kWaitingForApproval);
  EXPECT_EQ(approved.steps.size(), 2u);
  EXPECT_EQ(approved.model, nullptr);
  ASSERT_OK(resumed.Execute());
  between(resumed, 3, RunStatus::kRunning);
  EXPECT_EQ(resumed.Input().steps.back().status, StepStatus::kDone);
  ASSERT_TRUE(*resumed.Step());
  EXPECT_EQ(resumed.Input().steps.size(), 3u);
  ASSERT_EQ(resumed.Propose(Complete())->outcome, Outcome::kEnded);
  between(resumed, 4, RunStatus::kCompleted);
}

// A scheduler that forwards to another and knows which of its tasks are still to run: one
// cancelled, or one that returned false, is gone.
class TrackingScheduler final : public world::SchedulerWrapper {
 public:
  explicit TrackingScheduler(world::Scheduler& inner) : SchedulerWrapper(inner) {}
  TaskId RunAt(absl::Time at, absl::AnyInvocable<void()> task) override {
    auto id = std::make_shared<TaskId>(0);
    absl::MutexLock lock(&mu_);  // the task forgets itself only once it is known
    *id = SchedulerWrapper::RunAt(at, [this, id, task = std::move(task)]() mutable {
      task();
      Forget(id);
    });
    live_.insert(*id);
    return *id;
  }
  TaskId RunEvery(absl::Time first, absl::Duration period,
                  absl::AnyInvocable<bool()> task) override {
    auto id = std::make_shared<TaskId>(0);
    absl::MutexLock lock(&mu_);
    *id = SchedulerWrapper::RunEvery(first, period, [this, id, task = std::move(task)]() mutable {
      bool again = task();
      if (!again) Forget(id);
      return again;
    });
    live_.insert(*id);
    return *id;
  }
  bool Cancel(TaskId id) override {
    bool cancelled = SchedulerWrapper::Cancel(id);  // not under mu_: it waits for a running task
    absl::MutexLock lock(&mu_);
    live_.erase(id);
    return cancelled;
  }
  std::size_t live() {
    absl::MutexLock lock(&mu_);
    return live_.size();
  }

 private:
  void Forget(const std::shared_ptr<TaskId>& id) {
    absl::MutexLock lock(&mu_);
    live_.erase(*id);
  }
  absl::Mutex mu_;
  std::set<TaskId> live_ ABSL_GUARDED_BY(mu_);
};

// A session keeps a heartbeat only while it holds a RUNNING run: once the run paused or ended
// (through the session or as Attach found it), the session lost its lease, or it was closed or
// dropped, nothing of it is left on the scheduler, the manual one or the real one.
TEST(GateTest, ASessionThatIsOverLeavesNothingScheduled) {
  struct Row {
    std::string name;
    std::function<void(GateSession&)> end;
  } rows[] = {
      {"completed",
       [](GateSession& s) { EXPECT_EQ(s.Propose(Complete())->outcome, Outcome::kEnded); }},
      {"paused",
       [](GateSession& s) {
         EXPECT_EQ(s.Propose(Call("post", R"({"x":1})"))->outcome, Outcome::kPending);
       }},
      {"failed", [](GateSession& s) { EXPECT_OK(s.Fail(absl::InternalError("gave up"))); }},
      {"closed", [](GateSession& s) { EXPECT_OK(s.Close()); }},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "over");
    EXPECT_EQ(w.lease_clock.pending_tasks(), 1u);  // its heartbeat, from the first write
    ASSERT_TRUE(*session->Step());
    row.end(*session);
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);  // the session is still there
    session.reset();
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);
  }
  {
    SCOPED_TRACE("dropped");
    World w;
    auto gate = w.NewDriver("gate");
    auto session = *gate->Begin("run-1", "over");
    ASSERT_TRUE(*session->Step());
    session.reset();
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);
  }
  {
    SCOPED_TRACE("attached to a run that pauses again");
    World w;
    auto gate = w.NewDriver("gate");
    {
      auto session = *gate->Begin("run-1", "over");
      ASSERT_TRUE(*session->Step());
      ASSERT_EQ(session->Propose(Call("post", R"({"x":1})"))->outcome, Outcome::kPending);
    }
    auto attached = gate->Attach("run-1");  // not approved yet
    EXPECT_THAT(attached.status().message(), HasSubstr("is pending, not approved"));
    w.ApproveAfterAMinute();
    attached = gate->Attach("run-1");
    ASSERT_OK(attached);
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);  // a grant holds no lease until Execute
    ASSERT_OK(attached->first->Execute());
    EXPECT_EQ(w.lease_clock.pending_tasks(), 1u);  // the run is the session's again
    ASSERT_TRUE(*attached->first->Step());
    ASSERT_EQ(attached->first->Propose(Call("post", R"({"x":2})"))->outcome, Outcome::kPending);
    EXPECT_EQ(w.lease_clock.pending_tasks(), 0u);
  }
  // The real scheduler, through a tracker: the same, with no sleep (Cancel waits for a beat).
  world::RealScheduler real;
  TrackingScheduler tracking(real);
  for (bool close : {false, true}) {
    SCOPED_TRACE(close ? "real scheduler, closed" : "real scheduler, completed and dropped");
    World w;
    auto gate = w.NewDriver("gate", nullptr, &tracking);
    auto session = *gate->Begin("run-1", "real");
    EXPECT_EQ(tracking.live(), 1u);
    ASSERT_TRUE(*session->Step());
    if (close) {
      EXPECT_OK(session->Close());
    } else {
      EXPECT_EQ(session->Propose(Complete())->outcome, Outcome::kEnded);
    }
    EXPECT_EQ(tracking.live(), 0u);
    session.reset();
    EXPECT_EQ(tracking.live(), 0u);
  }
}

}  // namespace
}  // namespace agentrt
