// runtime/operator/approver/errors.h
//
// The typed errors of an approval channel (docs/operators.md, "Approving over HTTP"): every error
// an Approver returns carries one ErrorKind, so a channel (the webhook, a chat bot) maps it to its
// own answer by kind, never by the words of the message. The message stays the one sentence that
// names the run or approval and the reason.
//
// An expired approval is also not pending: Matches(status, ErrorKind::kNotPending) holds for
// it, so a channel that answers "not pending" needs no second case for it.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace agentrt::approver {

enum class ErrorKind {
  kNone,             // OK
  kDecision,         // the request itself is incomplete (no run, approval or decider)
  kNotFound,         // no such run, or no such approval of that run
  kExpired,          // the approval expired (the runtime has written the expiry)
  kApprovalChanged,  // the approval is not the one that was shown (hash differs or none shown)
  kNotPending,       // the approval was already decided
  kRunState,         // the run is not waiting for approval (decide) or has ended (cancel)
  kApprovalHash,     // the stored approval does not match its own hash: the row was changed
  kInternal,         // anything else (the store failed, a bug)
};

// The kind's stable name: "decision", "not_found", "expired", ...
std::string_view KindName(ErrorKind kind);

// KindOf reads the kind an Approver put on `status`: kNone for OK, kInternal for an error
// that carries none.
ErrorKind KindOf(const absl::Status& status);

// Matches: KindOf(status) == kind, or kind is kNotPending and the status is kExpired.
bool Matches(const absl::Status& status, ErrorKind kind);

// WithKind returns `status` (not OK) marked with `kind`; code and message are kept.
absl::Status WithKind(absl::Status status, ErrorKind kind);

// KindOfDecision classifies an error of the runtime's Approve, Reject or Cancel
// (runtime/approvals.h) by its code and refusal markers.
ErrorKind KindOfDecision(const absl::Status& status);

}  // namespace agentrt::approver
