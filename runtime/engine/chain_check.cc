#include "runtime/engine/chain_check.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/event_payloads.h"
#include "runtime/world/timestamp.h"

namespace agentrt::chain {
namespace {

constexpr std::string_view kChainTypes[] = {event::kRunCreated,        event::kRunFinished,
                                            event::kStepStarted,       event::kStepDecided,
                                            event::kApprovalRequested, event::kApprovalDecided};
// What each check reads of them: an approval needs the run's limits (its expiry) and its own
// events; a run and a step need theirs.
constexpr std::string_view kApprovalTypes[] = {event::kRunCreated, event::kApprovalRequested,
                                               event::kApprovalDecided};
constexpr std::string_view kRunAndStepTypes[] = {event::kRunCreated, event::kRunFinished,
                                                 event::kStepStarted, event::kStepDecided};

// A stored value as a message shows it: escaped, cut, quoted.
std::string Shown(std::string_view text) {
  return absl::StrCat("\"", json::Sanitize(json::Truncate(text, 80)), "\"");
}

// A hash as a message shows it: enough to tell two apart.
std::string ShortHash(std::string_view hash) {
  return json::Sanitize(hash.size() > 12 ? absl::StrCat(ToAbsl(hash.substr(0, 12)), "…")
                                         : std::string(hash));
}

// The same instant, whichever way it was written ("" for none on both sides).
bool SameTime(absl::Time row, std::string_view event_at) {
  absl::StatusOr<absl::Time> at = world::ParseTimestamp(event_at);
  return at.ok() && *at == row;
}

std::string Canonical(std::string_view text) {
  absl::StatusOr<std::string> c = json::Canonicalize(text);
  return c.ok() ? *std::move(c) : std::string(text);
}

// The expiry a pending approval requested at `requested_at` has under the run's recorded limits
// (InfinitePast for none, as Approval::expires_at reads).
absl::Time ExpectedExpiry(const RunChain& chain, std::string_view requested_at) {
  absl::StatusOr<json::Document> limits = json::Parse(chain.limits.empty() ? "{}" : chain.limits);
  absl::StatusOr<absl::Time> at = world::ParseTimestamp(requested_at);
  if (!limits.ok() || !at.ok()) return absl::InfinitePast();
  absl::Duration ttl = rows::LimitsFromJson(limits->root()).approval_ttl;
  if (ttl <= absl::ZeroDuration()) return absl::InfinitePast();
  return *at + ttl;
}

absl::Status Tampered(std::string_view what, std::string_view difference,
                      std::string_view refused_what) {
  return absl::DataLossError(absl::StrCat(
      ToAbsl(what), " does not match the audit chain: ", ToAbsl(difference),
      "; the database was changed after it was written, so nothing was ", ToAbsl(refused_what)));
}

}  // namespace

std::span<const std::string_view> ChainTypes() { return kChainTypes; }

RunChain Fold(const std::vector<rows::ChainEvent>& events) {
  RunChain chain;
  for (const rows::ChainEvent& e : events) {
    std::optional<json::Document> doc = records::PayloadObject(e.payload);
    if (!doc) {
      chain.unreadable.push_back(absl::StrCat("seq ", e.seq, " (", json::Sanitize(e.type), ")"));
      continue;
    }
    json::Value p = doc->root();
    if (e.type == event::kRunCreated) {
      records::RunCreated created = records::RunCreated::From(p);
      ++chain.created;
      chain.goal = std::move(created.goal);
      chain.limits = std::move(created.limits_json);
    } else if (e.type == event::kRunFinished) {
      records::RunFinished f = records::RunFinished::From(p);
      chain.finished = RunChain::Finished{std::move(f.status), std::move(f.reason),
                                          std::move(f.detail), f.steps, e.at};
    } else if (e.type == event::kStepStarted) {
      RecordedStep& step = chain.steps[e.step_id];
      ++step.started;
      step.index = records::StepStarted::From(p).index;
    } else if (e.type == event::kStepDecided) {
      RecordedStep& step = chain.steps[e.step_id];
      ++step.decided;
      step.decision = e.payload;
    } else if (e.type == event::kApprovalRequested) {
      records::ApprovalRequested r = records::ApprovalRequested::From(p);
      RecordedApproval& a = chain.approvals[r.approval_id];
      ++a.requested;
      a.step_id = e.step_id;
      a.kind = std::move(r.kind);
      a.capability = std::move(r.capability);
      a.presentation = std::move(r.presentation);
      a.hash = std::move(r.hash);
      a.at = e.at;
    } else if (e.type == event::kApprovalDecided) {
      records::ApprovalDecided d = records::ApprovalDecided::From(p);
      chain.approvals[d.approval_id].decisions.push_back(
          {std::move(d.status_text), std::move(d.by), std::move(d.note), e.at});
    }
  }
  return chain;
}

std::vector<std::string> RunDisagreements(const rows::RunRow& row, const RunChain& chain) {
  std::vector<std::string> out;
  if (chain.created == 0) {
    out.push_back("the chain holds no run.created for it");
  } else {
    if (chain.created > 1)
      out.push_back(absl::StrCat("run.created is recorded ", chain.created, " times"));
    if (row.goal != chain.goal) out.push_back("its goal differs from the one run.created recorded");
    if (Canonical(row.limits_json) != chain.limits) {
      out.push_back(absl::StrCat("its limits ", Shown(row.limits_json),
                                 " differ from the ones run.created recorded ",
                                 Shown(chain.limits)));
    }
  }
  std::optional<RunStatus> status = ParseRunStatus(row.status);
  if (!status.has_value()) {
    out.push_back(absl::StrCat("its status ", Shown(row.status), " is not a run status"));
  } else if (IsTerminal(*status) && !chain.finished.has_value()) {
    out.push_back(absl::StrCat("it is ", row.status, ", but the chain holds no run.finished"));
  } else if (!IsTerminal(*status) && chain.finished.has_value()) {
    out.push_back(absl::StrCat("it is ", row.status, ", but the chain recorded it finished ",
                               Shown(chain.finished->status), " (", Shown(chain.finished->reason),
                               ")"));
  } else if (chain.finished.has_value()) {
    const RunChain::Finished& f = *chain.finished;
    if (row.status != f.status || row.reason != f.reason) {
      out.push_back(absl::StrCat("it ended ", Shown(row.status), " (", Shown(row.reason),
                                 "), but run.finished recorded ", Shown(f.status), " (",
                                 Shown(f.reason), ")"));
    }
    if (row.reason_detail != f.detail) {
      out.push_back(absl::StrCat("its end detail ", Shown(row.reason_detail),
                                 " differs from run.finished's ", Shown(f.detail)));
    }
    if (row.step_count != f.steps) {
      out.push_back(absl::StrCat("its step count ", row.step_count, " differs from run.finished's ",
                                 f.steps));
    }
    if (row.finished_at != f.at) {
      out.push_back(absl::StrCat("its end time ", Shown(row.finished_at),
                                 " differs from run.finished's ", Shown(f.at)));
    }
  }
  return out;
}

std::vector<std::string> StepDisagreements(const rows::StepRow& row, const RunChain& chain) {
  std::vector<std::string> out;
  auto it = chain.steps.find(row.id);
  const RecordedStep* recorded = it == chain.steps.end() ? nullptr : &it->second;
  if (recorded == nullptr || recorded->started == 0) {
    out.push_back("the chain holds no step.started for it");
  } else {
    if (recorded->started > 1) {
      out.push_back(absl::StrCat("step.started is recorded ", recorded->started, " times"));
    }
    if (recorded->index != row.index) {
      out.push_back(
          absl::StrCat("its index ", row.index, " differs from step.started's ", recorded->index));
    }
  }
  static constexpr StepStatus kStatuses[] = {StepStatus::kDeciding,  StepStatus::kAwaitingApproval,
                                             StepStatus::kExecuting, StepStatus::kDone,
                                             StepStatus::kFailed,    StepStatus::kInterrupted};
  bool known = false;
  for (StepStatus s : kStatuses) known = known || ToString(s) == row.status;
  if (!known)
    out.push_back(absl::StrCat("its status ", Shown(row.status), " is not a step status"));
  int decided = recorded == nullptr ? 0 : recorded->decided;
  if (decided > 1) out.push_back(absl::StrCat("step.decided is recorded ", decided, " times"));
  if (row.decision_json.empty() && decided > 0) {
    out.push_back("its decision is empty, but the chain recorded step.decided");
  } else if (!row.decision_json.empty() && decided == 0) {
    out.push_back("it holds a decision, but the chain holds no step.decided for it");
  } else if (decided > 0 && row.decision_json != recorded->decision) {
    out.push_back(absl::StrCat("its decision ", Shown(row.decision_json),
                               " differs from the one step.decided recorded ",
                               Shown(recorded->decision)));
  }
  return out;
}

std::vector<std::string> ApprovalDisagreements(const Approval& row, const RunChain& chain) {
  std::vector<std::string> out;
  // As stored: an unknown status reads as pending, but is not what the chain says.
  std::string stored_status =
      row.unknown_status.empty() ? std::string(ToString(row.status)) : row.unknown_status;
  if (absl::Status own = VerifyApprovalHash(row); !own.ok()) {
    out.push_back("its hash does not match its own request");
  }
  auto it = chain.approvals.find(row.id);
  if (it == chain.approvals.end() || it->second.requested == 0) {
    out.push_back("the chain holds no approval.requested for it");
    return out;
  }
  const RecordedApproval& r = it->second;
  if (r.requested > 1) {
    out.push_back(absl::StrCat("approval.requested is recorded ", r.requested, " times"));
  }
  if (r.hash != row.hash) {
    out.push_back(absl::StrCat("its hash ", ShortHash(row.hash),
                               " is not the one approval.requested recorded (", ShortHash(r.hash),
                               "): its request, kind, capability or presentation was replaced"));
  }
  if (r.step_id != row.step_id) {
    out.push_back(absl::StrCat("its step ", Shown(row.step_id),
                               " is not the one approval.requested recorded ", Shown(r.step_id)));
  }
  if (r.kind != row.kind) {
    out.push_back(absl::StrCat("its kind ", Shown(row.kind), " differs from approval.requested's ",
                               Shown(r.kind)));
  }
  if (r.capability != row.capability || r.presentation != row.presentation) {
    out.push_back("its capability or presentation differs from approval.requested's");
  }
  if (!SameTime(row.created_at, r.at)) {
    out.push_back(
        absl::StrCat("its creation time differs from approval.requested's ", Shown(r.at)));
  }
  if (world::FormatTimestamp(row.expires_at) !=
      world::FormatTimestamp(ExpectedExpiry(chain, r.at))) {
    out.push_back(absl::StrCat("its expiry ", Shown(world::FormatTimestamp(row.expires_at)),
                               " is not the one the run's recorded approval TTL gives ",
                               Shown(world::FormatTimestamp(ExpectedExpiry(chain, r.at)))));
  }
  // The status the decisions leave, and the decision that decided it.
  std::string recorded_status = r.decisions.empty() ? "pending" : r.decisions.back().status;
  if (stored_status != recorded_status) {
    out.push_back(absl::StrCat("it is ", Shown(stored_status), ", but the chain recorded it ",
                               Shown(recorded_status)));
    return out;
  }
  if (r.decisions.empty()) {
    if (row.decided_at != absl::InfinitePast() || !row.decided_by.empty() || !row.note.empty()) {
      out.push_back("it is pending, but holds a decision");
    }
    return out;
  }
  const RecordedApproval::Decided& first = r.decisions.front();
  if (!SameTime(row.decided_at, first.at)) {
    out.push_back(absl::StrCat("its decision time ", Shown(world::FormatTimestamp(row.decided_at)),
                               " differs from approval.decided's ", Shown(first.at)));
  }
  // An expiry of a pending approval decides it with the note "expired" and no one's name.
  bool by_expiry = first.status == "expired";
  std::string by = by_expiry ? "" : first.by;
  std::string note = by_expiry ? "expired" : first.note;
  if (row.decided_by != by || row.note != note) {
    out.push_back(absl::StrCat("it was decided by ", Shown(row.decided_by), " with the note ",
                               Shown(row.note), ", but approval.decided recorded ", Shown(by),
                               " and ", Shown(note)));
  }
  return out;
}

namespace {

// The approval's part of CheckApproval, against a chain already read.
absl::Status ApprovalAgrees(const Approval& approval, const RunChain& chain,
                            std::string_view refused_what) {
  std::vector<std::string> differences = ApprovalDisagreements(approval, chain);
  if (differences.empty()) return absl::OkStatus();
  return ApprovalTamperedError(ToStd(
      Tampered(absl::StrCat("approval ", json::Sanitize(approval.id)), differences[0], refused_what)
          .message()));
}

// The rows' part of CheckRunAndStep, against a chain already read.
absl::Status RunAndStepAgree(store::Transaction& tx, std::string_view run_id,
                             std::string_view step_id, const RunChain& chain,
                             std::string_view refused_what) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunRow> run, rows::ReadRunRow(tx, run_id));
  if (run.has_value()) {
    std::vector<std::string> differences = RunDisagreements(*run, chain);
    if (!differences.empty()) {
      return Tampered(absl::StrCat("run ", json::Sanitize(run_id)), differences[0], refused_what);
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::StepRow> steps,
                           rows::ReadStepRows(tx, run_id, step_id));
  for (const rows::StepRow& step : steps) {
    std::vector<std::string> differences = StepDisagreements(step, chain);
    if (!differences.empty()) {
      return Tampered(absl::StrCat("step ", step.index, " of run ", json::Sanitize(run_id)),
                      differences[0], refused_what);
    }
  }
  return absl::OkStatus();
}

// The chain of `run_id` as far as `types` and step `step_id` (and the run's own events) go.
absl::StatusOr<RunChain> ReadChain(store::Transaction& tx, std::string_view run_id,
                                   std::span<const std::string_view> types,
                                   std::string_view step_id) {
  AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::ChainEvent> events,
                           rows::ReadChainEvents(tx, run_id, types, step_id));
  return Fold(events);
}

}  // namespace

