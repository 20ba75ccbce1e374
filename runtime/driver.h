// runtime/driver.h
//
// The loop in which the agent asks and the runtime decides (docs/architecture.md, "The engine").
// Each step: the decision is recorded verbatim, then validated against the tool's schema (an
// invalid request becomes an observation the agent sees), then judged by the policy (allow, deny as
// an observation, abort ending the run, require_approval pausing it in WAITING_FOR_APPROVAL
// with a pending approval bound by hash to the request), then executed under the tool's
// timeout, and its outcome observed. Limits are checked before every step in a fixed order:
// steps, consecutive failures, active time, elapsed time, loop detection.
//
// Every state change and its events are one store transaction; the store's observers see the
// events after the commit. A step is three: its start; its decision with the policy's verdict
// and the tool's start (or the step's or the run's end, or the pause: ADR 16); its outcome.
// Time and ids come only from the injected Clock and Entropy.
//
// A Driver runs one step at a time on the calling thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/agent.h"
#include "runtime/model.h"
#include "runtime/policy.h"
#include "runtime/prices.h"
#include "runtime/store/store.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/scheduler.h"

namespace agentrt {

// The model agents may call through StepInput::model, and how each call is accounted
// (docs/architecture.md, "The model and its accounting"; the accounting itself is the engine's
// AccountingModelCaller).
struct ModelConfig {
  Model* model = nullptr;                             // not owned; none: agents get no model caller
  PriceTable prices;                                  // a model absent from it costs 0
  absl::Duration call_timeout = absl::Minutes(2);     // per attempt; <= 0 means the default
  int max_retries = 0;                                // attempts = max_retries + 1; negative = 0
  absl::Duration backoff = absl::Seconds(1);          // wait before retry n: backoff x 2^(n-1)
  absl::Duration max_retry_after = absl::Minutes(1);  // a longer Retry-After fails at once
};

// What a consumer's reconciliation decided about a run found interrupted (docs/architecture.md,
// "Leases and interruption"): the consumer looks at the world (did the payment go through?) and
// says how to go on.
struct Reconciliation {
  enum class Outcome { kContinue, kCompleted, kWaiting, kConflict };
  Outcome outcome = Outcome::kContinue;
  std::string result;  // kCompleted: the run's result (JSON)
  std::string detail;
  // kWaiting: the approval to pause the interrupted call for (a require_approval decision).
  std::optional<PolicyDecision> pause;
};

// Reconcile is called with the run as found and its steps after the ones in flight were
// marked interrupted. An error fails the run (internal_error).
using Reconcile = std::function<absl::StatusOr<Reconciliation>(const RunView& view)>;

class SpecCache;  // runtime/tool_registry.h

struct DriverOptions {
  Agent* agent = nullptr;    // required; not owned
  Policy* policy = nullptr;  // required; not owned
  std::vector<Tool*> tools;  // not owned
  // The run lease (one live owner per RUNNING run): the owner name is this prefix and a fresh
  // id, so two drivers never share one. While the driver's loop runs, a heartbeat renews the
  // lease every lease_ttl/3 (also through a tool call longer than the TTL); each step and tool
  // start renews it too. Another driver may take it over once it expired.
  std::string lease_owner;
  absl::Duration lease_ttl = absl::Seconds(30);
  // Required; not owned: the scheduler the lease heartbeat runs on, whose clock() is the one
  // leases are judged by. Leases are between processes, so in production this is wall time
  // (world::RealScheduler), never the run's clock (a replayed or simulated run reads its clock
  // exactly as the recording did); drivers sharing a database must agree on it. Tests and the
  // simulator pass a world::ManualClock, so the heartbeat beats when they move it. The driver
  // never makes one up.
  world::Scheduler* scheduler = nullptr;
  // Called after each heartbeat renewal of the lease (monitoring, tests).
  std::function<void()> on_lease_renewed;
  // Optional: the model agents may call, through StepInput::model (model_caller.h). Without
  // one, agents get no model caller.
  ModelConfig model;
  // Optional, not owned (it must outlive the driver): where the tools' specs are recorded, so
  // drivers and MCP loads of one process sharing it compile each spec's schema once
  // (tool_registry.h). Without one, the driver records its tools' specs itself.
  SpecCache* specs = nullptr;
  // Optional: how to go on with a run found interrupted. Without it, a step that was executing
  // a tool that is not read_only pauses for an operator (interrupted_side_effect).
  Reconcile reconcile;
};

class GateSession;
class ToolRegistry;
namespace internal {
class ExecutingRuns;
class LeaseHeartbeat;
}  // namespace internal

// What a caller-owned loop learns from proposing a decision (GateSession::Propose).
struct GateVerdict {
  enum class Outcome {
    kAllowed,  // call Execute to run it
    kDenied,   // the step ended with `observation` (invalid or denied); Step again
    kPending,  // the run paused for approval
    kEnded,    // the run ended
    kOpen,     // (Attach) the run goes on with no step open: call Step
  };
  Outcome outcome = Outcome::kEnded;
  std::optional<Observation> observation;
  Run run;  // kPending and kEnded: the run as stored
};

class Driver {
 public:
  ~Driver();
  // Create checks the options and registers the tools (see tool_registry.h), and reads the
  // policy's identity once (every evaluation records it). Errors: InvalidArgument naming what
  // is missing, which tool is refused and why, or the malformed policy identity.
  //
  // One driver drives a run in one session at a time: a Start, Resume, Begin or Attach of a
  // run this driver is already driving fails at once (FailedPrecondition, "... is executing it
  // in another session") and changes nothing; the run is free again when that session is over.
  static absl::StatusOr<std::unique_ptr<Driver>> Create(store::Store& store,
                                                        const world::Clock& clock,
                                                        world::Entropy& entropy,
                                                        DriverOptions options);

