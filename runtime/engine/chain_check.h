// runtime/engine/chain_check.h
//
// Rows against the chain. The tables are the state and the events explain it, written in one
// transaction (docs/formats/database.md), so the two agree unless someone edited the file. Of
// the two, only the chain is hard to forge: its hashes link every event to the ones before,
// and a head kept outside the database proves it up to that point. A row is a plain value that
// anyone with write access can rewrite — an approval's request together with a hash recomputed
// by the public formula, a pending status turned to approved. So where a row decides what runs
// (an approval's request, hash and decision; the decision of a step whose call is paused again;
// a run's limits), the engine checks it against what the chain recorded before using it, and
// `agentrt verify` checks every row (runtime/row_audit.h).
//
// What is compared, each as the runtime writes it in the same transaction as the row:
//  - a run: run.created (goal, limits) and, for an ended run, its last run.finished (status,
//    reason, detail, step count, end time); a run that has not ended has no run.finished;
//  - a step: step.started (index) and step.decided (the decision, byte for byte);
//  - an approval: approval.requested (step, kind, capability, presentation, hash, time, and
//    the expiry the run's recorded approval TTL gives) and every approval.decided (the status
//    the last one leaves; who decided, the note and when, from the one that decided it).
// The hash in approval.requested binds the request: a row whose hash is the chained one and
// verifies over its own fields holds the request that was asked.
//
// Pure functions over rows and events read by the caller, and two checks that read them in the
// caller's transaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/records/rows.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt::chain {

// What one approval's events recorded.
struct RecordedApproval {
  int requested = 0;  // approval.requested events with its id: 1 in an intact log
  std::string step_id;
  std::string kind;
  std::string capability;    // canonical
  std::string presentation;  // canonical
  std::string hash;
  std::string at;
  struct Decided {
    std::string status;  // approved, rejected, expired
    std::string by;
    std::string note;
    std::string at;
  };
  std::vector<Decided> decisions;  // approval.decided, in seq order
};

// What one step's events recorded.
struct RecordedStep {
  int started = 0;  // step.started events: 1 in an intact log
  std::int64_t index = -1;
  int decided = 0;       // step.decided events
  std::string decision;  // the last one's payload, as stored
};

// What the chain recorded of a run, as far as its rows also hold it.
struct RunChain {
  int created = 0;  // run.created events: 1 in an intact log
  std::string goal;
  std::string limits;  // canonical
  struct Finished {
    std::string status;
    std::string reason;
    std::string detail;
    std::int64_t steps = 0;
    std::string at;
  };
  std::optional<Finished> finished;  // the last run.finished
  std::map<std::string, RecordedStep> steps;
  std::map<std::string, RecordedApproval> approvals;
  std::vector<std::string> unreadable;  // "seq N (type)" for a payload that is not JSON
};

// The event types a RunChain is folded from.
std::span<const std::string_view> ChainTypes();

// Fold builds what `events` (a run's, in seq order, of ChainTypes) recorded.
RunChain Fold(const std::vector<rows::ChainEvent>& events);

// Each returns what differs between a row and its chain, one sentence a part, in words for an
// operator, with stored text escaped and cut; empty when they agree.
std::vector<std::string> RunDisagreements(const rows::RunRow& row, const RunChain& chain);
std::vector<std::string> StepDisagreements(const rows::StepRow& row, const RunChain& chain);
std::vector<std::string> ApprovalDisagreements(const Approval& row, const RunChain& chain);

// CheckApproval reads `approval`'s chain (and the run's limits) in `tx` and refuses a row that
// differs from it, or whose hash does not verify over its own fields: DataLoss,
// IsApprovalHashError, naming the approval and the first difference, ending "nothing was
// `refused_what`".
absl::Status CheckApproval(store::Transaction& tx, const Approval& approval,
                           std::string_view refused_what);

// CheckRunAndStep reads the run's and step `step_id`'s chain in `tx` and refuses a run row whose
// goal, limits or end, or a step row whose index or decision, differs from it: DataLoss naming
// the row and the first difference, ending "nothing was `refused_what`".
absl::Status CheckRunAndStep(store::Transaction& tx, std::string_view run_id,
                             std::string_view step_id, std::string_view refused_what);

// CheckGrant is CheckRunAndStep of the approval's run and step, then CheckApproval, with the
// chain read once: what a resume checks before it runs a granted call.
absl::Status CheckGrant(store::Transaction& tx, const Approval& approval,
                        std::string_view refused_what);

}  // namespace agentrt::chain
