// runtime/approvals.h
//
// What an operator does to a run (docs/architecture.md, "Approvals"): approve or reject the pending
// approval of a paused run, and cancel any run that has not ended. An approval is bound by a
// SHA-256 hash to exactly what was asked — the approval kind, capability and presentation, and
// the request: run, step, the tool's full spec and the canonical arguments (ADR 6). Deciding
// re-computes that hash from the stored row and refuses a row that does not match, so editing
// the database cannot turn an approval into a grant for something else.
//
// The chain is the authority over the row: deciding and resuming also compare the row with the
// approval.requested and approval.decided events recorded of it (runtime/engine/chain_check.h),
// so a row rewritten with a hash recomputed by the public formula, or a pending row marked
// approved, is refused before anything is decided or run.
//
// Expiry is lazy: a pending approval past its expires_at is expired by the next decision on it
// (by the deciding caller's clock), cancelling the run. Approve leaves the run waiting for a
// resume; Reject and Cancel end it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"

namespace agentrt {

// The approval kind of the runtime's own pause: a tool that is not read_only was executing when
// its process stopped, so its outcome is unknown and an operator decides (ADR 7). No policy
// writes it; the re-check tells it apart by this kind.
inline constexpr std::string_view kInterruptedSideEffectKind = "interrupted_side_effect";

// ApprovalHash is the hash an approval binds: SHA-256 of the canonical object {capability,
// kind, presentation, request}, each already canonical.
std::string ApprovalHash(std::string_view kind, std::string_view capability,
                         std::string_view presentation, std::string_view request);

// VerifyApprovalHash: DataLoss (IsApprovalHashError) naming the approval when the stored hash
// is not the one its stored fields give (the row was changed).
absl::Status VerifyApprovalHash(const Approval& approval);

// ExpireApproval expires a pending approval or an approved grant at `now` and cancels its run
// (approval_expired), in one transaction.
absl::Status ExpireApproval(store::Store& store, const Approval& approval, absl::Time now);

// ListApprovals returns a run's approvals in the order they were created.
absl::StatusOr<std::vector<Approval>> ListApprovals(store::Store& store, std::string_view run_id);

// PendingApproval selects the approval an operator means (docs/architecture.md, "Approvals"):
// `approval_id` when given (NotFound unless it is this run's; FailedPrecondition "approval X is
// S" unless pending), otherwise the run's only pending approval (NotFound when there is none).
// Never guesses among several: FailedPrecondition naming up to 20 of them and how many more.
// Reads at most 20 candidate rows, however many the run has.
absl::StatusOr<Approval> PendingApproval(store::Store& store, std::string_view run_id,
                                         std::string_view approval_id = "");

// RunOfApproval is the run an approval belongs to, for an operator (or a host) that was shown
// only the approval's id. NotFound naming the id when there is no such approval.
absl::StatusOr<std::string> RunOfApproval(store::Store& store, std::string_view approval_id);

// GetApproval reads one approval of a run: NotFound when the run has no such approval.
absl::StatusOr<Approval> GetApproval(store::Store& store, std::string_view run_id,
                                     std::string_view approval_id);

// A page of a run's approvals in the order they were created — only the pending ones when
// `pending_only` — with the total from COUNT. Only the page's rows are read. Errors:
// InvalidArgument for limit < 1 or offset < 0.
struct ApprovalPage {
  std::vector<Approval> approvals;
  std::int64_t total = 0;
};
absl::StatusOr<ApprovalPage> ListApprovalsPage(store::Store& store, std::string_view run_id,
                                               bool pending_only, std::int64_t limit,
                                               std::int64_t offset);

// PendingApprovalIds returns, for each run of `run_ids` that has pending approvals, the ids of
// the first `per_run` of them in creation order, in one query (two are enough to tell "exactly
// one" from "several").
absl::StatusOr<std::map<std::string, std::vector<std::string>>> PendingApprovalIds(
    store::Store& store, std::span<const std::string> run_ids, int per_run);

struct Decider {
  std::string by;  // an unverified label, recorded as given
  std::string note;
  std::string shown_hash;  // when set, the approval must still have this hash
};

// The refusals of a decision, told apart by these rather than by message words (three share
// FailedPrecondition, and a store can fail with any code): the run is not in the state the
// operation needs; the approval is no longer pending; it had expired (the expiry has then been
// written); it is not the one that was shown (Aborted); its row does not match its hash or the
// chain (DataLoss). An expired approval is also not pending: a refusal
// that it expired is also a refusal that it is not pending.
// ApprovalExpiredError is the refusal for a decision or an execution that came too late
// (FailedPrecondition; IsApprovalExpiredError and IsNotPendingError hold).
absl::Status ApprovalExpiredError(std::string_view message);
// ApprovalTamperedError is the refusal of an approval row that differs from what the audit
// chain recorded of it (DataLoss; IsApprovalHashError holds, as for a row whose own hash fails).
absl::Status ApprovalTamperedError(std::string_view message);
bool IsRunStateError(const absl::Status& status);
bool IsNotPendingError(const absl::Status& status);  // true for an expired approval too
bool IsApprovalExpiredError(const absl::Status& status);
bool IsApprovalChangedError(const absl::Status& status);
bool IsApprovalHashError(const absl::Status& status);

// Approve grants the pending approval; the run stays WAITING_FOR_APPROVAL until resumed.
// Errors: FailedPrecondition (run not waiting, approval not pending, expired — the run is then
// cancelled; see IsRunStateError and its siblings), NotFound, DataLoss (the row does not match
// its hash or what the chain recorded of it), Aborted (not the approval that was shown).
absl::StatusOr<Approval> Approve(store::Store& store, const world::Clock& clock,
                                 std::string_view run_id, std::string_view approval_id,
                                 const Decider& decider);
// Reject refuses it: the awaiting step fails with a policy_denied observation and the run is
// CANCELLED (approval_rejected).
absl::StatusOr<Approval> Reject(store::Store& store, const world::Clock& clock,
                                std::string_view run_id, std::string_view approval_id,
                                const Decider& decider);
// Cancel ends any run that has not ended (operator_cancelled): every step in flight fails with
// an interrupted observation; pending approvals stay pending. FailedPrecondition
// (IsRunStateError) for an ended run.
absl::Status Cancel(store::Store& store, const world::Clock& clock, std::string_view run_id,
                    const Decider& decider);

}  // namespace agentrt