  // Start creates a run and drives it until it ends or pauses; returns the run as stored. Start,
  // Resume and Attach's session release the run's lease however they end (an error or an
  // exception included), so another owner may take a run left RUNNING over at once.
  // `cancellation` (optional, not owned, outliving the call): see cancellation.h.
  absl::StatusOr<Run> Start(std::string_view goal, const Limits& limits = {},
                            const Cancellation* cancellation = nullptr);
  absl::StatusOr<Run> StartWithId(std::string_view run_id, std::string_view goal,
                                  const Limits& limits = {},
                                  const Cancellation* cancellation = nullptr);
  // Begin creates a run for a loop the caller owns (the Gate, docs/architecture.md): the
  // same rows, events, transactions and clock readings as Start with an agent. Needs no agent.
  // `cancellation` holds for the whole session. A session uses its driver (and the store,
  // clock, entropy and scheduler the driver was given) until it is destroyed: the driver must
  // outlive every session it made.
  absl::StatusOr<std::unique_ptr<GateSession>> Begin(std::string_view run_id, std::string_view goal,
                                                     const Limits& limits = {},
                                                     const Cancellation* cancellation = nullptr);

  // Attach is Resume for a loop the caller owns: everything Resume does before its loop. With
  // kAllowed the approved call waits for the session's Execute (the run stays waiting until
  // then); kOpen means go on with Step; kPending and kEnded come with the run as stored.
  absl::StatusOr<std::pair<std::unique_ptr<GateSession>, GateVerdict>> Attach(
      std::string_view run_id, const Cancellation* cancellation = nullptr);

  // Resume continues a run.
  //  - Paused for approval, once its latest approval is granted: exactly the recorded request
  //    runs (under the tool's current spec and schema, with the policy asked again), then the
  //    loop goes on. An expired approval or grant cancels the run, which is returned.
  //  - Found RUNNING after its owner died (its lease expired): the lease is taken over
  //    (lease.taken_over), every step in flight is marked interrupted, and a step that was
  //    executing a tool that is not read_only pauses for an operator (interrupted_side_effect):
  //    the runtime never runs it again on its own. Otherwise the loop goes on.
  // Errors: FailedPrecondition (not resumable, not approved, tool gone, leased by a live
  // owner), DataLoss (the approval row was changed).
  absl::StatusOr<Run> Resume(std::string_view run_id, const Cancellation* cancellation = nullptr);

