#include "runtime/approvals.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/optional.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/chain_check.h"
#include "runtime/engine/run_end.h"
#include "runtime/events.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

using store::Transaction;

// The payload that tells apart the refusals FailedPrecondition covers (approvals.h).
constexpr std::string_view kRunState = "run_state";
constexpr std::string_view kNotPending = "not_pending";
constexpr std::string_view kExpired = "expired";
constexpr std::string_view kChanged = "approval_changed";
constexpr std::string_view kHash = "approval_hash";

absl::Status Marked(std::string_view refusal, absl::Status status) {
  status.SetPayload(ToAbsl(payload::kApprovalRefusal), absl::Cord(ToAbsl(refusal)));
  return status;
}

absl::Status Refused(std::string_view refusal, std::string_view message) {
  return Marked(refusal, absl::FailedPreconditionError(ToAbsl(message)));
}

std::string RefusalOf(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(ToAbsl(payload::kApprovalRefusal));
  return payload.has_value() ? std::string(payload->Flatten()) : std::string();
}

absl::StatusOr<Approval> GetApprovalTx(Transaction& tx, std::string_view run_id,
                                       std::string_view approval_id) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<Approval> approval,
                           rows::ReadApproval(tx, run_id, approval_id));
  if (!approval.has_value()) {
    return absl::NotFoundError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)),
                                            " has no approval ",
                                            ToAbsl(json::Sanitize(approval_id))));
  }
  return *std::move(approval);
}

absl::StatusOr<std::string> RunStatusTx(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunState> state, rows::ReadRunState(tx, run_id));
  if (!state.has_value()) {
    return absl::NotFoundError(absl::StrCat("no run ", ToAbsl(json::Sanitize(run_id))));
  }
  return std::move(state->status);
}

absl::Status Check(const Approval& a, const Decider& decider) {
  if (a.status != ApprovalStatus::kPending) {
    return Refused(a.status == ApprovalStatus::kExpired ? kExpired : kNotPending,
                   absl::StrCat("approval ", a.id, " is already ", ToAbsl(ToString(a.status))));
  }
  if (!decider.shown_hash.empty() && decider.shown_hash != a.hash) {
    return Marked(kChanged,
                  absl::AbortedError(absl::StrCat(
                      "approval ", a.id, " is not the one that was shown (its hash changed)")));
  }
  return VerifyApprovalHash(a);
}

// Expires `a` (pending or approved) and cancels its run, in one transaction.
absl::Status ExpireTx(Transaction& tx, const Approval& a, absl::Time now) {
  std::string at = world::FormatTimestamp(now);
  // A pending approval is decided by its expiry; an approved grant keeps its decider.
  absl::StatusOr<bool> changed = rows::ExpireApproval(tx, a.id, a.status, a.hash, at);
  if (!changed.ok()) return changed.status();
  if (!*changed) return Refused(kNotPending, "approval moved while expiring it");
  AGENTRT_RETURN_IF_ERROR(
      tx.AppendEvent(
            a.run_id, a.step_id, now, event::kApprovalDecided,
            json::JsonObject().String("approval_id", a.id).String("status", "expired").Build())
          .status());
  std::string detail = absl::StrCat("approval ", a.id, " expired");
  return FinishRunTx(tx, a.run_id, RunEnd{RunStatus::kCancelled, reason::kApprovalExpired, detail},
                     now);
}

