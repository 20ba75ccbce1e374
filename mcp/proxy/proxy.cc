#include "mcp/proxy/proxy.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "mcp/proxy/internal/proxy_impl.h"
#include "mcp/proxy/request_key.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/reasons.h"
#include "runtime/records/run_reader.h"
#include "runtime/scripted_agent.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/scheduler.h"
#include "runtime/world/timestamp.h"

namespace agentrt::proxy {
namespace {

constexpr int kRetries = 5;
// The answer when the records could not be read, before anything ran.
constexpr std::string_view kCouldNotRead =
    "the gate could not read its records, and nothing was executed";
constexpr std::int64_t kScan = 200;

// The proxy's closing decisions.
constexpr std::string_view kClosedError = "one call per run: the tool call returned an error";
constexpr std::string_view kClosedDenied = "one call per run: the request was denied";
constexpr std::string_view kClosedInvalid = "one call per run: the request was invalid";
constexpr std::string_view kClosedTakenOver =
    "one call per run: taken over after an interruption, with nothing left in it to execute";
constexpr std::string_view kClosedUnrecorded =
    "one call per run: the tool call executed and its result could not be recorded";

// The text block of a recorded result: a JSON string's contents, otherwise the JSON text.
std::string ResultText(std::string_view content) {
  absl::StatusOr<json::Document> doc = json::Parse(content.empty() ? "{}" : content);
  if (doc.ok() && doc->root().is_string()) return std::string(doc->root().string_value());
  return std::string(content.empty() ? "{}" : content);
}

bool IsObject(std::string_view content) {
  absl::StatusOr<json::Document> doc = json::Parse(content);
  return doc.ok() && doc->root().is_object();
}

// The answer for a call waiting on `approval`: a re-run's question says how the earlier attempt
// ended; an ordinary approval is pending.
Answer WaitingOn(const Approval& approval) {
  if (approval.kind != kInterruptedSideEffectKind) return PendingApproval(approval.id);
  std::optional<Attempt> attempt = InterruptedAttempt(approval);
  if (attempt && attempt->ended != "cut_off") {
    return UnknownOutcome(attempt->How(), "", approval.id);
  }
  return Interrupted(approval.id);
}

const Approval* LatestOf(const std::vector<Approval>& approvals) {
  return approvals.empty() ? nullptr : &approvals.back();
}

}  // namespace

std::string MemberOf(std::string_view content, std::string_view key) {
  absl::StatusOr<json::Document> doc = json::Parse(content);
  if (!doc.ok() || !doc->root().is_object()) return "";
  return json::MemberText(doc->root(), key);
}

Proxy::Impl::Impl(store::Store& store, const world::World& world, ProxySettings settings,
                  std::vector<GovernedTool> tools, std::function<void(std::string_view)> log)
    : store_(store),
      world_(world),
      settings_(std::move(settings)),
      tools_(std::move(tools)),
      log_(std::move(log)) {}

absl::Status Proxy::Impl::Init() {
  policy_ = std::make_unique<ProxyPolicy>(settings_.policy, tools_, settings_.policy_id);
  DriverOptions options;
  options.policy = policy_.get();
  for (const GovernedTool& t : tools_) {
    terminal_.push_back(std::make_unique<TerminalTool>(t.tool));
    options.tools.push_back(terminal_.back().get());
  }
  options.lease_owner = "agentrt-proxy:" + settings_.session;
  options.lease_ttl = settings_.lease_ttl;
  options.scheduler = world_.scheduler;
  // A run found cut off mid-call: a mutating call's outcome is unknown, so it waits for an
  // operator on an interruption approval naming the step; anything else goes on (the proxy then
  // ends it).
  options.reconcile = [this](const RunView& view) -> absl::StatusOr<Reconciliation> {
    Reconciliation r;
    // The latest step cut off while executing; a proxy's run is one call, so its history is
    // short and held.
    std::optional<agentrt::Step> cut_off;
    AGENTRT_RETURN_IF_ERROR(view.steps.ForEach([&](const agentrt::Step& step) {
      if (step.status == StepStatus::kInterrupted && step.observation && step.decision &&
          MemberOf(step.observation->content, "previous_status") ==
              ToString(StepStatus::kExecuting)) {
        cut_off = step;
      }
      return absl::OkStatus();
    }));
    if (cut_off) {
      const agentrt::Step& step = *cut_off;
      const GovernedTool* tool = Find(step.decision->tool);
      if (tool != nullptr && !tool->mutating()) return r;
      Attempt attempt{view.run.id, step.id, world::FormatTimestamp(step.started_at), "cut_off"};
      r.outcome = Reconciliation::Outcome::kWaiting;
      r.detail = tool == nullptr ? "the tool is no longer offered" : "";
      if (tool != nullptr) {
        absl::StatusOr<std::string> args =
            json::Canonicalize(step.decision->args.empty() ? "{}" : step.decision->args);
        if (!args.ok()) return r;
        r.pause = policy_->Interruption(*tool, *args, attempt);
      }
      return r;
    }
    return r;
  };
  AGENTRT_ASSIGN_OR_RETURN(
      driver_, Driver::Create(store_, *world_.clock, *world_.entropy, std::move(options)));
  return absl::OkStatus();
}

absl::Time Proxy::Impl::Now() const { return world_.clock->Now(); }

const GovernedTool* Proxy::Impl::Find(std::string_view name) const { return policy_->Find(name); }

std::vector<ToolSpec> Proxy::Impl::Tools() const {
  std::vector<ToolSpec> out;
  for (const GovernedTool& t : tools_) out.push_back(t.tool->Spec());
  out.push_back(StatusSpec(settings_.status_tool));
  return out;
}

Limits Proxy::Impl::RunLimits() const {
  Limits limits;
  limits.max_steps = 3;
  limits.max_consecutive_tool_failures = 3;
  limits.loop_threshold = 3;
  limits.approval_ttl = settings_.approval_ttl;
  limits.grant_ttl = settings_.grant_ttl;
  return limits;
}

std::string Proxy::Impl::NewRunId() {
  // `<session>.<16 hex>`: half of a fresh id is as unlikely to meet another as run ids need.
  return absl::StrCat(settings_.session, ".", world_.entropy->NewId().substr(0, 16));
}

absl::StatusOr<std::optional<Run>> Proxy::Impl::RunOf(const std::string& run_id) {
  absl::StatusOr<Run> run = ReadRun(store_, run_id);
  if (absl::IsNotFound(run.status())) return std::nullopt;
  if (!run.ok()) return run.status();
  return *std::move(run);
}

absl::StatusOr<std::vector<Approval>> Proxy::Impl::ApprovalsOf(const std::string& run_id) {
  return ListApprovals(store_, run_id);
}

absl::StatusOr<bool> Proxy::Impl::LeaseLive(const std::string& run_id) {
  AGENTRT_ASSIGN_OR_RETURN(RunLease lease, ReadLease(store_, run_id));
  if (lease.owner.empty()) return false;
  absl::StatusOr<absl::Time> expires = world::ParseTimestamp(lease.expires_at);
  return expires.ok() && *expires > world_.scheduler->clock().Now();
}

bool Proxy::Impl::PastExpiry(const Approval& a, absl::Time now) const {
  return a.status == ApprovalStatus::kPending && a.expires_at != absl::InfinitePast() &&
         now > a.expires_at;
}

bool Proxy::Impl::StillLive(const Approval& a, absl::Time now) const {
  if (a.status == ApprovalStatus::kPending) return !PastExpiry(a, now);
  if (a.status == ApprovalStatus::kApproved) {
    return settings_.grant_ttl <= absl::ZeroDuration() || now <= a.decided_at + settings_.grant_ttl;
  }
  return false;
}

absl::StatusOr<LastAttempt> Proxy::Impl::LastOf(const std::string& run_id,
                                                std::vector<agentrt::Step>* steps,
                                                std::vector<Approval>* approvals) {
  AGENTRT_ASSIGN_OR_RETURN(RunHistory history, ReadHistory(store_, run_id));
  *steps = std::move(history.steps);
  *approvals = std::move(history.approvals);
  return FindLastAttempt(run_id, *steps, *approvals,
                         [this](std::string_view name) { return Find(name); });
}

absl::StatusOr<Proxy::Impl::Examined> Proxy::Impl::Examine(const rows::ProxyCall& row) {
  Examined e;
  std::string at = world::FormatTimestamp(Now());
  AGENTRT_ASSIGN_OR_RETURN(e.run, RunOf(row.run_id));
  if (!e.run) {
    AGENTRT_RETURN_IF_ERROR(store_.Write([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(bool settled, rows::SettleUnbegunProxyCall(tx, row.id, at));
      if (settled) e.outcome = rows::CallOutcome::kNone;  // else its run began meanwhile
      return absl::OkStatus();
    }));
    return e;
  }
  if (!IsTerminal(e.run->status)) return e;
  AGENTRT_ASSIGN_OR_RETURN(e.last, LastOf(row.run_id, &e.steps, &e.approvals));
  e.outcome = e.last.kind == LastAttempt::Kind::kNone    ? rows::CallOutcome::kNone
              : e.last.kind == LastAttempt::Kind::kKnown ? rows::CallOutcome::kKnown
                                                         : rows::CallOutcome::kUnknown;
  if (row.settled_at.empty()) {
    AGENTRT_RETURN_IF_ERROR(store_.Write(
        [&](store::Transaction& tx) { return rows::SettleProxyCall(tx, row.id, at, *e.outcome); }));
  }
  return e;
}

absl::StatusOr<std::optional<rows::CallOutcome>> Proxy::Impl::Settle(const rows::ProxyCall& row) {
  if (row.outcome != rows::CallOutcome::kUnseen && !row.settled_at.empty()) return row.outcome;
  AGENTRT_ASSIGN_OR_RETURN(Examined e, Examine(row));
  return e.outcome;
}

void Proxy::Impl::Hint(const Run& run, const Approval& approval) {
  std::string tool = MemberOf(approval.capability, "name");
  log_(absl::StrCat("approval ", approval.id, " (", approval.kind, ") for ", tool,
                    " waits for an operator: run ", run.id));
  log_(absl::StrCat("  decide with: agentrt approve ", run.id, " --approval ", approval.id,
                    " --db \"", settings_.database, "\"   (or reject)"));
}

Proxy::Impl::Step Proxy::Impl::Pending(const Run& run) {
  absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(run.id);
  if (!approvals.ok() || approvals->empty()) {
    return Say(Unavailable(kCouldNotRead));
  }
  const Approval& latest = approvals->back();
  Hint(run, latest);
  // A re-run's question is not held: the operator decides about an unknown outcome.
  if (latest.kind == kInterruptedSideEffectKind) {
    return Step{Step::Kind::kAnswer, WaitingOn(latest), run.id, latest.id};
  }
  return Step{Step::Kind::kHold, {}, run.id, latest.id};
}

void Proxy::Impl::Close(GateSession& session, std::string_view why) {
  absl::StatusOr<bool> open = session.Step();
  if (!open.ok() || !*open) return;
  Decision d = scripted::Fail(std::string(why));
  d.origin = "operator";
  session.Propose(d).IgnoreError();
}

Answer Proxy::Impl::Call(std::string_view name, std::string_view arguments, const HostCall& host) {
  if (name == settings_.status_tool) return Status(arguments);
  std::string args = HostArguments(arguments);
  std::optional<std::string> key = RequestKey(name, args);
  const GovernedTool* tool = Find(name);
  bool held = false;
  for (int attempt = 0; attempt <= kRetries; ++attempt) {
    Step step;
    {
      absl::MutexLock lock(&mu_);
      step = Decide(tool, name, args, key);
    }
    if (step.kind == Step::Kind::kAnswer) return step.answer;
    if (step.kind == Step::Kind::kRetry) continue;
    // Held: only once a call, only with a hold, and only while the host waits.
    bool host_gone = host.gone != nullptr && host.gone->HasBeenNotified();
    if (held || settings_.hold <= absl::ZeroDuration() || host_gone ||
        stopping_.HasBeenNotified()) {
      return PendingApproval(step.approval_id);
    }
    held = true;
    absl::Time start = Now();
    absl::Time end = start + settings_.hold;
    absl::Time reported = start;
    while (true) {
      absl::Time next = std::min(end, Now() + settings_.poll);
      if (world_.clock->WaitUntil(stopping_, next)) break;
      if (host.gone != nullptr && host.gone->HasBeenNotified()) break;
      absl::StatusOr<Approval> a = GetApproval(store_, step.run_id, step.approval_id);
      if (!a.ok() || a->status != ApprovalStatus::kPending || PastExpiry(*a, Now())) break;
      if (host.progress && Now() - reported >= absl::Seconds(1)) {
        reported = Now();
        host.progress(absl::ToDoubleSeconds(Now() - start), absl::ToDoubleSeconds(settings_.hold));
      }
      if (Now() >= end) break;
    }
    attempt = -1;  // a decided approval is collected by deciding again
    if (stopping_.HasBeenNotified() || (host.gone != nullptr && host.gone->HasBeenNotified()) ||
        Now() >= end) {
      absl::StatusOr<Approval> a = GetApproval(store_, step.run_id, step.approval_id);
      if (a.ok() && a->status == ApprovalStatus::kPending && !PastExpiry(*a, Now())) {
        return PendingApproval(step.approval_id);
      }
    }
  }
  return InProgress();
}

Proxy::Impl::Step Proxy::Impl::Decide(const GovernedTool* tool, std::string_view name,
                                      std::string_view args,
                                      const std::optional<std::string>& key) {
  // Rule 0, and a tool the proxy does not offer: a run of its own records it, under an index
  // row of its own that nothing matches (`invalid:<run id>`).
  if (!key || tool == nullptr) return Fresh(tool, name, args, "", "", 0, std::nullopt, false);
  absl::Time now = Now();
  absl::Duration window = tool->repeat_window;
  std::string since = world::FormatTimestamp(window > absl::ZeroDuration() ? now - window : now);
  std::vector<rows::ProxyCall> found;
  absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
    // The open row first (it is listed first): the closed ones only when the window may need
    // them.
    AGENTRT_ASSIGN_OR_RETURN(found, rows::ProxyCallsForKey(tx, settings_.session, *key, since, 1));
    return absl::OkStatus();
  });
  if (!read.ok()) {
    return Say(Unavailable(kCouldNotRead));
  }
  std::string reuse;
  std::int64_t seen_open = 0;
  if (!found.empty() && found.front().open) {
    seen_open = found.front().id;
    if (std::optional<Step> decided = OpenRow(*tool, found.front(), &reuse)) return *decided;
  }
  std::optional<std::pair<PolicyOutcome, std::string>> decision = policy_->Decide(name);
  PolicyOutcome outcome = decision ? decision->first : PolicyOutcome::kDeny;
  // A read the policy allows is never asked about, so no earlier one can refuse it: its
  // repeats cost nothing however many there were.
  bool free_read = !tool->mutating() && outcome == PolicyOutcome::kAllow;
  if (!free_read && window > absl::ZeroDuration()) {
    absl::Status closed = store_.Read([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(found,
                               rows::ProxyCallsForKey(tx, settings_.session, *key, since, kScan));
      return absl::OkStatus();
    });
    if (!closed.ok()) {
      return Say(Unavailable(kCouldNotRead));
    }
    if (std::optional<Step> refused = Window(*tool, found)) return *refused;
  }
  std::optional<Attempt> prior;
  if (std::optional<Step> blocked = Unresolved(*tool, *key, outcome, &prior)) return *blocked;
  return Fresh(tool, name, args, *key, reuse, seen_open, prior, false);
}

