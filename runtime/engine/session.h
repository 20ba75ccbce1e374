// runtime/engine/session.h
//
// The driver's session: one run driven by one owner (the Driver's loop, Resume, or a Gate
// session). Internal to the engine; the contract is driver.h's. Its methods live by topic:
// loop.cc (the step loop, limits, recording and validating a decision), judge.cc (asking
// the policy and pausing), execute.cc (running a tool, ending steps and runs), resume.cc
// (resuming paused and interrupted runs); driver.cc holds the Driver and GateSession API.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/driver.h"
#include "runtime/engine/executing_runs.h"
#include "runtime/engine/model_caller.h"
#include "runtime/engine/session_state.h"
#include "runtime/engine/shared_steps.h"
#include "runtime/engine/tool_outcome.h"
#include "runtime/records/rows.h"
#include "runtime/store/store.h"
#include "runtime/tool_registry.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

class Driver::Session {
 public:
  // What a resume does once the run is RUNNING again: the driver's loop goes on, or the run is
  // handed back to a caller that owns the loop (Attach).
  enum class AfterResume { kLoop, kHandBack };

  Session(Driver& driver, Run run, const Cancellation* cancellation = nullptr,
          AfterResume after_resume = AfterResume::kLoop)
      : driver_(driver),
        run_(std::move(run)),
        steps_(std::make_shared<internal::StoredSteps>(driver_.store_, run_.id)),
        after_resume_(after_resume),
        cancellation_(cancellation) {}
  // A session that ends with its run still RUNNING (an error, an exception, a gate session
  // abandoned) releases the lease it may hold, so another owner can take the run over at once
  // rather than one TTL later.
  ~Session() { ReleaseLease().IgnoreError(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The driver's claim on the run, taken before the session was made (ExecutingRuns).
  void Hold(internal::ExecutingRuns::Claim claim) { claim_ = std::move(claim); }
  // Frees the driver's claim: the driver may drive the run again at once.
  void FreeClaim() { claim_.Reset(); }

  // Clears this driver's lease on the run unless the run, as last known here, is no longer
  // RUNNING (the transaction that paused or ended it released the lease), and frees the
  // driver's claim on the run. Not an event; no clock is read. Once per session.
  absl::Status ReleaseLease();

  // Reads the run's steps (into steps_) and approvals (into approvals_) as one snapshot.
  absl::Status ReadHistory();

  // Resumes a run found RUNNING (its owner died) or INTERRUPTED (without reconciliation): take the
  // lease over, mark the steps in flight interrupted, and pause a side effect whose outcome is
  // unknown for an operator.
  absl::StatusOr<Run> ResumeInterrupted();

  // Resumes a run paused for approval: only the latest approval of
  // the awaiting step can grant; its hash is verified; the tool must still be registered and
  // its current spec is the one judged; the arguments must meet the current schema; the policy
  // is asked again and an identical required approval is the grant, a different one pauses
  // again. Then the loop goes on.
  absl::StatusOr<Run> ResumeApproved();

  // Drives the run until it ends or pauses. A write refused because the run was moved by
  // someone else (an operator's cancel, say) returns the run as that writer left it.
  absl::StatusOr<Run> Loop();

  // Whether the caller cancelled.
  bool cancelled() const { return cancellation_ != nullptr && cancellation_->cancelled(); }

  // What a proposal leads to: the step ended and the loop goes on, the run stopped (ended or
  // paused), or the call is allowed and waits to be executed.
  enum class Next { kContinue, kStop, kAllowed };

  // What an agent is handed for the open step: copies of the run (this step already counted),
  // the steps before it and the registered tools.
  StepInput Input() const;
  // Every step the run has, shared (what a caller sees between steps).
  StepList AllSteps() const { return steps_.Share(steps_.size()); }

  // Opens the next step for a caller-owned loop: the same checks and claim as the driver's
  // loop. False when the run is no longer RUNNING or a limit ended it.
  absl::StatusOr<bool> OpenStep();

  // Records, validates and judges the open step's decision.
  absl::StatusOr<Next> Propose(Decision decision);

  // The decision could not be made: the run fails with the reason the error carries.
  absl::Status FailStep(const absl::Status& why);

  // Runs the allowed call: the policy record and the tool start commit together, then the tool
  // runs and its outcome is recorded.
  absl::StatusOr<bool> ExecutePending();

  // A grant allowed again on resume but not yet executed is judged again before it runs: once
  // its GrantTTL has passed (on the run's clock, read only when the run has a GrantTTL) the
  // approval expires, the run is cancelled and ApprovalExpired is returned; the call is dropped.
  absl::Status ExpireLateGrant();

  const Step* CurrentStep() const { return steps_.empty() ? nullptr : &steps_.back(); }
  const Run& run() const { return run_; }
  // Whether an allowed call waits to be executed.
  bool has_allowed_call() const { return state_.call() != nullptr; }

  // The run and its steps as stored, replacing the session's copies: after a call that may have
  // moved the run (RereadRun), and once it paused or ended (RereadSteps: a paused step, or steps
  // an operator's cancel ended, are read back as written). Errors leave the copies as they were.
  absl::Status RereadRun();
  absl::Status RereadSteps();
  void set_run(Run run) { run_ = std::move(run); }

  // Empty while this driver holds the RUNNING run's lease unexpired on the lease clock (or the
  // run is not RUNNING: it holds no lease then); else what happened to it, for an error.
  absl::StatusOr<std::string> LeaseLoss() const;

  // A heartbeat that keeps the run's lease while it lives (lease_heartbeat.h).
  std::unique_ptr<internal::LeaseHeartbeat> Heartbeat() const;

 private:
  // Only the session's own steps call these: the driver and the gate session go through the
  // members above.
  absl::Time LeaseNow() const { return driver_.lease_clock().Now(); }
  std::string LeaseExpiry() const {
    return world::FormatTimestamp(LeaseNow() + driver_.options_.lease_ttl);
  }

  // A stored row the runtime cannot read means it cannot know what happened: the run fails
  // (internal_error), every step in flight fails with the cause, and no damaged row is
  // rewritten otherwise.
  absl::StatusOr<Run> FailInternal(std::string_view cause);

  std::string Damage() const;

  // Applies the consumer's reconciliation; nullopt means "continue".
  std::optional<absl::StatusOr<Run>> Reconciled(std::optional<std::size_t> executing);

  // A tool that may have changed the world was executing when its process stopped: the outcome
  // is unknown, so the runtime does not run it again on its own; an operator decides (ADR 6).
  absl::Status InterruptedPause(std::size_t index, Tool* tool,
                                const PolicyDecision* reconciled = nullptr);

  // After a resume: the driver's loop goes on; a gate attaching hands the run back.
  absl::StatusOr<Run> Continue();

  // The status a cancelled call returns.
  absl::Status Cancelled() const;

  absl::StatusOr<Run> Iterate();

  absl::Time Now() { return driver_.clock_.Now(); }

  // Trailing steps whose observation is a failure; a step without one, or a success, ends it.
  // Counts at most `enough`.
  int ConsecutiveFailures(int enough) const;

  // Identical trailing (tool, canonical args, observation) signatures; a changed result is
  // progress. Invalid decisions take no part. Counts at most `enough`.
  std::pair<int, const Step*> LoopRepeats(int enough) const;

  absl::StatusOr<bool> CheckLimits();

  absl::StatusOr<bool> StartStep();

  Step& current() { return steps_.back(); }

  absl::StatusOr<bool> DecideAndAct();

  // Records the decision as the agent made it, before anything judges it: kept in the step at
  // once, and staged to commit first in the step's next write (the tool start, or the step's
  // or the run's end), as the policy's verdict is. Nothing outside the process happens between
  // the two, so a crash in between loses only what a resume would discard anyway: a deciding
  // step is interrupted whether or not its decision was written.
  absl::Status RecordDecision(const Decision& decision, const RecordedSpec* spec);

  // Every write of the session goes through here: the staged decision, if any, then `write`,
  // in one transaction; the decision is unstaged once that commits.
  absl::Status Write(absl::FunctionRef<absl::Status(store::Transaction&)> write,
                     store::WriteOptions options = {});
  // Commits the staged decision on its own (guarded as every write is), for a step that stops
  // before its next write: a cancelled call, a gate closed before it executed.
  absl::Status WriteStagedDecision();

  // The compare-and-set guard of every write: the run must still have the status the session's
  // state requires (RUNNING under this driver's lease while driving; WAITING_FOR_APPROVAL until
  // a resumed grant's first write). Returns the run's state as read, for the guards that need
  // more of it.
  absl::StatusOr<rows::RunState> RequireRunning(store::Transaction& tx);

  // FailedPrecondition naming the expiry and saying what was `refused` unless the run's
  // lease (as `state` holds it) is unexpired at `lease_now`.
  absl::Status RequireLiveLease(const rows::RunState& state, absl::Time lease_now,
                                std::string_view refused);

  // Resuming a grant moves the run back to RUNNING in the same transaction as the step's
  // first write (the tool start, or the step's end), with run.resumed.
  absl::Status EnterIfResuming(store::Transaction& tx);

  // The approval a resumed grant is entering with; empty once entered, or when not resuming one.
  std::string entering_approval() const;

  // The state's change, which cannot fail unless the engine has a bug.
  absl::Status Move(internal::SessionState::Event event) { return state_.Apply(std::move(event)); }

  // Returns "" when the decision is usable, else why not (one sentence for the agent).
  std::string Validate(const Decision& decision, const RecordedSpec* spec);

  absl::StatusOr<Next> Judge(const Decision& decision, const RecordedSpec& spec, Tool* tool,
                             const Approval* granted = nullptr);

  static std::string RequestJson(const ToolRequest& request, const RecordedSpec& spec);

  static std::string GrantedHash(const PolicyDecision& pd, const ToolRequest& request,
                                 const RecordedSpec& spec);

  // The approval binds kind, capability, presentation and the whole request (run, step, the
  // full spec and the canonical arguments): approving it can only ever grant this call.
  absl::Status Pause(const PolicyDecision& pd, const ToolRequest& request, const RecordedSpec& spec,
                     const std::function<absl::Status(store::Transaction&)>& write_policy);

  // Execute's parts: the call's start (with the policy's record), the call, and its outcome
  // as ClassifyToolResult read it. RecordOutcome answers whether the loop goes on.
  absl::StatusOr<bool> Execute(
      const Decision& decision, const RecordedSpec& spec, Tool* tool, absl::Time start_at,
      const std::function<absl::Status(store::Transaction&)>& write_policy);
  absl::Status RecordCallStart(
      std::string_view args, const RecordedSpec& spec, absl::Time start_at,
      const std::function<absl::Status(store::Transaction&)>& write_policy);
  static absl::StatusOr<ToolResult> CallTool(Tool& tool, const ToolCall& call);
  absl::StatusOr<bool> RecordOutcome(const internal::ToolOutcome& outcome, std::string_view name,
                                     absl::Time start_at);

  absl::Status AppendLateOutcome(const Observation& obs, absl::Time started_at);

  struct StepEnd {
    StepStatus status;
    std::optional<Observation> observation;
    std::string detail;
  };

  // Ends the current step inside `tx` at `at`: its columns, active time, and the
  // step.tool_finished / step.failed events.
  absl::Status EndStepTx(store::Transaction& tx, const StepEnd& end, absl::Time at);

  absl::Status EndStep(StepStatus status, std::optional<Observation> obs, std::string detail,
                       const std::function<absl::Status(store::Transaction&)>& pre = {});

  // How a run ends: its status, reason and detail; a completed run's result; the step that
  // ends with it, if any; and what must be written before, in the same transaction.
  struct Ending {
    RunStatus status = RunStatus::kFailed;
    std::string_view reason;  // outlives the call (a constant, or a temporary of the caller's)
    std::string detail;
    std::string result;
    std::optional<StepEnd> step;
    std::function<absl::Status(store::Transaction&)> pre;
  };
  static StepEnd FailedStep(std::string detail) {
    return StepEnd{StepStatus::kFailed, std::nullopt, std::move(detail)};
  }

  // Ends the run (and its current step, when `ending.step` is set) in one transaction: a
  // finished step never sits under a running run.
  absl::Status Settle(Ending ending);

  Driver& driver_;
  Run run_;
  SharedSteps steps_;
  std::vector<Approval> approvals_;  // the run's approvals, as this session wrote or read them
  internal::SessionState state_;
  const AfterResume after_resume_;
  // The specs this session's decisions have written (tool_specs is content-addressed and never
  // loses a row): a spec is written with the first decision that names it, not with every one.
  absl::flat_hash_set<std::string> specs_written_;
  std::unique_ptr<AccountingModelCaller> model_caller_;  // the open step's, when a model is set
  internal::ExecutingRuns::Claim claim_;  // this driver drives the run in this session only
  const Cancellation* cancellation_;      // the caller's; may be null
};

}  // namespace agentrt