absl::StatusOr<Approval> Decide(store::Store& store, const world::Clock& clock,
                                std::string_view run_id, std::string_view approval_id,
                                const Decider& decider, bool approve) {
  absl::Time now = clock.Now();
  Approval decided;
  bool expired = false;
  AGENTRT_RETURN_IF_ERROR(store.Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::string status, RunStatusTx(tx, run_id));
    if (ParseRunStatus(status) != RunStatus::kWaitingForApproval) {
      return Refused(kRunState, absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " is ", status,
                                             ", not waiting for approval"));
    }
    AGENTRT_ASSIGN_OR_RETURN(Approval a, GetApprovalTx(tx, run_id, approval_id));
    AGENTRT_RETURN_IF_ERROR(Check(a, decider));
    AGENTRT_RETURN_IF_ERROR(chain::CheckApproval(tx, a, "decided"));
    if (a.expires_at != absl::InfinitePast() && now > a.expires_at) {
      expired = true;
      return ExpireTx(tx, a, now);
    }
    std::string at = world::FormatTimestamp(now);
    std::string_view new_status = approve ? "approved" : "rejected";
    AGENTRT_ASSIGN_OR_RETURN(bool decided_now, rows::DecideApproval(tx, a.id, a.hash, new_status,
                                                                    at, decider.by, decider.note));
    if (!decided_now) return Refused(kNotPending, "approval is not pending");
    AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run_id, a.step_id, now, event::kApprovalDecided,
                                           json::JsonObject()
                                               .String("approval_id", a.id)
                                               .String("status", new_status)
                                               .String("by", decider.by)
                                               .String("note", decider.note)
                                               .Build())
                                .status());
    if (!approve) {
      Observation obs = MakeObservation(ObservationKind::kPolicyDenied,
                                        {{"approval_id", a.id}, {"note", decider.note}},
                                        "approval rejected: " + decider.note);
      AGENTRT_RETURN_IF_ERROR(rows::EndStep(tx, a.step_id, StepStatus::kAwaitingApproval,
                                            {.status = StepStatus::kFailed,
                                             .observation_json = ObservationJson(obs),
                                             .observation_hash = obs.content_hash,
                                             .finished_at = at})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(FinishRunTx(
          tx, run_id, RunEnd{RunStatus::kCancelled, reason::kApprovalRejected, decider.note}, now));
    }
    a.status = approve ? ApprovalStatus::kApproved : ApprovalStatus::kRejected;
    a.decided_at = now;
    a.decided_by = decider.by;
    a.note = decider.note;
    decided = a;
    return absl::OkStatus();
  }));
  if (expired) {
    return Refused(kExpired, absl::StrCat("approval ", ToAbsl(json::Sanitize(approval_id)),
                                          " had expired; the run is cancelled (approval_expired)"));
  }
  return decided;
}

}  // namespace

bool IsRunStateError(const absl::Status& status) { return RefusalOf(status) == kRunState; }

bool IsNotPendingError(const absl::Status& status) {
  std::string refusal = RefusalOf(status);
  return refusal == kNotPending || refusal == kExpired;
}

absl::Status ApprovalExpiredError(std::string_view message) { return Refused(kExpired, message); }

absl::Status ApprovalTamperedError(std::string_view message) {
  return Marked(kHash, absl::DataLossError(ToAbsl(message)));
}

bool IsApprovalExpiredError(const absl::Status& status) { return RefusalOf(status) == kExpired; }

bool IsApprovalChangedError(const absl::Status& status) { return RefusalOf(status) == kChanged; }

bool IsApprovalHashError(const absl::Status& status) { return RefusalOf(status) == kHash; }

std::string ApprovalHash(std::string_view kind, std::string_view capability,
                         std::string_view presentation, std::string_view request) {
  return json::Sha256Hex(json::JsonObject()
                             .Raw("capability", capability)
                             .String("kind", kind)
                             .Raw("presentation", presentation)
                             .Raw("request", request)
                             .Build());
}

absl::Status VerifyApprovalHash(const Approval& a) {
  if (ApprovalHash(a.kind, a.capability, a.presentation, a.request) != a.hash) {
    return Marked(kHash, absl::DataLossError(absl::StrCat(
                             "approval ", ToAbsl(json::Sanitize(a.id)),
                             ": its hash does not match its recorded request; the row was "
                             "changed after it was written")));
  }
  return absl::OkStatus();
}

absl::Status ExpireApproval(store::Store& store, const Approval& approval, absl::Time now) {
  return store.Write([&](Transaction& tx) { return ExpireTx(tx, approval, now); });
}

absl::StatusOr<std::vector<Approval>> ListApprovals(store::Store& store, std::string_view run_id) {
  std::vector<Approval> approvals;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(approvals, rows::ReadApprovals(tx, run_id));
    return absl::OkStatus();
  }));
  return approvals;
}

