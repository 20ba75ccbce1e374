// testkit/crash_harness.h
//
// The crash-and-resume harness: a product's scenario (its tools, policy and agent) is run once
// without a crash, then once for every crash point that run reached, each time in a forked
// child that stops dead (_exit) at that point, on a real database file. A fresh driver in this
// process then resumes the run once the child's lease has expired (on a lease clock the kit
// controls; nothing waits on the real clock), answers every pause as the scenario says, and
// drives it to its end. For a crash of the recovery itself, the first step.interrupted and
// run.resumed of each recovery are crash points too (a crash during the crash's recovery).
//
// After every run the harness checks what the runtime promises (CheckInvariants):
//  - nothing re-executes on its own: a tool call whose process died is run again only after an
//    operator approved it (interrupted_side_effect), once per such grant;
//  - an approved request executes at most once;
//  - every execution had its start recorded first, and every recorded tool start is finished
//    or interrupted;
//  - no step or lease is left in flight, and the run ended;
//  - the event chain is intact;
// and, for the harness itself, that every planned crash point was reached (a scenario that
// does not repeat itself byte for byte — an agent reading the clock — fails here).
//
// Crash points: after step.started, step.decided, step.tool_started, the tool's effect (before
// its outcome is recorded), step.tool_finished, run.resumed and step.interrupted commit; at
// every pause (approval.requested committed); AfterAllowed (the policy allowed a call, nothing
// is written yet: the Driver between its policy and the tool start, or a gate loop between
// Propose and Execute); and, for a gate loop, AfterAttachAllowed (Attach handed back an
// approved call, not yet executed). A decision commits with its verdict (ADR 16): after
// step.decided is the moment the tool's start, the step's or the run's end, or the pause
// commits with it.
//
// Tool effects are counted by the harness (each tool is wrapped; every call that returns, or
// throws, is logged to a file before anything else happens), so a count survives the child.
// Tools, policy and agents run in the children and in this process; in-memory state they
// keep in a child is lost with it, as in a real crash.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/agent.h"
#include "runtime/driver.h"
#include "runtime/policy.h"
#include "runtime/store/store.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "testkit/report.h"

namespace agentrt::testkit {

enum class CrashPoint {
  kAfterStepStarted,
  kAfterStepDecided,
  kAfterToolStarted,
  kAfterEffect,
  kAfterToolFinished,
  kAfterRunResumed,
  kAfterStepInterrupted,
  kAtPause,
  kAfterAllowed,
  kAfterAttachAllowed,
};
// "after step.started", ..., "after the tool's effect", "at a pause", "after allowed", ...
std::string_view ToString(CrashPoint point);

// A loop the product owns, written against this interface so the harness can stop it between
// the calls of a GateSession (the methods forward to the session; see driver.h). Step opens
// the next step (false: the run is no longer running), Input is what an agent would see,
// Propose records and judges a decision, Execute runs an allowed call, Fail ends the run.
class GateLoop {
 public:
  virtual ~GateLoop() = default;
  virtual absl::StatusOr<bool> Step() = 0;
  virtual StepInput Input() const = 0;
  virtual absl::StatusOr<GateVerdict> Propose(const Decision& decision) = 0;
  virtual absl::StatusOr<Observation> Execute() = 0;
  virtual absl::Status Fail(const absl::Status& why) = 0;
};

struct Scenario {
  std::string goal = "crash and resume";
  std::vector<Tool*> tools;  // not owned
  Policy* policy = nullptr;  // required; not owned
  // The agent: `script[i]` is the decision for a step with i steps before it (a resumed run
  // goes on from the steps it has, as an agent reading its input does), or, when `agent` is
  // set, a fresh agent from it for every driver.
  std::vector<Decision> script;
  std::function<std::unique_ptr<Agent>()> agent;
  // Instead of an agent, a loop the product owns over a gate (Driver::Begin / Attach): it is
  // called with the session open (a new run, or an attached one with no step open) and
  // returns when Step says the run is no longer running.
  std::function<absl::Status(GateLoop&)> loop;
  Limits limits;
  // How the operator answers a pause; every pause is approved when unset.
  std::function<bool(const Approval&)> approve;
  Reconcile reconcile;  // optional, as DriverOptions::reconcile
  std::uint64_t seed = 1;
};

struct RunOptions {
  int max_runs = 400;              // crash runs at most (the uncrashed one not counted)
  bool crash_the_recovery = true;  // also crash each recovery at its first step.interrupted
                                   // and run.resumed
  absl::Duration lease_ttl = absl::Seconds(30);
  // Only crash at these points (all when empty).
  std::vector<CrashPoint> points;
};

// Where one process of a run stopped: the `occurrence`-th time (from 1) it reached `point`.
struct CrashAt {
  CrashPoint point = CrashPoint::kAfterStepStarted;
  int occurrence = 1;
};

struct CrashedRun {
  std::vector<CrashAt> plan;  // one crash per process, in order; empty: the uncrashed run
  std::string label;          // "after step.decided #2, then after step.interrupted #1"
  int resumes = 0;            // drivers after the first, approval resumes included
  RunStatus status = RunStatus::kRunning;
  std::string reason;
  int executions = 0;                  // tool calls that ran, as the harness logged them
  std::vector<std::string> approvals;  // "<kind> <status>" of each approval, in order
  std::vector<std::string> points;     // every crash point each process reached, in order
};

struct RunResult {
  // One row per broken invariant of any run: the run's plan, the invariant, what broke it.
  Report report;
  std::vector<CrashedRun> runs;  // runs[0] is the uncrashed run
};

// CrashAndResume drives `scenario` as described above. Errors (not
// failures): a scenario with no policy or no agent, a tool the driver refuses, a folder or process
// that cannot be made.
absl::StatusOr<RunResult> CrashAndResume(const Scenario& scenario, const RunOptions& options = {});

// CheckInvariants reads run `run_id` as stored and the tool executions the caller saw (one
// step id per execution) and reports every broken invariant at once, one row each (invariant,
// detail). Errors: the run cannot be read.
absl::StatusOr<Report> CheckInvariants(store::Store& store, std::string_view run_id,
                                       const std::vector<std::string>& executions);

}  // namespace agentrt::testkit