std::optional<Proxy::Impl::Step> Proxy::Impl::OpenRow(const GovernedTool& tool,
                                                      const rows::ProxyCall& row,
                                                      std::string* reuse) {
  absl::StatusOr<std::optional<Run>> run = RunOf(row.run_id);
  if (!run.ok()) {
    return Say(Unavailable(kCouldNotRead));
  }
  if (!run->has_value()) {
    *reuse = row.run_id;  // claimed, never begun: this call begins it
    return std::nullopt;
  }
  if (IsTerminal((*run)->status)) return std::nullopt;
  if ((*run)->status == RunStatus::kWaitingForApproval) {
    absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(row.run_id);
    if (!approvals.ok()) {
      return Say(Unavailable(kCouldNotRead));
    }
    const Approval* latest = LatestOf(*approvals);
    if (latest == nullptr) return Say(InProgress());
    if (latest->status == ApprovalStatus::kPending && !PastExpiry(*latest, Now())) {
      // Still waiting for an operator to decide about an unknown outcome: no hold.
      if (latest->kind == kInterruptedSideEffectKind) return Say(WaitingOn(*latest));
      return Step{Step::Kind::kHold, {}, row.run_id, latest->id};
    }
    if (latest->status == ApprovalStatus::kPending || latest->status == ApprovalStatus::kApproved) {
      // Expired (the gate expires it and cancels the run) or granted: attach.
      return Collect(tool, row.run_id);
    }
    return Say(InProgress());
  }
  // RUNNING: someone executes it, or its owner died.
  absl::StatusOr<bool> live = LeaseLive(row.run_id);
  if (!live.ok()) {
    return Say(Unavailable(kCouldNotRead));
  }
  if (*live) return Say(InProgress());
  bool pending = false;
  return Recover(tool, row.run_id, &pending);
}

