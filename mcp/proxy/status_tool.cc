// The status tool (docs/proxy.md, "The status tool"): what became of the session's requests
// that waited for an operator, read from the index and the runs of the last hour. It never
// writes, never executes, and is never a run.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "mcp/proxy/internal/proxy_impl.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/reasons.h"
#include "runtime/records/run_reader.h"
#include "runtime/world/clock.h"
#include "runtime/world/timestamp.h"

namespace agentrt::proxy {
namespace {

constexpr std::int64_t kMostRows = 200;

Answer StatusAnswer(std::string text) { return Answer{"GATE_STATUS: " + text, false, ""}; }

std::string Age(absl::Duration d) {
  return DurationText(absl::Seconds(std::llround(absl::ToDoubleSeconds(d))));
}

// The approval's arguments on one line.
std::string CompactArgs(const Approval& approval) {
  absl::StatusOr<json::Document> capability = json::Parse(approval.capability);
  if (!capability.ok() || !capability->root().is_object()) return "{}";
  std::optional<json::Value> args = capability->root().Find("args");
  return args ? json::WriteCanonical(*args) : "{}";
}

}  // namespace

ToolSpec Proxy::Impl::StatusSpec(std::string_view name) {
  ToolSpec spec;
  spec.name = std::string(name);
  spec.description =
      "Reports which of this session's requests are waiting for an operator's approval or, given "
      "an approval_id, what became of that request. It never runs or approves anything.";
  spec.input_schema =
      R"({"type":"object","properties":{"approval_id":{"type":"string","description":)"
      R"("The approval id a PENDING_APPROVAL, INTERRUPTED or UNKNOWN_OUTCOME answer named."}},)"
      R"("additionalProperties":false})";
  spec.side_effect = SideEffect::kReadOnly;
  spec.timeout = absl::Seconds(10);
  return spec;
}

std::string Proxy::Impl::AskedAgain(const std::string& request_key, const std::string& run_id) {
  std::vector<rows::ProxyCall> rows;
  absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        rows, rows::ProxyCallsForKey(tx, settings_.session, request_key, "", kMostRows));
    return absl::OkStatus();
  });
  if (!read.ok()) return "";
  absl::Time now = Now();
  for (const rows::ProxyCall& row : rows) {  // newest first, down to the run asked about
    if (row.run_id == run_id) break;
    absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(store_, row.run_id);
    if (!approvals.ok()) continue;
    for (const Approval& a : *approvals) {
      if (a.kind == kInterruptedSideEffectKind && StillLive(a, now)) return a.id;
    }
  }
  return "";
}

std::string Proxy::Impl::Describe(const Run& run, const std::string& request_key,
                                  const Approval& approval,
                                  const std::vector<Approval>& approvals) {
  absl::Time now = Now();
  std::string tool = Clean(MemberOf(approval.capability, "name"), 64);
  std::string text =
      absl::StrCat("approval ", approval.id, " for ", tool, " ", Clean(CompactArgs(approval), 200));
  bool interruption = approval.kind == kInterruptedSideEffectKind;
  switch (approval.status) {
    case ApprovalStatus::kPending:
      if (PastExpiry(approval, now)) {
        absl::StrAppend(&text, ": EXPIRED without a decision. It was not executed.");
      } else if (interruption) {
        absl::StrAppend(&text, ": OUTCOME UNKNOWN, waiting ", Age(now - approval.created_at),
                        " for an operator to decide whether it runs again. An earlier attempt may "
                        "have taken effect; nothing further was executed.");
      } else {
        absl::StrAppend(&text, ": PENDING for ", Age(now - approval.created_at),
                        ". Nothing was executed. An operator decides elsewhere; do not call it "
                        "again until it is approved.");
      }
      return text;
    case ApprovalStatus::kRejected:
      absl::StrAppend(&text, ": REJECTED by the operator.");
      if (!approval.note.empty()) {
        absl::StrAppend(&text, " The operator's note: ", json::Quoted(approval.note, 500), ".");
      }
      absl::StrAppend(&text, " It was not executed.");
      return text;
    case ApprovalStatus::kExpired:
      absl::StrAppend(&text, ": EXPIRED. It was not executed.");
      return text;
    case ApprovalStatus::kApproved:
      break;
  }
  // Approved: what came of it. Approvals are listed in the order they were made (their times
  // may be equal on a clock that did not move).
  std::size_t at = 0;
  while (at < approvals.size() && approvals[at].id != approval.id) ++at;
  for (std::size_t i = at + 1; i < approvals.size(); ++i) {
    const Approval& later = approvals[i];
    if (later.step_id == approval.step_id && later.kind != kInterruptedSideEffectKind) {
      absl::StrAppend(&text,
                      ": APPROVED, and then a different approval was asked for the same call "
                      "(approval ",
                      later.id, ").");
      return text;
    }
  }
  absl::StatusOr<std::vector<agentrt::Step>> steps = ReadSteps(store_, run.id);
  const agentrt::Step* step = nullptr;
  if (steps.ok()) {
    for (const agentrt::Step& s : *steps) {
      if (s.id == approval.step_id) step = &s;
    }
  }
  if (step != nullptr && step->observation &&
      (step->observation->kind == ObservationKind::kToolResult ||
       step->observation->kind == ObservationKind::kToolError ||
       (step->observation->kind == ObservationKind::kInterrupted &&
        MemberOf(step->observation->content, "previous_status") ==
            ToString(StepStatus::kExecuting)))) {
    absl::StrAppend(&text, ": APPROVED and executed, ");
    const Observation& obs = *step->observation;
    std::string error = MemberOf(obs.content, "error");
    std::string ended;
    const GovernedTool* governed = Find(step->decision ? step->decision->tool : "");
    bool unknown = obs.kind == ObservationKind::kInterrupted ||
                   (obs.kind == ObservationKind::kToolError &&
                    ClassifyToolError(governed, governed != nullptr && !governed->mutating(),
                                      obs.content, &ended) == Known::kUnknown);
    if (obs.kind == ObservationKind::kToolResult) {
      absl::StrAppend(&text, "and it succeeded.");
    } else if (!unknown &&
               MemberOf(obs.content, "failure") == ToString(ToolFailure::kInvalidContent)) {
      absl::StrAppend(&text, "and the server answered, but its result could not be recorded (",
                      Clean(error, 500), "); it may have taken effect.");
    } else if (!unknown) {
      absl::StrAppend(&text, "and the server reported a failure: ", Clean(error, 500), ".");
    } else {
      Attempt attempt{run.id, step->id, "", ended.empty() ? "cut_off" : ended};
      absl::StrAppend(&text, "but it ", attempt.How(),
                      ", so whether it took effect is unknown: it may have. ");
      std::string next;
      for (std::size_t i = at + 1; i < approvals.size() && next.empty(); ++i) {
        if (approvals[i].kind == kInterruptedSideEffectKind && StillLive(approvals[i], now)) {
          next = approvals[i].id;
        }
      }
      if (next.empty()) next = AskedAgain(request_key, run.id);
      if (!next.empty()) {
        absl::StrAppend(&text, "Approval ", next,
                        " now waits for an operator to decide whether it runs again.");
      } else {
        absl::StrAppend(&text, "No approval to run it again is waiting now.");
      }
    }
    return text;
  }
  if (run.status == RunStatus::kWaitingForApproval) {
    absl::StrAppend(&text, ": APPROVED, awaiting collection. Call ", tool,
                    " again with exactly the same arguments to run it and get the result.");
    return text;
  }
  if (run.status == RunStatus::kRunning) {
    absl::StrAppend(&text, ": APPROVED and executing now.");
    return text;
  }
  std::string why;
  if (step != nullptr && step->observation &&
      step->observation->kind == ObservationKind::kPolicyDenied) {
    why = "the policy denied it when it was collected";
  } else if (step != nullptr && step->observation &&
             step->observation->kind == ObservationKind::kInvalidDecision) {
    why = "its arguments no longer matched the tool's schema when it was collected";
  } else if (run.reason == reason::kOperatorCancelled) {
    why = "an operator cancelled it";
  } else if (run.reason == reason::kApprovalExpired) {
    why = "the approval expired before it was collected";
  } else {
    why = absl::StrCat("its run ended (", Clean(run.reason, 64), ")");
  }
  absl::StrAppend(&text, ": APPROVED but not executed: ", why, ".");
  return text;
}

