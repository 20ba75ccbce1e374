// GateSession: a loop the caller owns, over the public methods of one driver session
// (session.h). The session decides and writes; the gate keeps the caller's order (a step open,
// a decision proposed), the heartbeat while it holds the lease, and the end of the session.
#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/engine/lease_heartbeat.h"
#include "runtime/engine/session.h"
#include "runtime/json/sanitize.h"

namespace agentrt {

// A session that holds the lease of a RUNNING run keeps it from its first moment, as the
// driver's loop does from the write that took it: the caller may take its time before Step.
GateSession::GateSession(std::unique_ptr<Driver::Session> session) : session_(std::move(session)) {
  if (session_->has_allowed_call()) return;  // an attached grant: Execute takes the lease
  if (session_->run().status == RunStatus::kRunning) {
    KeepLease();
  } else {
    EndHolding();  // Attach found the run paused or ended
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
// (ADR 7, run leases). A run that is no longer RUNNING holds no lease; each call
// says what that means for it.
absl::Status GateSession::CheckLease() {
  if (!lease_lost_.ok()) return lease_lost_;
  AGENTRT_ASSIGN_OR_RETURN(std::string lost, session_->LeaseLoss());
  if (lost.empty()) return absl::OkStatus();
  lease_lost_ = absl::FailedPreconditionError(absl::StrCat(
      "run ", ToAbsl(json::Sanitize(session_->run().id)), ": this gate session lost its lease (",
      ToAbsl(lost), "); it never writes the run again"));
  heartbeat_.reset();
  session_->FreeClaim();  // the session is over: the driver may attach to the run again
  return lease_lost_;
}

void GateSession::RereadAfterCall(bool failed) {
  session_->RereadRun().IgnoreError();
  if (session_->run().status != RunStatus::kRunning) EndHolding();
  if (failed) CheckLease().IgnoreError();  // the call's own error is the answer
}

// The run paused or ended: nothing is left to keep, and the steps are read back as the pause or
// the ending wrote them, so Input shows the run as it is.
void GateSession::EndHolding() {
  heartbeat_.reset();
  session_->FreeClaim();  // the driver no longer drives the run: it may attach again
  session_->RereadSteps().IgnoreError();
}

void GateSession::KeepLease() {
  if (heartbeat_ == nullptr) heartbeat_ = session_->Heartbeat();
}

absl::StatusOr<bool> GateSession::Step() {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (step_open_) {
    return absl::FailedPreconditionError("a step is already open: propose or fail it first");
  }
  absl::StatusOr<bool> open = session_->OpenStep();
  if (!open.ok() || !*open) RereadAfterCall(!open.ok());
  if (!open.ok()) return open.status();
  step_open_ = *open;
  return *open;
}

StepInput GateSession::Input() const {
  StepInput input = session_->Input();
  if (!step_open_) {
    // Between steps there is no step to decide: the caller sees every step and no model.
    input.steps = session_->AllSteps();
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
  absl::StatusOr<Driver::Session::Next> next = session_->Propose(decision);
  if (!next.ok()) {
    RereadAfterCall(/*failed=*/true);
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
  AGENTRT_RETURN_IF_ERROR(session_->RereadRun());
  verdict.run = session_->run();
  if (verdict.run.status != RunStatus::kRunning) EndHolding();
  verdict.outcome = verdict.run.status == RunStatus::kWaitingForApproval
                        ? GateVerdict::Outcome::kPending
                        : GateVerdict::Outcome::kEnded;
  return verdict;
}

absl::StatusOr<Observation> GateSession::Execute() {
  AGENTRT_RETURN_IF_ERROR(RefuseIfOver());
  if (!session_->has_allowed_call()) {
    return absl::FailedPreconditionError("nothing to execute: the last proposal was not allowed");
  }
  step_open_ = proposed_ = false;
  // A grant the caller held on to is judged again now: GrantTTL counts until it runs.
  if (absl::Status late = session_->ExpireLateGrant(); !late.ok()) {
    RereadAfterCall(/*failed=*/true);
    return late;
  }
  KeepLease();
  absl::Status executed = session_->ExecutePending().status();
  RereadAfterCall(/*failed=*/!executed.ok());
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
  RereadAfterCall(/*failed=*/!failed.ok());
  return failed;
}

}  // namespace agentrt
