// The session's own lifetime: its lease, its writes and their guard, and what a caller-owned
// loop (gate_session.cc) asks of it.
#include "runtime/engine/session.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/lease_heartbeat.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using store::Transaction;

absl::Status Driver::Session::Cancelled() const {
  return absl::CancelledError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_.id)),
                                           ": cancelled by its caller; it stays RUNNING and a "
                                           "Resume goes on from where it stopped"));
}

absl::Status Driver::Session::ReleaseLease() {
  if (state_.released()) return absl::OkStatus();
  // A decision proposed but never executed (a gate closed after an allowed proposal) is kept,
  // as a step stopped by its caller keeps it; a run moved meanwhile refuses it, as ever.
  absl::Status staged = WriteStagedDecision();
  if (absl::IsFailedPrecondition(staged)) staged = absl::OkStatus();
  AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Release{}));
  absl::Status released = absl::OkStatus();
  if (run_.status == RunStatus::kRunning) {
    released = driver_.store_.Write([&](Transaction& tx) {
      return rows::ReleaseLease(tx, run_.id, driver_.options_.lease_owner).status();
    });
  }
  FreeClaim();  // the driver may drive the run again at once
  return staged.ok() ? released : staged;
}

absl::Status Driver::Session::Write(absl::FunctionRef<absl::Status(Transaction&)> write,
                                    store::WriteOptions options) {
  const internal::StagedDecision* staged = state_.staged();
  AGENTRT_RETURN_IF_ERROR(driver_.store_.Write(
      [&](Transaction& tx) -> absl::Status {
        if (staged != nullptr) {
          const internal::StagedDecision& s = *staged;
          AGENTRT_RETURN_IF_ERROR(rows::RecordDecision(tx, s.step_id, s.json, s.spec_hash));
          if (s.spec != nullptr && !specs_written_.contains(s.spec->hash)) {
            AGENTRT_RETURN_IF_ERROR(rows::InsertToolSpec(tx, s.spec->hash, s.spec->json));
          }
          AGENTRT_RETURN_IF_ERROR(
              tx.AppendEvent(run_.id, s.step_id, s.at, event::kStepDecided, s.json).status());
        }
        return write(tx);
      },
      options));
  if (staged == nullptr) return absl::OkStatus();
  if (staged->spec != nullptr) specs_written_.insert(staged->spec->hash);
  return Move(internal::SessionState::Committed{});
}

absl::Status Driver::Session::WriteStagedDecision() {
  if (state_.staged() == nullptr) return absl::OkStatus();
  return Write([&](Transaction& tx) { return RequireRunning(tx).status(); });
}

absl::StatusOr<rows::RunState> Driver::Session::RequireRunning(Transaction& tx) {
  std::optional<RunStatus> guard = state_.guard();
  if (!guard) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_.id, ": this session released it and writes nothing more"));
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunState> state, rows::ReadRunState(tx, run_.id));
  if (!state.has_value()) return absl::NotFoundError(absl::StrCat("run ", run_.id, " not found"));
  if (state->status != ToString(*guard)) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_.id, " is ", state->status, ", not ", ToAbsl(ToString(*guard))));
  }
  // A run taken over by another owner is no longer this loop's to write.
  if (*guard == RunStatus::kRunning && state->lease_owner != driver_.options_.lease_owner) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", run_.id, " is leased by ", state->lease_owner, ", not this driver"));
  }
  return *std::move(state);
}

absl::Status Driver::Session::RequireLiveLease(const rows::RunState& state, absl::Time lease_now,
                                               std::string_view refused) {
  absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(state.lease_expires_at);
  if (!expiry.ok() || *expiry <= lease_now) {
    return absl::FailedPreconditionError(absl::StrCat("run ", run_.id, ": the lease expired at ",
                                                      ToAbsl(state.lease_expires_at), "; ",
                                                      ToAbsl(refused)));
  }
  return absl::OkStatus();
}

// Resuming a grant moves the run back to RUNNING in the same transaction as the step's
// first write (the tool start, or the step's end), with run.resumed.
absl::Status Driver::Session::EnterIfResuming(Transaction& tx) {
  const internal::Grant* grant = state_.grant();
  if (grant == nullptr) return absl::OkStatus();
  AGENTRT_RETURN_IF_ERROR(
      rows::EnterFromWaiting(tx, run_.id, driver_.options_.lease_owner, LeaseExpiry()));
  return tx
      .AppendEvent(run_.id, current().id, grant->resumed_at, event::kRunResumed,
                   json::JsonObject().String("approval_id", grant->approval.id).Build())
      .status();
}

std::string Driver::Session::entering_approval() const {
  const internal::Grant* grant = state_.grant();
  return grant != nullptr ? grant->approval.id : "";
}

absl::Status Driver::Session::ExpireLateGrant() {
  const internal::Grant* grant = state_.grant();
  // Without a GrantTTL there is nothing to judge, and no clock is read.
  if (grant == nullptr || state_.call() == nullptr ||
      run_.limits.grant_ttl <= absl::ZeroDuration()) {
    return absl::OkStatus();
  }
  absl::Time now = Now();
  if (now <= grant->approval.decided_at + run_.limits.grant_ttl) return absl::OkStatus();
  Approval approval = grant->approval;
  AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Take{}));
  AGENTRT_RETURN_IF_ERROR(ExpireApproval(driver_.store_, approval, now));
  return ApprovalExpiredError(absl::StrCat(
      "approval ", approval.id, " expired before it was executed; the run is cancelled"));
}

absl::Status Driver::Session::RereadRun() {
  AGENTRT_ASSIGN_OR_RETURN(run_, ReadRun(driver_.store_, run_.id));
  return absl::OkStatus();
}

absl::Status Driver::Session::RereadSteps() {
  // The window's worth: older steps are read from the store when asked for.
  AGENTRT_ASSIGN_OR_RETURN(RecentSteps recent,
                           ReadRecentSteps(driver_.store_, run_.id, HeldStepsFor(run_.limits)));
  steps_.Assign(std::move(recent.steps), recent.first);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Driver::Session::LeaseLoss() const {
  std::optional<rows::RunState> state;
  AGENTRT_RETURN_IF_ERROR(driver_.store_.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(state, rows::ReadRunState(tx, run_.id));
    return absl::OkStatus();
  }));
  if (!state.has_value() || state->status != ToString(RunStatus::kRunning)) return "";
  if (state->lease_owner != driver_.options_.lease_owner) {
    return state->lease_owner.empty()
               ? std::string("nobody holds it now")
               : absl::StrCat("now held by ", ToAbsl(json::Sanitize(state->lease_owner)), " until ",
                              ToAbsl(state->lease_expires_at));
  }
  if (absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(state->lease_expires_at);
      !expiry.ok() || *expiry <= LeaseNow()) {
    return absl::StrCat("it expired at ", ToAbsl(state->lease_expires_at));
  }
  return "";
}

std::unique_ptr<internal::LeaseHeartbeat> Driver::Session::Heartbeat() const {
  const DriverOptions& o = driver_.options_;
  return std::make_unique<internal::LeaseHeartbeat>(driver_.store_, *o.scheduler, run_.id,
                                                    o.lease_owner, o.lease_ttl, o.on_lease_renewed);
}

}  // namespace agentrt