 private:
  Driver(store::Store& store, const world::Clock& clock, world::Entropy& entropy,
         DriverOptions options, std::unique_ptr<ToolRegistry> registry);
  class Session;
  friend class GateSession;

  absl::StatusOr<Run> CreateRun(std::string_view run_id, std::string_view goal,
                                const Limits& limits);
  absl::StatusOr<std::pair<std::unique_ptr<Session>, Run>> ResumeSession(
      std::string_view run_id, bool attaching, const Cancellation* cancellation);

  const world::Clock& lease_clock() const { return options_.scheduler->clock(); }
  absl::Status RefuseLiveForeignLease(std::string_view run_id, std::string_view owner,
                                      std::string_view expires_at) const;

  store::Store& store_;
  const world::Clock& clock_;
  world::Entropy& entropy_;
  DriverOptions options_;
  std::unique_ptr<ToolRegistry> registry_;
  std::string policy_id_;  // options_.policy->Id(), read once when the driver was made
  std::unique_ptr<internal::ExecutingRuns> executing_;
};

// A loop the caller owns, one run: Step opens the next step (limits checked, step claimed),
// Input gives exactly what an agent would see, Propose records, validates and judges a decision
// (an allowed one is written with its execution, or on its own when the session closes first),
// Execute runs an allowed call (the runtime always runs the tool itself: at most once, with the
// start recorded before and the outcome after), Fail ends the run as an agent error would.
// While the session holds the run's lease (from Begin, an Attach that goes on, or the Execute of
// an attached grant) a heartbeat keeps it, as the driver's loop does; once the run paused or
// ended, the session lost its lease, or it was closed, the session is over and nothing of it is
// left on the scheduler. Close (or destroying the session) also releases the lease, so Resume or
// Attach by another owner takes the run over at once; a step left open is left as a crash would
// leave it.
//
// Refusals (FailedPrecondition unless said otherwise; none changes anything):
//  - misuse: a second open step, a decision with no open step or a second one, Execute with no
//    allowed call, Fail with no open step (InvalidArgument without an error);
//  - after Close, every call but Close ("the gate session is closed");
//  - once a call finds the lease lost (another owner holds the run, or its expiry passed on the
//    lease clock), that call and every later one but Close ("lost its lease"): another owner
//    may be driving the run, so this session never writes it again.
// Step answers false, with no error, once the run is no longer RUNNING (paused, ended by a
// limit, by this session or by an operator). Not thread-safe; calls in order.
class GateSession {
 public:
  ~GateSession();
  // Close ends the session: the heartbeat stops and the lease is released unless the run
  // already paused or ended. Safe to call twice. Errors: the store's, when the release failed
  // (the lease then lapses after its TTL, as after a crash).
  absl::Status Close();
  absl::StatusOr<bool> Step();
  // With a step open: exactly what an agent deciding it is handed (for the approved step Attach
  // leaves open, the waiting run and the steps before it). With none: the run as last read or
  // written and every step it has, and no model. Reads no clock and nothing from the store.
  StepInput Input() const;
  absl::StatusOr<GateVerdict> Propose(const Decision& decision);
  absl::StatusOr<Observation> Execute();
  absl::Status Fail(const absl::Status& why);
  const Run& run() const;  // as last read or written

 private:
  friend class Driver;
  explicit GateSession(std::unique_ptr<Driver::Session> session);
  void KeepLease();  // starts the heartbeat once the session holds the lease of a RUNNING run
  // The refusal every call but Close starts with: closed, or the lease lost.
  absl::Status RefuseIfOver();
  absl::Status CheckLease();
  // After a call that may have moved the run: keeps it as stored and, once it is no longer
  // RUNNING, stops holding it. After a failed call, also looks whether the lease was lost.
  void RereadAfterCall(bool failed);
  // The run paused or ended: stops the heartbeat, frees the driver's claim, reads the steps back.
  void EndHolding();
  std::unique_ptr<Driver::Session> session_;
  std::unique_ptr<internal::LeaseHeartbeat> heartbeat_;  // after session_: destroyed first
  absl::Status lease_lost_;  // OK until a call found the lease lost; then every call's answer
  bool step_open_ = false;
  bool proposed_ = false;
  bool closed_ = false;
};

}  // namespace agentrt
