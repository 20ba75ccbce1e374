// runtime/operator/approver/local.h
//
// Local is the Approver (and RunReader) over an agentrt database in this process: it shows what
// the store holds and decides through the runtime's own Approve, Reject and Cancel
// (runtime/approvals.h), so a decision is the same transaction, with the same events and the
// same hash check, as one made from the command line.
//
// Time comes from the clock it is given: expiry is judged by it when showing (nothing is
// written) and when deciding (the runtime then writes the expiry). Give it a clock of its own
// (the real one in production): a consumer's deterministic run clock must not be shared, as
// every decision would consume a reading of it.
//
// Thread-safe as the store is.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/operator/approver/approver.h"
#include "runtime/operator/approver/errors.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"

namespace agentrt::approver {

class Local final : public Approver, public RunReader {
 public:
  // Over an open store; `store` and `clock` must outlive the Local.
  Local(store::Store& store, const world::Clock& clock);

  // Open opens the existing database at `path` for deciding (store::Store::OpenExisting,
  // writable): a missing file, a database that is not agentrt's and one at another schema
  // version are refused, and nothing is ever created or migrated. `observer`, when set,
  // receives the events the decisions write. `clock` must outlive the Local.
  static absl::StatusOr<std::unique_ptr<Local>> Open(const std::string& path,
                                                     const world::Clock& clock,
                                                     store::EventObserver observer = nullptr);

  absl::StatusOr<std::vector<Pending>> ListPending(std::string_view run_id, int limit) override;
  absl::StatusOr<Pending> Show(std::string_view run_id, std::string_view approval_id) override;
  // Approve and Reject: a missing run, approval or decider is kDecision and an empty hash
  // kApprovalChanged, before the store is touched; the runtime's refusals keep their message
  // and get their kind (an expired approval: kExpired, the run then cancelled).
  absl::Status Approve(const Decision& decision) override;
  absl::Status Reject(const Decision& decision) override;
  // Cancel: a missing run or decider is kDecision; an ended run kRunState.
  absl::Status Cancel(std::string_view run_id, std::string_view by, std::string_view note) override;

  absl::StatusOr<Run> ReadRun(std::string_view run_id) override;

 private:
  Local(std::unique_ptr<store::Store> owned, const world::Clock& clock);
  absl::Status Decide(const Decision& decision, bool approve);
  Pending ToPending(const Approval& approval, std::string reason) const;

  std::unique_ptr<store::Store> owned_;
  store::Store& store_;
  const world::Clock& clock_;
};

}  // namespace agentrt::approver
