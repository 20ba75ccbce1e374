#include "runtime/driver.h"

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/executing_runs.h"
#include "runtime/engine/lease_heartbeat.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using internal::LeaseHeartbeat;
using store::Transaction;
using world::FormatTimestamp;

Driver::Driver(store::Store& store, const world::Clock& clock, world::Entropy& entropy,
               DriverOptions options, std::unique_ptr<ToolRegistry> registry)
    : store_(store),
      clock_(clock),
      entropy_(entropy),
      options_(std::move(options)),
      registry_(std::move(registry)),
      policy_id_(options_.policy->Id()),
      executing_(std::make_unique<internal::ExecutingRuns>()) {}

Driver::~Driver() = default;

absl::StatusOr<std::unique_ptr<Driver>> Driver::Create(store::Store& store,
                                                       const world::Clock& clock,
                                                       world::Entropy& entropy,
                                                       DriverOptions options) {
  if (options.policy == nullptr) return absl::InvalidArgumentError("driver: a policy is required");
  // The policy's identity is read once, here (every evaluation records this one); one that
  // could not be recorded is refused before any run.
  if (absl::Status id = rows::CheckPolicyId(options.policy->Id()); !id.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("driver: ", id.message()));
  }
  if (options.scheduler == nullptr) {
    return absl::InvalidArgumentError(
        "driver: a scheduler is required (it runs the lease heartbeat and its clock judges "
        "leases: world::RealScheduler in production, a world::ManualClock in tests)");
  }
  AGENTRT_ASSIGN_OR_RETURN(ToolRegistry registry, ToolRegistry::Create(options.tools));
  // Two drivers never share an owner, even with the same name: a restarted process is a new
  // owner and must wait for (or take over) its predecessor's lease.
  options.lease_owner = options.lease_owner.empty()
                            ? entropy.NewId()
                            : absl::StrCat(options.lease_owner, "/", entropy.NewId().substr(0, 12));
  if (options.lease_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("driver: lease_ttl must be positive");
  }
  return std::unique_ptr<Driver>(new Driver(store, clock, entropy, std::move(options),
                                            std::make_unique<ToolRegistry>(std::move(registry))));
}

absl::Status Driver::RefuseLiveForeignLease(std::string_view run_id, std::string_view owner,
                                            std::string_view expires_at) const {
  if (owner.empty() || owner == options_.lease_owner) return absl::OkStatus();
  absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(expires_at);
  if (expiry.ok() && *expiry > lease_clock().Now()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", ToAbsl(json::Sanitize(run_id)), " is leased by ", ToAbsl(json::Sanitize(owner)),
        " until ", ToAbsl(expires_at), "; it may still be running"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Run> Driver::Resume(std::string_view run_id, const Cancellation* cancellation) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError("driver: Resume needs an agent");
  }
  AGENTRT_ASSIGN_OR_RETURN(auto session, ResumeSession(run_id, /*attaching=*/false, cancellation));
  return session.second;
}

absl::StatusOr<std::pair<std::unique_ptr<GateSession>, GateVerdict>> Driver::Attach(
    std::string_view run_id, const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(auto resumed, ResumeSession(run_id, /*attaching=*/true, cancellation));
  auto& [session, run] = resumed;
  GateVerdict verdict;
  verdict.run = run;
  bool allowed = session->has_pending();
  if (allowed) {
    verdict.outcome = GateVerdict::Outcome::kAllowed;
  } else if (run.status == RunStatus::kWaitingForApproval) {
    verdict.outcome = GateVerdict::Outcome::kPending;
  } else if (IsTerminal(run.status)) {
    verdict.outcome = GateVerdict::Outcome::kEnded;
  } else {
    verdict.outcome = GateVerdict::Outcome::kOpen;
  }
  // The session knows the run as stored (a pause or an ending writes it, not the session's
  // copy), so run() is right and only a session that goes on keeps the lease.
  session->run_ = run;
  auto gate = std::unique_ptr<GateSession>(new GateSession(std::move(session)));
  if (allowed) gate->step_open_ = gate->proposed_ = true;
  return std::pair<std::unique_ptr<GateSession>, GateVerdict>(std::move(gate), verdict);
}