Proxy::Impl::Step Proxy::Impl::Refused(const std::string& run_id, const absl::Status& status,
                                       std::string_view what) {
  // The run moved under us (another owner decided, resumed or ended it): decide again.
  if (IsRunStateError(status)) return Retry();
  // Another owner holds it, or this process is executing it: judged by the lease as stored,
  // never by the refusal's words.
  absl::StatusOr<bool> live = LeaseLive(run_id);
  if (live.ok() && *live) return Say(InProgress());
  return Say(Unavailable(what));
}

std::optional<Proxy::Impl::Step> Proxy::Impl::Collect(const GovernedTool& tool,
                                                      const std::string& run_id) {
  auto attached = driver_->Attach(run_id);
  if (!attached.ok()) {
    return Refused(run_id, attached.status(),
                   "the gate could not collect the approved request, and nothing was executed");
  }
  auto& [session, verdict] = *attached;
  switch (verdict.outcome) {
    case GateVerdict::Outcome::kAllowed:
      return Execute(tool, *session);
    case GateVerdict::Outcome::kPending:
      return Pending(verdict.run);
    case GateVerdict::Outcome::kDenied: {
      bool invalid =
          verdict.observation && verdict.observation->kind == ObservationKind::kInvalidDecision;
      std::string why = verdict.observation
                            ? MemberOf(verdict.observation->content, invalid ? "error" : "reason")
                            : "";
      Close(*session, invalid ? kClosedInvalid : kClosedDenied);
      return Say(invalid ? Invalid(why) : Denied(why));
    }
    case GateVerdict::Outcome::kOpen:
      Close(*session, kClosedTakenOver);
      return std::nullopt;
    case GateVerdict::Outcome::kEnded:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Proxy::Impl::Step> Proxy::Impl::Recover(const GovernedTool& tool,
                                                      const std::string& run_id, bool* pending) {
  auto attached = driver_->Attach(run_id);
  if (!attached.ok()) {
    return Refused(run_id, attached.status(),
                   "the gate could not recover an earlier attempt of this request, and nothing "
                   "was executed");
  }
  auto& [session, verdict] = *attached;
  if (verdict.outcome == GateVerdict::Outcome::kPending) {
    *pending = true;
    absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(run_id);
    if (!approvals.ok() || approvals->empty()) {
      return Say(Unavailable(kCouldNotRead));
    }
    log_(absl::StrCat("run ", run_id, ": a call to ", tool.name,
                      " was cut off while executing; its outcome is unknown"));
    Hint(verdict.run, approvals->back());
    return Say(WaitingOn(approvals->back()));
  }
  if (verdict.outcome == GateVerdict::Outcome::kEnded) return std::nullopt;
  if (verdict.outcome == GateVerdict::Outcome::kAllowed) return Execute(tool, *session);
  // A read cut off, a call cut off before executing, or one whose outcome was recorded: nothing
  // is left in the run to execute.
  Close(*session, kClosedTakenOver);
  return std::nullopt;
}

std::optional<Proxy::Impl::Step> Proxy::Impl::Window(const GovernedTool& tool,
                                                     const std::vector<rows::ProxyCall>& rows) {
  absl::Duration window = tool.repeat_window;
  if (window <= absl::ZeroDuration()) return std::nullopt;
  absl::Time now = Now();
  for (const rows::ProxyCall& row : rows) {
    absl::StatusOr<Examined> examined = Examine(row);
    if (!examined.ok()) return Say(Unavailable(kCouldNotRead));
    if (!examined->run || !IsTerminal(examined->run->status)) continue;
    const Run& r = *examined->run;
    if (r.finished_at < now - window) continue;
    absl::Time until = r.finished_at + window;
    const LastAttempt* last = &examined->last;
    const Approval* latest = LatestOf(examined->approvals);
    std::string approval_id = latest != nullptr ? latest->id : "";
    if (r.reason == reason::kApprovalRejected) {
      return Say(Rejected(approval_id, latest != nullptr ? latest->note : "", until, false));
    }
    if (r.reason == reason::kApprovalExpired) {
      if (last->kind == LastAttempt::Kind::kUnknown) return std::nullopt;
      return Say(Expired(approval_id, until));
    }
    if (r.reason == reason::kOperatorCancelled) {
      return Say(Rejected(approval_id, r.reason_detail, until, true));
    }
    if (!tool.mutating()) continue;
    if (last->kind == LastAttempt::Kind::kUnknown) return std::nullopt;
    if (last->kind == LastAttempt::Kind::kKnown && last->executed) {
      return Say(Duplicate(last->step->finished_at, window, OutcomeText(*last->step)));
    }
  }
  return std::nullopt;
}

std::string Proxy::Impl::OutcomeText(const agentrt::Step& step) {
  const Observation& obs = *step.observation;
  if (obs.kind == ObservationKind::kToolResult) return DuplicateSucceeded(ResultText(obs.content));
  std::string error = MemberOf(obs.content, "error");
  if (MemberOf(obs.content, "failure") == ToString(ToolFailure::kInvalidContent)) {
    return DuplicateUnrecorded(error);
  }
  return DuplicateFailed(error);
}

std::optional<Proxy::Impl::Step> Proxy::Impl::Unresolved(const GovernedTool& tool,
                                                         std::string_view key,
                                                         PolicyOutcome outcome,
                                                         std::optional<Attempt>* prior) {
  auto unavailable = [] { return Say(Unavailable(kCouldNotRead)); };
  // Rule 6: an earlier attempt of this very request whose outcome is unknown.
  if (tool.mutating()) {
    std::vector<rows::ProxyCall> attempts;
    absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(attempts,
                               rows::ProxyCallAttempts(tx, settings_.session, key, kScan));
      return absl::OkStatus();
    });
    if (!read.ok()) return unavailable();
    for (const rows::ProxyCall& row : attempts) {
      // A known outcome cached on the row decides without reading the run.
      if (row.outcome == rows::CallOutcome::kKnown && !row.settled_at.empty()) break;
      absl::StatusOr<Examined> examined = Examine(row);
      if (!examined.ok()) return unavailable();
      if (!examined->outcome || *examined->outcome == rows::CallOutcome::kNone) continue;
      if (*examined->outcome == rows::CallOutcome::kUnknown) *prior = examined->last.attempt;
      break;
    }
  }
  if (!tool.mutating() && outcome == PolicyOutcome::kAllow) return std::nullopt;
  bool needs_approval = outcome == PolicyOutcome::kRequireApproval ||
                        (prior->has_value() && outcome != PolicyOutcome::kDeny);
  absl::Time now = Now();
  // The session's unsettled rows: waiting approvals count toward the cap; a waiting or
  // abandoned unknown outcome of this tool blocks it.
  std::vector<rows::ProxyCall> unsettled;
  absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(unsettled, rows::UnsettledProxyCalls(tx, settings_.session, kScan));
    return absl::OkStatus();
  });
  if (!read.ok()) return unavailable();
  int pending = 0;
  for (const rows::ProxyCall& row : unsettled) {
    if (row.request_key == key) continue;
    // Settles a row whose run finished (or never began) as it reads it.
    absl::StatusOr<Examined> examined = Examine(row);
    if (!examined.ok()) return unavailable();
    if (!examined->run || IsTerminal(examined->run->status)) continue;
    const Run& r = *examined->run;
    bool same_tool = row.tool == tool.name && tool.mutating();
    if (r.status == RunStatus::kWaitingForApproval) {
      absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(r.id);
      if (!approvals.ok()) return unavailable();
      const Approval* latest = LatestOf(*approvals);
      if (latest == nullptr) continue;
      if (same_tool && latest->kind == kInterruptedSideEffectKind) {
        if (StillLive(*latest, now)) return Say(BlockedUnknown(tool.name, latest->id));
        // Expired: the gate expires it (and cancels the run); the scan of unknown outcomes
        // below asks again.
        if (auto attached = driver_->Attach(r.id); attached.ok()) {
          attached->first->Close().IgnoreError();
        }
        if (!Settle(row).ok()) return unavailable();
        continue;
      }
      if (latest->status == ApprovalStatus::kPending && !PastExpiry(*latest, now)) ++pending;
      continue;
    }
    if (same_tool && r.status == RunStatus::kRunning) {
      absl::StatusOr<bool> live = LeaseLive(r.id);
      if (!live.ok()) return unavailable();
      if (*live) continue;
      bool waiting = false;
      std::optional<Step> recovered = Recover(tool, r.id, &waiting);
      if (waiting) {
        absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(r.id);
        if (approvals.ok() && !approvals->empty()) {
          return Say(BlockedUnknown(tool.name, approvals->back().id));
        }
      }
      if (recovered && recovered->kind != Step::Kind::kAnswer) return Say(InProgress());
    }
  }
  // Another request of this tool whose outcome is unknown, with nothing waiting on it: ask
  // again in a fresh run of that request.
  if (tool.mutating() && outcome != PolicyOutcome::kDeny) {
    std::vector<rows::ProxyCall> unknown;
    absl::Status read_unknown = store_.Read([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(unknown,
                               rows::UnknownForTool(tx, settings_.session, tool.name, key, kScan));
      return absl::OkStatus();
    });
    if (!read_unknown.ok()) return unavailable();
    for (const rows::ProxyCall& row : unknown) {
      absl::StatusOr<Examined> examined = Examine(row);
      if (!examined.ok()) return unavailable();
      if (examined->outcome != rows::CallOutcome::kUnknown) continue;
      const Run& r = *examined->run;
      if (r.reason == reason::kApprovalRejected || r.reason == reason::kOperatorCancelled) continue;
      std::string asked = Reopen(tool, row, examined->last.attempt);
      if (asked.empty()) {
        return Say(Unavailable(
            "the gate could not ask an operator about an earlier call to this tool whose "
            "outcome is unknown, and nothing was executed"));
      }
      return Say(BlockedUnknown(tool.name, asked));
    }
  }
  if (needs_approval && pending >= settings_.max_pending) return Say(BlockedCap(pending));
  return std::nullopt;
}

