// runtime/operator/view/approval_text.h
//
// An approval rendered for a person at a terminal (docs/operators.md, "The APPROVAL WAITING
// block"): the header lines (status, id, run, kind, tool, reason, hash, expiry, decision), then
// what the model asked for and what the consumer's policy chose to present, one field per line with
// its size and its bounded value pretty-printed below it, and a closing line that this renderer
// writes itself.
//
// Promises, whatever the approval holds:
//   - every line is sanitized (json::Sanitize): no text in the approval can move the cursor,
//     recolour the terminal, reorder what is shown, or start a line of its own;
//   - a string longer than kMaxFieldBytes is shown by its head and tail (bound.h), the size
//     line still giving the whole field's length;
//   - the last line is "----- end of approval <id> for tool <name> -----", so the last thing a
//     reader sees before a prompt is never model text. A value that contains that very line is
//     shown inside its quoted, escaped, indented JSON string, never as a line of its own.
//
// The command line prints it with status WAITING and a "decide with:" trailer; the webhook's
// text view prints it for any status. Thread-safe; pure.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "runtime/types.h"

namespace agentrt::view {

struct ApprovalTextOptions {
  // The policy's reason for asking, shown when not empty.
  std::string reason;
  // When set, an expiry at or before `now` is marked "(expired)". Nothing is written.
  absl::Time now = absl::InfinitePast();
  // The zone times are written in (DisplayTime).
  absl::TimeZone zone = absl::UTCTimeZone();
  // One line the caller adds before the closing line, e.g. how to decide; "" for none.
  std::string trailer;
};

// ApprovalStatusLabel is the status word of the header: WAITING for a pending approval,
// otherwise APPROVED, REJECTED or EXPIRED.
std::string ApprovalStatusLabel(ApprovalStatus status);

// ApprovalTool is the name of the tool the approval's request names ("" when unreadable).
std::string ApprovalTool(const Approval& approval);

// ApprovalText renders `approval` (stored, unbounded; it is bounded here) as lines each ending
// in "\n".
std::string ApprovalText(const Approval& approval, const ApprovalTextOptions& options = {});

}  // namespace agentrt::view
