#include "runtime/operator/approver/errors.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/types/optional.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/status_payloads.h"

namespace agentrt::approver {
namespace {

constexpr ErrorKind kAllKinds[] = {
    ErrorKind::kDecision,        ErrorKind::kNotFound,   ErrorKind::kExpired,
    ErrorKind::kApprovalChanged, ErrorKind::kNotPending, ErrorKind::kRunState,
    ErrorKind::kApprovalHash,    ErrorKind::kInternal,
};

}  // namespace

std::string_view KindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone:
      return "none";
    case ErrorKind::kDecision:
      return "decision";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kExpired:
      return "expired";
    case ErrorKind::kApprovalChanged:
      return "approval_changed";
    case ErrorKind::kNotPending:
      return "not_pending";
    case ErrorKind::kRunState:
      return "run_state";
    case ErrorKind::kApprovalHash:
      return "approval_hash";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

ErrorKind KindOf(const absl::Status& status) {
  if (status.ok()) return ErrorKind::kNone;
  absl::optional<absl::Cord> payload = status.GetPayload(ToAbsl(payload::kApproverError));
  if (!payload.has_value()) return ErrorKind::kInternal;
  std::string name(payload->Flatten());
  for (ErrorKind kind : kAllKinds) {
    if (KindName(kind) == name) return kind;
  }
  return ErrorKind::kInternal;
}

bool Matches(const absl::Status& status, ErrorKind kind) {
  ErrorKind found = KindOf(status);
  return found == kind || (kind == ErrorKind::kNotPending && found == ErrorKind::kExpired);
}

absl::Status WithKind(absl::Status status, ErrorKind kind) {
  if (status.ok() || kind == ErrorKind::kNone) return status;
  status.SetPayload(ToAbsl(payload::kApproverError), absl::Cord(ToAbsl(KindName(kind))));
  return status;
}

ErrorKind KindOfDecision(const absl::Status& status) {
  if (status.ok()) return ErrorKind::kNone;
  // The markers first: the three refusals share FailedPrecondition.
  if (IsApprovalExpiredError(status)) return ErrorKind::kExpired;
  if (IsNotPendingError(status)) return ErrorKind::kNotPending;
  if (IsRunStateError(status)) return ErrorKind::kRunState;
  if (IsApprovalChangedError(status)) return ErrorKind::kApprovalChanged;
  if (IsApprovalHashError(status)) return ErrorKind::kApprovalHash;
  // The runtime's NotFound names a missing run or approval; the store opens no file here.
  if (status.code() == absl::StatusCode::kNotFound) return ErrorKind::kNotFound;
  return ErrorKind::kInternal;
}

}  // namespace agentrt::approver
