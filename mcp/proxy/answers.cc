#include "mcp/proxy/answers.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::proxy {
namespace {

constexpr int kProse = 500;
constexpr int kResult = 64 * 1024;

constexpr std::string_view kWaitClauses =
    " Do not call it again until you are told it was approved, do not try another tool to do "
    "the same thing, and do not ask the user to approve it: an operator decides elsewhere. Tell "
    "the user it is waiting for an operator's approval. Once it is approved, call the tool again "
    "with exactly the same arguments to run it and get its result.";

Answer Ok(std::string text) { return Answer{std::move(text), false, ""}; }
Answer Error(std::string text) { return Answer{std::move(text), true, ""}; }

std::string Id(std::string_view approval_id) {
  return absl::StrCat("(approval ", ToAbsl(Clean(approval_id, 128)), ")");
}

}  // namespace

std::string ApprovalNamedIn(std::string_view text) {
  constexpr std::string_view kOpen = "(approval ";
  std::size_t at = text.find(kOpen);
  if (at == std::string_view::npos) return "";
  std::size_t begin = at + kOpen.size();
  std::size_t end = text.find(')', begin);
  if (end == std::string_view::npos) return "";
  return std::string(text.substr(begin, end - begin));
}

std::string Clean(std::string_view text, int max_bytes) {
  return json::Truncate(json::Sanitize(text), max_bytes);
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string DurationText(absl::Duration d) { return absl::FormatDuration(d); }

Answer PendingApproval(std::string_view approval_id) {
  return Ok(absl::StrCat("PENDING_APPROVAL: this request needs an operator's approval ",
                         Id(approval_id), ". Nothing was executed.", ToAbsl(kWaitClauses)));
}

Answer Interrupted(std::string_view approval_id) {
  return Ok(absl::StrCat(
      "INTERRUPTED: an earlier attempt of this exact request was cut off before its outcome was "
      "recorded, so whether it took effect is unknown: it may have. An operator must decide "
      "whether it runs again ",
      Id(approval_id), ". Nothing further was executed.", ToAbsl(kWaitClauses)));
}

Answer UnknownOutcome(std::string_view how, std::string_view error, std::string_view approval_id) {
  std::string text =
      absl::StrCat("UNKNOWN_OUTCOME: an attempt of this exact request ", ToAbsl(how));
  if (!error.empty()) absl::StrAppend(&text, " (", Clean(error, kProse), ")");
  absl::StrAppend(&text, ", so whether it took effect is unknown: it may have. ");
  if (!approval_id.empty()) {
    absl::StrAppend(&text, "An operator must decide whether it runs again ", Id(approval_id), ".");
  } else {
    absl::StrAppend(&text,
                    "An identical call will wait for an operator to decide whether it "
                    "runs again.");
  }
  absl::StrAppend(&text, " Nothing further was executed.", ToAbsl(kWaitClauses));
  return Ok(std::move(text));
}

Answer Unrecorded(std::string_view reason, absl::Duration window) {
  std::string text = absl::StrCat(
      "UNRECORDED: the server answered this request, so it executed, but its answer could not "
      "be recorded (",
      Clean(reason, kProse), "). It may have taken effect. Do not call it again to retry.");
  if (window > absl::ZeroDuration()) {
    absl::StrAppend(&text, " An identical call within ", DurationText(window),
                    " is refused as a duplicate.");
  }
  absl::StrAppend(&text, " Tell the user.");
  return Ok(std::move(text));
}

Answer InProgress() {
  return Ok(
      "IN_PROGRESS: an identical request is already executing, or its outcome is not known "
      "yet. Nothing new was started. Wait a little, then call the tool again with exactly the "
      "same arguments to get its outcome.");
}

Answer Denied(std::string_view reason) {
  return Error(absl::StrCat("DENIED: the policy does not allow this request: ",
                            Clean(reason, kProse), ". Nothing was executed."));
}

Answer Invalid(std::string_view reason) {
  return Error(absl::StrCat(
      "INVALID: the arguments do not match the tool's input schema: ", Clean(reason, 1000),
      ". Nothing was executed. Correct the arguments and call again."));
}

Answer Rejected(std::string_view approval_id, std::string_view note, absl::Time until,
                bool cancelled) {
  std::string text = cancelled ? absl::StrCat("REJECTED: an operator cancelled this exact request ",
                                              Id(approval_id), ".")
                               : absl::StrCat("REJECTED: an operator rejected this exact request ",
                                              Id(approval_id), ".");
  if (!note.empty()) {
    absl::StrAppend(&text, " The operator's note: ", json::Quoted(note, kProse), ".");
  }
  absl::StrAppend(&text, " It was not executed. An identical request is refused until ",
                  Rfc3339(until), ". Do not ask for it again; tell the user it was refused.");
  return Error(std::move(text));
}

Answer Expired(std::string_view approval_id, absl::Time until) {
  return Error(absl::StrCat("EXPIRED: the approval of this request ", Id(approval_id),
                            " expired before it was used. It was not executed. An identical "
                            "request is refused until ",
                            Rfc3339(until), ". Tell the user."));
}

Answer Duplicate(absl::Time executed_at, absl::Duration window, std::string_view outcome) {
  return Error(
      absl::StrCat("DUPLICATE: this exact request already executed at ", Rfc3339(executed_at),
                   " and was not executed again: an identical call within ", DurationText(window),
                   " of an earlier one is refused, whether it is a retry or not. Its outcome was: ",
                   ToAbsl(outcome)));
}

std::string DuplicateSucceeded(std::string_view result) {
  return absl::StrCat("it succeeded, with this result: ", Clean(result, kResult));
}
std::string DuplicateUnrecorded(std::string_view reason) {
  return absl::StrCat("the server answered, but its result could not be recorded: ",
                      Clean(reason, kProse));
}
std::string DuplicateFailed(std::string_view error) {
  return absl::StrCat("it failed, with this error: ", Clean(error, kResult));
}

Answer BlockedUnknown(std::string_view tool, std::string_view approval_id) {
  return Error(absl::StrCat(
      "BLOCKED: an earlier call to ", Clean(tool, 64),
      " may have taken effect and its outcome is unknown ", Id(approval_id),
      ", so no other call to ", Clean(tool, 64),
      " that changes anything runs until an operator decides. Nothing was executed. Tell the "
      "user."));
}

Answer BlockedCap(int pending) {
  return Error(absl::StrCat(
      "BLOCKED: ", pending, pending == 1 ? " request is" : " requests are",
      " already waiting for an operator's approval, the most this session allows. Nothing was "
      "executed and no approval was requested. Tell the user, and call again once the operator "
      "has decided."));
}

Answer Unavailable(std::string_view what) {
  return Error(absl::StrCat("UNAVAILABLE: ", ToAbsl(what), ". Tell the user."));
}

Answer ToolError(std::string_view error) { return Error(Clean(error, kResult)); }

}  // namespace agentrt::proxy