std::string Proxy::Impl::Reopen(const GovernedTool& tool, const rows::ProxyCall& row,
                                const Attempt& attempt) {
  absl::StatusOr<std::vector<agentrt::Step>> steps = ReadSteps(store_, attempt.run_id);
  if (!steps.ok()) return "";
  std::string args;
  for (const agentrt::Step& s : *steps) {
    if (s.id == attempt.step_id && s.decision) args = s.decision->args;
  }
  if (args.empty()) {
    for (const agentrt::Step& s : *steps) {
      if (s.decision && s.decision->Kind() == DecisionKind::kToolCall) args = s.decision->args;
    }
  }
  std::int64_t seen_open = 0;
  absl::Status read = store_.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::ProxyCall> rows,
                             rows::ProxyCallsForKey(tx, settings_.session, row.request_key,
                                                    world::FormatTimestamp(Now()), 1));
    if (!rows.empty() && rows.front().open) seen_open = rows.front().id;
    return absl::OkStatus();
  });
  if (!read.ok()) return "";
  Step asked = Fresh(&tool, tool.name, args, row.request_key, "", seen_open, attempt, true);
  return asked.approval_id;
}

Proxy::Impl::Step Proxy::Impl::Fresh(const GovernedTool* tool, std::string_view name,
                                     std::string_view args, std::string_view key,
                                     const std::string& reuse, std::int64_t seen_open,
                                     const std::optional<Attempt>& prior, bool operator_asks) {
  std::string run_id = reuse.empty() ? NewRunId() : reuse;
  std::string at = world::FormatTimestamp(Now());
  std::string row_key = key.empty() ? "invalid:" + run_id : std::string(key);
  absl::Status claimed = store_.Write([&](store::Transaction& tx) -> absl::Status {
    if (!reuse.empty()) {
      // The open row is this run's: it stops being settled as never begun.
      AGENTRT_ASSIGN_OR_RETURN(std::vector<rows::ProxyCall> rows,
                               rows::ProxyCallsForKey(tx, settings_.session, row_key, at, 1));
      if (rows.empty() || !rows.front().open || rows.front().run_id != reuse) {
        return absl::AbortedError("raced");
      }
      return rows::UnsettleProxyCall(tx, rows.front().id);
    }
    AGENTRT_ASSIGN_OR_RETURN(
        bool ok, rows::ClaimProxyCall(tx,
                                      {.session = settings_.session,
                                       .request_key = row_key,
                                       .tool = name,
                                       .side_effect = tool != nullptr ? ToString(tool->side_effect)
                                                                      : std::string_view(""),
                                       .run_id = run_id,
                                       .at = at},
                                      seen_open));
    if (!ok) return absl::AbortedError("raced");
    return absl::OkStatus();
  });
  if (absl::IsAborted(claimed)) return Retry();
  if (!claimed.ok()) {
    return Say(Unavailable("the gate could not record this request, and nothing was executed"));
  }
  absl::StatusOr<std::unique_ptr<GateSession>> session =
      driver_->Begin(run_id, absl::StrCat("call ", ToAbsl(name)), RunLimits());
  if (!session.ok()) {
    if (absl::IsAlreadyExists(session.status())) return Retry();
    return Say(Unavailable("the gate could not start this request, and nothing was executed"));
  }
  if (prior) policy_->RegisterPrior(run_id, *prior);
  absl::StatusOr<bool> open = (*session)->Step();
  if (!open.ok() || !*open) {
    return Say(Unavailable("the gate could not start this request, and nothing was executed"));
  }
  Decision d;
  d.kind = "tool_call";
  d.tool = std::string(name);
  d.args = std::string(args);
  d.origin = operator_asks ? "operator" : "model";
  absl::StatusOr<GateVerdict> verdict = (*session)->Propose(d);
  if (!verdict.ok()) {
    return Say(Unavailable("the gate could not record this request, and nothing was executed"));
  }
  switch (verdict->outcome) {
    case GateVerdict::Outcome::kAllowed:
      if (tool == nullptr) break;
      return Execute(*tool, **session);
    case GateVerdict::Outcome::kPending:
      return Pending(verdict->run);
    case GateVerdict::Outcome::kDenied: {
      bool invalid =
          verdict->observation && verdict->observation->kind == ObservationKind::kInvalidDecision;
      std::string why = verdict->observation
                            ? MemberOf(verdict->observation->content, invalid ? "error" : "reason")
                            : "";
      Close(**session, invalid ? kClosedInvalid : kClosedDenied);
      return Say(invalid ? Invalid(why) : Denied(why));
    }
    case GateVerdict::Outcome::kEnded:
    case GateVerdict::Outcome::kOpen:
      return Say(Denied(verdict->run.reason_detail.empty() ? verdict->run.reason
                                                           : verdict->run.reason_detail));
  }
  return Say(InProgress());
}