absl::StatusOr<std::pair<std::unique_ptr<Driver::Session>, Run>> Driver::ResumeSession(
    std::string_view run_id, bool attaching, const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadRun(store_, run_id));
  if (IsTerminal(run.status)) {
    return absl::FailedPreconditionError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)),
                                                      " is ", ToAbsl(ToString(run.status)),
                                                      " and cannot be resumed"));
  }
  auto session = std::make_unique<Session>(*this, run, cancellation);
  session->claim_ = std::move(claim);
  session->attaching_ = attaching;
  absl::StatusOr<Run> resumed;
  if (run.status == RunStatus::kWaitingForApproval) {
    resumed = session->ResumeApproved();
  } else {
    // A live lease of another owner is refused before anything else, the run's clock included.
    AGENTRT_ASSIGN_OR_RETURN(RunLease lease, agentrt::ReadLease(store_, run_id));
    AGENTRT_RETURN_IF_ERROR(RefuseLiveForeignLease(run_id, lease.owner, lease.expires_at));
    resumed = session->ResumeInterrupted();
  }
  if (!resumed.ok()) return resumed.status();
  return std::pair<std::unique_ptr<Session>, Run>(std::move(session), *std::move(resumed));
}

absl::StatusOr<Run> Driver::Start(std::string_view goal, const Limits& limits,
                                  const Cancellation* cancellation) {
  return StartWithId(entropy_.NewId(), goal, limits, cancellation);
}

absl::StatusOr<Run> Driver::StartWithId(std::string_view run_id, std::string_view goal,
                                        const Limits& limits, const Cancellation* cancellation) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError(
        "driver: Start needs an agent (use Begin for a loop you own)");
  }
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  Session session(*this, run, cancellation);
  session.claim_ = std::move(claim);
  return session.Loop();
}

absl::StatusOr<std::unique_ptr<GateSession>> Driver::Begin(std::string_view run_id,
                                                           std::string_view goal,
                                                           const Limits& limits,
                                                           const Cancellation* cancellation) {
  AGENTRT_ASSIGN_OR_RETURN(internal::ExecutingRuns::Claim claim,
                           executing_->Take(run_id, options_.lease_owner));
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  auto session = std::make_unique<Session>(*this, run, cancellation);
  session->claim_ = std::move(claim);
  return std::unique_ptr<GateSession>(new GateSession(std::move(session)));
}

absl::StatusOr<Run> Driver::CreateRun(std::string_view run_id, std::string_view goal,
                                      const Limits& limits) {
  AGENTRT_RETURN_IF_ERROR(limits.Validate());
  if (run_id.empty()) return absl::InvalidArgumentError("run id is required");
  Run run;
  run.id = std::string(run_id);
  run.goal = std::string(goal);
  run.limits = limits;
  run.created_at = clock_.Now();
  std::string created = world::FormatTimestamp(run.created_at);
  std::string expiry = world::FormatTimestamp(lease_clock().Now() + options_.lease_ttl);
  std::string limits_json = limits.ToJson();
  std::string tools = "[";
  for (const RecordedSpec& s : registry_->specs()) {
    if (tools.size() > 1) tools += ",";
    tools += json::JsonString(s.hash);
  }
  tools += "]";
  AGENTRT_RETURN_IF_ERROR(store_.Write([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(rows::InsertRun(tx, {.id = run.id,
                                                 .goal = run.goal,
                                                 .limits_json = limits_json,
                                                 .created_at = created,
                                                 .lease_owner = options_.lease_owner,
                                                 .lease_expires_at = expiry}));
    for (const RecordedSpec& s : registry_->specs()) {
      AGENTRT_RETURN_IF_ERROR(rows::InsertToolSpec(tx, s.hash, s.json));
    }
    AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run.id, "", run.created_at, event::kRunCreated,
                                           json::JsonObject()
                                               .String("goal", run.goal)
                                               .Raw("limits", limits_json)
                                               .Raw("tools", tools)
                                               .Build())
                                .status());
    return tx.AppendEvent(run.id, "", run.created_at, event::kRunStarted, "{}").status();
  }));
  // The run as stored (its timestamps and limits as they read back): the loop refreshes only
  // what changes from here on (RefreshRun).
  return ReadRun(store_, run.id);
}

absl::Status Driver::Session::Cancelled() const {
  return absl::CancelledError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_.id)),
                                           ": cancelled by its caller; it stays RUNNING and a "
                                           "Resume goes on from where it stopped"));
}

