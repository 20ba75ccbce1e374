// runtime/row_audit.h
//
// AuditRows checks every run, step and approval row of a database against the events that
// recorded them (what is compared: runtime/engine/chain_check.h). The chain walk
// (store::Store::VerifyEvents) proves the events; this proves the rows say what the events say,
// so a row rewritten by someone with write access to the file — an approval's request with its
// hash recomputed, a pending approval marked approved, a run's status or limits — is reported
// even when every event is intact. `agentrt verify` runs both.
//
// Reads in one read transaction, run by run; never writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"

namespace agentrt {

// One row that differs from its chain.
struct RowContradiction {
  std::string run_id;  // as stored (escape before showing)
  std::string row;     // "run", "step 3 (<id>)", "approval <id>", "events" (escaped)
  std::string detail;  // every difference, "; "-joined (escaped)
};

struct RowAudit {
  std::int64_t runs = 0;  // rows checked
  std::int64_t steps = 0;
  std::int64_t approvals = 0;
  std::int64_t contradictions = 0;      // rows that differ, all of them
  std::vector<RowContradiction> first;  // the first `keep` of them, run by run in id order
};

// AuditRows: errors are the store's; a contradiction is a finding, not an error.
absl::StatusOr<RowAudit> AuditRows(store::Store& store, std::size_t keep = 20);

}  // namespace agentrt
