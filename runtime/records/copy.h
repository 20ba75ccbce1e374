// runtime/records/copy.h
//
// CopyRecords copies every row of agentrt's tables from one store into another that holds none
// yet (a store just made on a server, say): runs, steps, approvals, model calls, tool specs, the
// proxy's calls, the events with their seqs and chain hashes as stored, and the event log's
// high-water mark. The copy is the same audit log: `agentrt verify` finds the same chain and
// head. Used by `agentrt sim run --db URL` to keep a play's database on a server.
#pragma once

#include "absl/status/status.h"
#include "runtime/store/store.h"

namespace agentrt::records {

// Reads `from` in one snapshot and writes `to` in one transaction. Errors: FailedPrecondition
// when `to` holds a run already; either store's.
absl::Status CopyRecords(store::Store& from, store::Store& to);

}  // namespace agentrt::records