Proxy::Impl::Step Proxy::Impl::Execute(const GovernedTool& tool, GateSession& session) {
  std::string run_id = session.run().id;
  absl::StatusOr<Observation> obs = session.Execute();
  if (!obs.ok()) {
    if (IsApprovalExpiredError(obs.status())) {
      absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(run_id);
      std::string id = approvals.ok() && !approvals->empty() ? approvals->back().id : "";
      return Say(Expired(id, Now() + tool.repeat_window));
    }
    return Refused(run_id, obs.status(),
                   "the gate could not start this request, and nothing was executed");
  }
  switch (obs->kind) {
    case ObservationKind::kToolResult: {
      Answer a{ResultText(obs->content), false, ""};
      if (IsObject(obs->content)) a.structured = obs->content;
      return Say(std::move(a));
    }
    case ObservationKind::kToolError: {
      std::string ended;
      std::string error = MemberOf(obs->content, "error");
      if (tool.mutating() &&
          ClassifyToolError(&tool, false, obs->content, &ended) == Known::kUnknown) {
        const agentrt::Step* step = nullptr;
        StepInput input = session.Input();
        if (!input.steps.empty()) step = &input.steps.back();
        Attempt attempt{run_id, step != nullptr ? step->id : "",
                        step != nullptr ? world::FormatTimestamp(step->started_at) : "", ended};
        return ReRun(tool, session, attempt, error);
      }
      if (tool.mutating() &&
          MemberOf(obs->content, "failure") == ToString(ToolFailure::kInvalidContent)) {
        Close(session, kClosedUnrecorded);
        return Say(Unrecorded(error, tool.repeat_window));
      }
      Close(session, kClosedError);
      return Say(ToolError(error));
    }
    default:
      return Say(Unavailable("the call's outcome was not recorded"));
  }
}