absl::Status Driver::Session::ReleaseLease() {
  if (released_) return absl::OkStatus();
  released_ = true;
  // A decision proposed but never executed (a gate closed after an allowed proposal) is kept,
  // as a step stopped by its caller keeps it; a run moved meanwhile refuses it, as ever.
  absl::Status staged = WriteStagedDecision();
  if (absl::IsFailedPrecondition(staged)) staged = absl::OkStatus();
  absl::Status released = absl::OkStatus();
  if (run_.status == RunStatus::kRunning) {
    released = d_.store_.Write([&](Transaction& tx) {
      return rows::ReleaseLease(tx, run_.id, d_.options_.lease_owner).status();
    });
  }
  claim_.Reset();  // the driver may drive the run again at once
  return staged.ok() ? released : staged;
}

// A session that holds the lease of a RUNNING run keeps it from its first moment, as the
// driver's loop does from the write that took it: the caller may take its time before Step.
GateSession::GateSession(std::unique_ptr<Driver::Session> session) : session_(std::move(session)) {
  if (session_->has_pending()) return;  // an attached grant: Execute takes the lease
  if (session_->run().status == RunStatus::kRunning) {
    KeepLease();
  } else {
    Over();  // Attach found the run paused or ended
  }
}

// The heartbeat stops before the session releases the lease (members are destroyed in reverse
// order; Close does the same explicitly).
GateSession::~GateSession() = default;

absl::Status GateSession::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  heartbeat_.reset();
  return session_->ReleaseLease();
}

absl::Status GateSession::RefuseIfOver() {
  if (closed_) return absl::FailedPreconditionError("the gate session is closed");
  return CheckLease();
}

// The lease is the session's only while the store says so. Once another owner holds the RUNNING
// run, or the expiry last written passed on the lease clock (the renewals failed), another owner
// may be driving it: the session is over, and stays over even if the row would let it renew
// (reference/core.md §4.14, §6.1). A run that is no longer RUNNING holds no lease; each call
// says what that means for it.
absl::Status GateSession::CheckLease() {
  if (!lease_lost_.ok()) return lease_lost_;
  Driver& d = session_->d_;
  const std::string& run_id = session_->run().id;
  std::optional<rows::RunState> state;
  AGENTRT_RETURN_IF_ERROR(d.store_.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(state, rows::ReadRunState(tx, run_id));
    return absl::OkStatus();
  }));
  if (!state.has_value() || state->status != ToString(RunStatus::kRunning)) {
    return absl::OkStatus();
  }
  std::string lost;
  if (state->lease_owner != d.options_.lease_owner) {
    lost = state->lease_owner.empty()
               ? std::string("nobody holds it now")
               : absl::StrCat("now held by ", ToAbsl(json::Sanitize(state->lease_owner)), " until ",
                              ToAbsl(state->lease_expires_at));
  } else if (absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(state->lease_expires_at);
             !expiry.ok() || *expiry <= d.lease_clock().Now()) {
    lost = absl::StrCat("it expired at ", ToAbsl(state->lease_expires_at));
  }
  if (lost.empty()) return absl::OkStatus();
  lease_lost_ = absl::FailedPreconditionError(
      absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), ": this gate session lost its lease (",
                   ToAbsl(lost), "); it never writes the run again"));
  heartbeat_.reset();
  session_->claim_.Reset();  // the session is over: the driver may attach to the run again
  return lease_lost_;
}

void GateSession::Moved(bool failed) {
  if (absl::StatusOr<Run> run = ReadRun(session_->d_.store_, session_->run().id); run.ok()) {
    session_->run_ = *std::move(run);
  }
  if (session_->run().status != RunStatus::kRunning) Over();
  if (failed) CheckLease().IgnoreError();  // the call's own error is the answer
}

// The run paused or ended: nothing is left to keep, and the steps are read back as the pause or
// the ending wrote them (the session's copies of a paused step, or of steps an operator's
// cancel ended, are not), so Input shows the run as it is.
void GateSession::Over() {
  heartbeat_.reset();
  session_->claim_.Reset();  // the driver no longer drives the run: it may attach again
  if (absl::StatusOr<std::vector<agentrt::Step>> steps =
          ReadSteps(session_->d_.store_, session_->run().id);
      steps.ok()) {
    session_->steps_ = *std::move(steps);
  }
}