absl::StatusOr<std::string> RunOfApproval(store::Store& store, std::string_view approval_id) {
  std::optional<std::string> run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(run, rows::RunOfApproval(tx, approval_id));
    return absl::OkStatus();
  }));
  if (!run) {
    return absl::NotFoundError(
        absl::StrCat("no approval ", ToAbsl(json::Sanitize(approval_id)), " is known"));
  }
  return *std::move(run);
}

absl::StatusOr<Approval> GetApproval(store::Store& store, std::string_view run_id,
                                     std::string_view approval_id) {
  Approval approval;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(approval, GetApprovalTx(tx, run_id, approval_id));
    return absl::OkStatus();
  }));
  return approval;
}

absl::StatusOr<ApprovalPage> ListApprovalsPage(store::Store& store, std::string_view run_id,
                                               bool pending_only, std::int64_t limit,
                                               std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  ApprovalPage page;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(page,
                             rows::ReadApprovalsPage(tx, run_id, pending_only, limit, offset));
    return absl::OkStatus();
  }));
  return page;
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>> PendingApprovalIds(
    store::Store& store, std::span<const std::string> run_ids, int per_run) {
  std::map<std::string, std::vector<std::string>> ids;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(ids, rows::ReadPendingApprovalIds(tx, run_ids, per_run));
    return absl::OkStatus();
  }));
  return ids;
}

absl::StatusOr<Approval> PendingApproval(store::Store& store, std::string_view run_id,
                                         std::string_view approval_id) {
  if (!approval_id.empty()) {
    AGENTRT_ASSIGN_OR_RETURN(Approval a, GetApproval(store, run_id, approval_id));
    if (a.status != ApprovalStatus::kPending) {
      return absl::FailedPreconditionError(absl::StrCat("approval ", ToAbsl(json::Sanitize(a.id)),
                                                        " is ", ToAbsl(ToString(a.status))));
    }
    return a;
  }
  constexpr std::int64_t kCandidates = 20;
  AGENTRT_ASSIGN_OR_RETURN(ApprovalPage pending,
                           ListApprovalsPage(store, run_id, /*pending_only=*/true, kCandidates, 0));
  if (pending.total == 0 || pending.approvals.empty()) {
    return absl::NotFoundError(
        absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " has no pending approval"));
  }
  if (pending.total > 1) {
    std::vector<std::string> ids;
    for (const Approval& a : pending.approvals) ids.push_back(json::Sanitize(a.id));
    std::int64_t more = pending.total - static_cast<std::int64_t>(ids.size());
    return absl::FailedPreconditionError(
        absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " has ", pending.total,
                     " pending approvals; name one of ", absl::StrJoin(ids, ", "),
                     more > 0 ? absl::StrCat(" and ", more, " more") : ""));
  }
  return pending.approvals[0];
}

absl::StatusOr<Approval> Approve(store::Store& store, const world::Clock& clock,
                                 std::string_view run_id, std::string_view approval_id,
                                 const Decider& decider) {
  return Decide(store, clock, run_id, approval_id, decider, /*approve=*/true);
}

absl::StatusOr<Approval> Reject(store::Store& store, const world::Clock& clock,
                                std::string_view run_id, std::string_view approval_id,
                                const Decider& decider) {
  return Decide(store, clock, run_id, approval_id, decider, /*approve=*/false);
}

absl::Status Cancel(store::Store& store, const world::Clock& clock, std::string_view run_id,
                    const Decider& decider) {
  absl::Time now = clock.Now();
  return store.Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::string status, RunStatusTx(tx, run_id));
    std::optional<RunStatus> parsed = ParseRunStatus(status);
    if (!parsed || IsTerminal(*parsed)) {
      return Refused(kRunState,
                     absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " is already ", status));
    }
    Observation obs =
        MakeObservation(ObservationKind::kInterrupted, {{"by", decider.by}, {"note", decider.note}},
                        "cancelled by operator: " + decider.note);
    AGENTRT_RETURN_IF_ERROR(FailStepsInFlightTx(tx, run_id, obs, now));
    RunEnd end{RunStatus::kCancelled, reason::kOperatorCancelled, decider.note};
    end.with_by = true;
    end.by = decider.by;
    return FinishRunTx(tx, run_id, end, now);
  });
}

}  // namespace agentrt