Proxy::Impl::Step Proxy::Impl::ReRun(const GovernedTool& tool, GateSession& session,
                                     const Attempt& attempt, std::string_view error) {
  log_(absl::StrCat("run ", attempt.run_id, ": a call to ", tool.name, " ", attempt.How(),
                    "; its outcome is unknown"));
  StepInput input = session.Input();
  std::string args = "{}";
  absl::Status read = input.steps.ForEach([&](const agentrt::Step& s) {
    if (s.id == attempt.step_id && s.decision) args = s.decision->args;
    return absl::OkStatus();
  });
  if (!read.ok()) {
    // Not re-run with arguments it could not read back.
    log_(absl::StrCat("run ", attempt.run_id, ": its steps cannot be read: ", read.message()));
    session.Close().IgnoreError();
    return Say(UnknownOutcome(attempt.How(), error, ""));
  }
  absl::StatusOr<bool> open = session.Step();
  if (open.ok() && *open) {
    policy_->RegisterPrior(attempt.run_id, attempt);
    Decision d;
    d.kind = "tool_call";
    d.tool = tool.name;
    d.args = args;
    d.origin = "operator";
    absl::StatusOr<GateVerdict> verdict = session.Propose(d);
    if (verdict.ok() && verdict->outcome == GateVerdict::Outcome::kPending) {
      absl::StatusOr<std::vector<Approval>> approvals = ApprovalsOf(attempt.run_id);
      if (approvals.ok() && !approvals->empty()) {
        Hint(verdict->run, approvals->back());
        return Say(UnknownOutcome(attempt.How(), error, approvals->back().id));
      }
    }
    if (verdict.ok() && verdict->outcome == GateVerdict::Outcome::kDenied) {
      Close(session, kClosedDenied);
      return Say(UnknownOutcome(attempt.How(), error, ""));
    }
  }
  // The run reached its step limit (a second unknown re-run) or ended: ask in a fresh run of
  // the same request.
  session.Close().IgnoreError();
  std::optional<std::string> key = RequestKey(tool.name, args);
  if (!key) return Say(UnknownOutcome(attempt.How(), error, ""));
  rows::ProxyCall row;
  row.request_key = *key;
  row.tool = tool.name;
  std::string asked = Reopen(tool, row, attempt);
  return Say(UnknownOutcome(attempt.How(), error, asked));
}

Proxy::Proxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Proxy::~Proxy() = default;

absl::StatusOr<std::unique_ptr<Proxy>> Proxy::Create(store::Store& store, const world::World& world,
                                                     ProxySettings settings,
                                                     std::vector<GovernedTool> tools,
                                                     std::function<void(std::string_view)> log) {
  if (world.clock == nullptr || world.scheduler == nullptr || world.entropy == nullptr) {
    return absl::InvalidArgumentError("proxy: the world needs a clock, a scheduler and entropy");
  }
  auto impl =
      std::make_unique<Impl>(store, world, std::move(settings), std::move(tools), std::move(log));
  AGENTRT_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<Proxy>(new Proxy(std::move(impl)));
}

std::vector<ToolSpec> Proxy::Tools() const { return impl_->Tools(); }

Answer Proxy::Call(std::string_view name, std::string_view arguments, const HostCall& host) {
  return impl_->Call(name, arguments, host);
}

void Proxy::Stop() { impl_->Stop(); }

}  // namespace agentrt::proxy