void GateSession::KeepLease() {
  if (heartbeat_ != nullptr) return;
  const Driver& d = session_->d_;
  heartbeat_ = std::make_unique<LeaseHeartbeat>(session_->d_.store_, *d.options_.scheduler,
                                                session_->run().id, d.options_.lease_owner,
                                                d.options_.lease_ttl, d.options_.on_lease_renewed);
}

absl::StatusOr<bool> GateSession::Step() {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (step_open_) {
    return absl::FailedPreconditionError("a step is already open: propose or fail it first");
  }
  absl::StatusOr<bool> open = session_->OpenStep();
  if (!open.ok() || !*open) Moved(!open.ok());
  if (!open.ok()) return open.status();
  step_open_ = *open;
  return *open;
}

StepInput GateSession::Input() const {
  StepInput input = session_->Input();
  if (!step_open_) {
    // Between steps there is no step to decide: the caller sees every step and no model.
    input.steps = session_->steps_.Share(session_->steps_.size());
    input.model = nullptr;
  }
  return input;
}

const Run& GateSession::run() const { return session_->run(); }

absl::StatusOr<GateVerdict> GateSession::Propose(const Decision& decision) {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (!step_open_ || proposed_) {
    return absl::FailedPreconditionError("no open step awaiting a decision");
  }
  proposed_ = true;
  absl::StatusOr<Driver::Session::Next> next = session_->ProposeDecision(decision);
  if (!next.ok()) {
    Moved(/*failed=*/true);
    return next.status();
  }
  GateVerdict verdict;
  switch (*next) {
    case Driver::Session::Next::kAllowed:
      verdict.outcome = GateVerdict::Outcome::kAllowed;
      return verdict;
    case Driver::Session::Next::kContinue:
      verdict.outcome = GateVerdict::Outcome::kDenied;
      if (const agentrt::Step* step = session_->CurrentStep(); step != nullptr) {
        verdict.observation = step->observation;
      }
      step_open_ = proposed_ = false;
      return verdict;
    case Driver::Session::Next::kStop:
      break;
  }
  step_open_ = proposed_ = false;
  AGENTRT_ASSIGN_OR_RETURN(verdict.run, ReadRun(session_->d_.store_, session_->run().id));
  session_->run_ = verdict.run;
  if (verdict.run.status != RunStatus::kRunning) Over();
  verdict.outcome = verdict.run.status == RunStatus::kWaitingForApproval
                        ? GateVerdict::Outcome::kPending
                        : GateVerdict::Outcome::kEnded;
  return verdict;
}

absl::StatusOr<Observation> GateSession::Execute() {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (!session_->has_pending()) {
    return absl::FailedPreconditionError("nothing to execute: the last proposal was not allowed");
  }
  step_open_ = proposed_ = false;
  // A grant the caller held on to is judged again now: GrantTTL counts until it runs. Without
  // a GrantTTL there is nothing to judge, and no clock is read: the driver reads none here.
  if (const std::optional<Approval>& grant = session_->grant_;
      grant && !session_->resumed_approval_.empty() &&
      session_->run().limits.grant_ttl > absl::ZeroDuration()) {
    absl::Time now = session_->Now();
    if (now > grant->decided_at + session_->run().limits.grant_ttl) {
      session_->pending_.reset();
      absl::Status expired = ExpireApproval(session_->d_.store_, *grant, now);
      Moved(/*failed=*/true);
      AGENTRT_RETURN_IF_ERROR(expired);
      return ApprovalExpiredError(absl::StrCat(
          "approval ", grant->id, " expired before it was executed; the run is cancelled"));
    }
  }
  KeepLease();
  absl::Status executed = session_->ExecutePending().status();
  Moved(/*failed=*/!executed.ok());
  AGENTRT_RETURN_IF_ERROR(executed);
  const agentrt::Step* step = session_->CurrentStep();
  if (step == nullptr || !step->observation) {
    return absl::InternalError("the executed step has no observation");
  }
  return *step->observation;
}

absl::Status GateSession::Fail(const absl::Status& why) {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (!step_open_ || proposed_) return absl::FailedPreconditionError("no open step to fail");
  if (why.ok()) return absl::InvalidArgumentError("Fail needs the error that stopped the step");
  step_open_ = false;
  absl::Status failed = session_->FailStep(why);
  Moved(/*failed=*/!failed.ok());
  return failed;
}

}  // namespace agentrt
