// mcp/proxy/answers.h
//
// What the model sees of the proxy's decisions (docs/proxy.md, "Answers"): every text starts
// with a prefix naming what happened (PENDING_APPROVAL, IN_PROGRESS, INTERRUPTED,
// UNKNOWN_OUTCOME, UNRECORDED are not errors; DENIED, INVALID, REJECTED, EXPIRED, DUPLICATE,
// BLOCKED, UNAVAILABLE are) and says in plain words whether anything ran and what to do next.
// Text someone else chose (a server's error, an operator's note, a policy's reason) is escaped
// and bounded inside the prose; a tool's result returned as the call's result is passed back as
// the server sent it. Nothing here names agentrt, a database, a configuration or a run id;
// approval ids are shown (an operator decides by them).
#pragma once

#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace agentrt::proxy {

struct Answer {
  std::string text;
  bool is_error = false;
  std::string structured;  // canonical JSON object for `structuredContent`, or ""
};

// Clean escapes and bounds text someone else chose for the prose (json::Sanitize, then cut).
std::string Clean(std::string_view text, int max_bytes);

Answer PendingApproval(std::string_view approval_id);
Answer Interrupted(std::string_view approval_id);
// `how` is Attempt::How(); `error` may be empty; `approval_id` empty: no approval is waiting, an
// identical call will ask.
Answer UnknownOutcome(std::string_view how, std::string_view error, std::string_view approval_id);
Answer Unrecorded(std::string_view reason, absl::Duration window);
Answer InProgress();
Answer Denied(std::string_view reason);
Answer Invalid(std::string_view reason);
Answer Rejected(std::string_view approval_id, std::string_view note, absl::Time until,
                bool cancelled);
Answer Expired(std::string_view approval_id, absl::Time until);
// `outcome` is one of the three phrasings of DuplicateOutcome.
Answer Duplicate(absl::Time executed_at, absl::Duration window, std::string_view outcome);
std::string DuplicateSucceeded(std::string_view result);
std::string DuplicateUnrecorded(std::string_view reason);
std::string DuplicateFailed(std::string_view error);
Answer BlockedUnknown(std::string_view tool, std::string_view approval_id);
Answer BlockedCap(int pending);
// `what`: "the gate could not read its records, and nothing was executed", ...
Answer Unavailable(std::string_view what);
// An error the upstream server reported (isError), escaped and bounded.
Answer ToolError(std::string_view error);

// ApprovalNamedIn is the approval id an answer's text names ("... (approval <id>) ..."), "" when
// it names none: what a host or an operator reads off an answer.
std::string ApprovalNamedIn(std::string_view text);

// RFC 3339 in UTC, seconds.
std::string Rfc3339(absl::Time t);
// A duration as the operator wrote it in the configuration ("10m0s" is "10m").
std::string DurationText(absl::Duration d);

}  // namespace agentrt::proxy