absl::Status CheckApproval(store::Transaction& tx, const Approval& approval,
                           std::string_view refused_what) {
  AGENTRT_ASSIGN_OR_RETURN(RunChain chain,
                           ReadChain(tx, approval.run_id, kApprovalTypes, approval.step_id));
  return ApprovalAgrees(approval, chain, refused_what);
}

absl::Status CheckRunAndStep(store::Transaction& tx, std::string_view run_id,
                             std::string_view step_id, std::string_view refused_what) {
  AGENTRT_ASSIGN_OR_RETURN(RunChain chain, ReadChain(tx, run_id, kRunAndStepTypes, step_id));
  return RunAndStepAgree(tx, run_id, step_id, chain, refused_what);
}

absl::Status CheckGrant(store::Transaction& tx, const Approval& approval,
                        std::string_view refused_what) {
  // One read of the events both checks need (kChainTypes is their union).
  AGENTRT_ASSIGN_OR_RETURN(RunChain chain,
                           ReadChain(tx, approval.run_id, kChainTypes, approval.step_id));
  AGENTRT_RETURN_IF_ERROR(
      RunAndStepAgree(tx, approval.run_id, approval.step_id, chain, refused_what));
  return ApprovalAgrees(approval, chain, refused_what);
}

}  // namespace agentrt::chain
