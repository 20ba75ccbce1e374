#include "runtime/operator/approver/local.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/view/bound.h"
#include "runtime/records/event_payloads.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/schema.h"
#include "runtime/records/stored_forms.h"

namespace agentrt::approver {
namespace {

absl::Status Refuse(ErrorKind kind, absl::Status status) {
  return WithKind(std::move(status), kind);
}

absl::Status FromRuntime(absl::Status status) {
  if (status.ok()) return status;
  // Classified before the move: the order arguments are evaluated in is unspecified.
  ErrorKind kind = KindOfDecision(status);
  return WithKind(std::move(status), kind);
}

// The pausing policy's reason for each of the run's approvals, as approval.requested recorded
// it when the approval was written (the step's policy column may since hold a later
// evaluation's).
absl::StatusOr<std::map<std::string, std::string>> ApprovalReasons(store::Store& store,
                                                                   std::string_view run_id) {
  std::map<std::string, std::string> reasons;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<std::string> payloads,
                             rows::ReadEventPayloads(tx, run_id, event::kApprovalRequested));
    for (const std::string& bytes : payloads) {
      std::optional<records::ApprovalRequested> request =
          records::Decode<records::ApprovalRequested>(bytes);
      if (!request) continue;  // shown without a reason
      reasons[request->approval_id] = std::move(request->reason);
    }
    return absl::OkStatus();
  }));
  return reasons;
}

// A run must exist for its approvals to be listed: an unknown run is kNotFound, not "none".
absl::StatusOr<Run> ReadExistingRun(store::Store& store, std::string_view run_id) {
  absl::StatusOr<Run> run = agentrt::ReadRun(store, run_id);
  if (!run.ok()) {
    return Refuse(run.status().code() == absl::StatusCode::kNotFound ? ErrorKind::kNotFound
                                                                     : ErrorKind::kInternal,
                  run.status());
  }
  return run;
}

}  // namespace

Local::Local(store::Store& store, const world::Clock& clock) : store_(store), clock_(clock) {}

Local::Local(std::unique_ptr<store::Store> owned, const world::Clock& clock)
    : owned_(std::move(owned)), store_(*owned_), clock_(clock) {}

absl::StatusOr<std::unique_ptr<Local>> Local::Open(const std::string& path,
                                                   const world::Clock& clock,
                                                   store::EventObserver observer) {
  AGENTRT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store,
                           records::OpenExistingStore(path, /*read_only=*/false));
  if (observer) store->AddObserver(std::move(observer));
  return std::unique_ptr<Local>(new Local(std::move(store), clock));
}

Pending Local::ToPending(const Approval& approval, std::string reason) const {
  Pending p;
  p.approval = view::BoundApproval(approval);
  p.reason = view::BoundText(reason);
  p.expired = approval.status == ApprovalStatus::kPending &&
              approval.expires_at != absl::InfinitePast() && clock_.Now() > approval.expires_at;
  return p;
}

absl::StatusOr<std::vector<Pending>> Local::ListPending(std::string_view run_id, int limit) {
  if (limit < 1) {
    return Refuse(ErrorKind::kDecision,
                  absl::InvalidArgumentError(absl::StrCat(
                      "a listing of pending approvals needs a limit of at least 1, not ", limit)));
  }
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadExistingRun(store_, run_id));
  std::vector<Pending> pending;
  if (run.status != RunStatus::kWaitingForApproval) return pending;
  absl::StatusOr<ApprovalPage> page =
      ListApprovalsPage(store_, run_id, /*pending_only=*/true, limit, /*offset=*/0);
  if (!page.ok()) return Refuse(ErrorKind::kInternal, page.status());
  if (page->approvals.empty()) return pending;
  absl::StatusOr<std::map<std::string, std::string>> reasons = ApprovalReasons(store_, run_id);
  if (!reasons.ok()) return Refuse(ErrorKind::kInternal, reasons.status());
  for (const Approval& a : page->approvals) pending.push_back(ToPending(a, (*reasons)[a.id]));
  return pending;
}

absl::StatusOr<Pending> Local::Show(std::string_view run_id, std::string_view approval_id) {
  absl::StatusOr<Approval> approval = GetApproval(store_, run_id, approval_id);
  if (!approval.ok()) {
    return Refuse(approval.status().code() == absl::StatusCode::kNotFound ? ErrorKind::kNotFound
                                                                          : ErrorKind::kInternal,
                  approval.status());
  }
  absl::StatusOr<std::map<std::string, std::string>> reasons = ApprovalReasons(store_, run_id);
  if (!reasons.ok()) return Refuse(ErrorKind::kInternal, reasons.status());
  return ToPending(*approval, (*reasons)[approval->id]);
}

absl::Status Local::Decide(const Decision& d, bool approve) {
  std::vector<std::string> missing;
  if (d.run_id.empty()) missing.push_back("run_id");
  if (d.approval_id.empty()) missing.push_back("approval_id");
  if (d.by.empty()) missing.push_back("by");
  if (!missing.empty()) {
    return Refuse(ErrorKind::kDecision,
                  absl::InvalidArgumentError(
                      absl::StrCat("a decision needs run_id, approval_id and by; missing: ",
                                   absl::StrJoin(missing, ", "))));
  }
  if (d.hash.empty()) {
    return Refuse(ErrorKind::kApprovalChanged,
                  absl::AbortedError(absl::StrCat(
                      "approval ", ToAbsl(json::Sanitize(d.approval_id)),
                      ": no hash was shown with the decision, so it cannot be bound to what "
                      "was seen")));
  }
  Decider decider{d.by, d.note, d.hash};
  absl::StatusOr<Approval> decided =
      approve ? agentrt::Approve(store_, clock_, d.run_id, d.approval_id, decider)
              : agentrt::Reject(store_, clock_, d.run_id, d.approval_id, decider);
  return FromRuntime(decided.status());
}

absl::Status Local::Approve(const Decision& decision) { return Decide(decision, true); }

absl::Status Local::Reject(const Decision& decision) { return Decide(decision, false); }

absl::Status Local::Cancel(std::string_view run_id, std::string_view by, std::string_view note) {
  if (run_id.empty() || by.empty()) {
    return Refuse(ErrorKind::kDecision,
                  absl::InvalidArgumentError("a cancellation needs run_id and by"));
  }
  return FromRuntime(
      agentrt::Cancel(store_, clock_, run_id, Decider{std::string(by), std::string(note), ""}));
}

absl::StatusOr<Run> Local::ReadRun(std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadExistingRun(store_, run_id));
  run.goal = view::BoundText(run.goal);
  run.reason_detail = view::BoundText(run.reason_detail);
  run.result = view::BoundRaw(run.result);
  return run;
}

}  // namespace agentrt::approver
