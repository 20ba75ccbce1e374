// runtime/operator/verify.h
//
// Verifying a database's log (`agentrt verify`, docs/operators.md): the hash chain walked over a
// range of seqs, the rows audited against the events when the walk covers the whole log
// (runtime/row_audit.h), and a head the operator kept elsewhere looked up: anyone who can write
// the file can recompute the whole chain, and a log cut at its end still verifies, so only a
// kept head proves the log intact up to it.
//
// The head is read first: what is committed after it is not this walk's to check. Reads only;
// a break, a contradiction, an unreached range or a kept head that no longer matches is a
// finding in the report, never an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/row_audit.h"
#include "runtime/store/store.h"

namespace agentrt {

// A head kept somewhere the database's writers cannot reach: an event's seq and hash.
struct KeptHead {
  std::int64_t seq = 0;
  std::string hash;
};

// ParseKeptHead reads SEQ:HASH, SEQ >= 1 and HASH the 64 lowercase hex digits of an event
// hash; nullopt when `text` is not one.
std::optional<KeptHead> ParseKeptHead(std::string_view text);

struct VerifyRange {
  std::int64_t from = 0;  // the first seq to check; 0 or 1: the first event
  std::int64_t to = 0;    // the last seq to check; 0: the head
  std::optional<KeptHead> kept;
};

struct VerifyReport {
  store::ChainHead head;    // read before the walk
  store::ChainReport walk;  // from..to as walked (to is at most the head)
  bool reached = true;      // the log reaches the range's `to`
  std::optional<KeptHead> kept;
  std::optional<std::string> kept_stored;  // the kept seq's hash now, when it is in the log
  bool kept_matches = false;
  std::optional<RowAudit> rows;  // only when the walk covered the whole log

  bool Intact() const { return !walk.broken.has_value(); }
  // Ok: intact, reached, the kept head (if any) matches, and no row contradicts the chain.
  bool Ok() const {
    return Intact() && reached && (!kept || kept_matches) && (!rows || rows->contradictions == 0);
  }
};

// VerifyLog verifies `store`'s log over `range`, which must be sound (from, to >= 0; to 0 or
// from <= to; a kept seq within from..to): the caller says how it is not (InvalidArgument
// here otherwise). Errors: the store's.
absl::StatusOr<VerifyReport> VerifyLog(store::Store& store, const VerifyRange& range);

}  // namespace agentrt