Answer Proxy::Impl::Status(std::string_view arguments) {
  std::string approval_id;
  bool bad = false;
  {
    std::string args = arguments.empty() ? "{}" : std::string(arguments);
    absl::StatusOr<json::Document> doc = json::Parse(args);
    if (doc.ok() && doc->root().is_null()) {
      // null is {}
    } else if (!doc.ok() || !doc->root().is_object()) {
      bad = true;
    } else {
      for (std::size_t i = 0; i < doc->root().size(); ++i) {
        if (doc->root().key(i) != "approval_id" || !doc->root().member(i).is_string()) {
          bad = true;
        } else {
          approval_id = std::string(doc->root().member(i).string_value());
        }
      }
    }
  }
  if (bad) return Invalid("the only argument is approval_id, a string");
  absl::Time now = Now();
  std::vector<rows::ProxyCall> recent;
  absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        recent, rows::RecentProxyCalls(tx, settings_.session,
                                       world::FormatTimestamp(now - absl::Hours(1)), kMostRows));
    return absl::OkStatus();
  });
  if (!read.ok()) return StatusAnswer("the gate could not read its records. Tell the user.");
  std::vector<std::string> waiting;
  for (const rows::ProxyCall& row : recent) {
    absl::StatusOr<Run> run = ReadRun(store_, row.run_id);
    if (!run.ok()) continue;
    absl::StatusOr<std::vector<Approval>> approvals = ListApprovals(store_, row.run_id);
    if (!approvals.ok()) return StatusAnswer("the gate could not read its records. Tell the user.");
    for (const Approval& a : *approvals) {
      if (!approval_id.empty() && a.id == approval_id) {
        return StatusAnswer(Describe(*run, row.request_key, a, *approvals));
      }
      if (approval_id.empty() && run->status == RunStatus::kWaitingForApproval &&
          a.status == ApprovalStatus::kPending && &a == &approvals->back()) {
        waiting.push_back("- " + Describe(*run, row.request_key, a, *approvals));
      }
    }
  }
  if (!approval_id.empty()) {
    return StatusAnswer(absl::StrCat("no approval ", Clean(approval_id, 128),
                                     " is known in this session from the last hour."));
  }
  if (waiting.empty()) {
    return StatusAnswer("no request in this session is waiting for an operator's approval.");
  }
  std::string text = waiting.size() == 1
                         ? "1 request in this session is waiting for an operator's approval:"
                         : absl::StrCat(waiting.size(),
                                        " requests in this session are waiting for an operator's "
                                        "approval:");
  for (const std::string& line : waiting) absl::StrAppend(&text, "\n", line);
  return StatusAnswer(std::move(text));
}

}  // namespace agentrt::proxy
