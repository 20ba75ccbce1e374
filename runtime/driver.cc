#include "runtime/driver.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/json/utf8.h"
#include "runtime/json_object.h"
#include "runtime/records.h"
#include "runtime/run_end.h"
#include "runtime/run_reader.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

using store::SqlRow;
using store::SqlValue;
using store::Transaction;
using world::FormatTimestamp;

bool IsLimitReason(std::string_view reason) {
  return reason == reason::kLimitSteps || reason == reason::kRepeatedToolFailures ||
         reason == reason::kLimitActiveTime || reason == reason::kLimitElapsedTime ||
         reason == reason::kLimitModelCalls || reason == reason::kLimitTokens ||
         reason == reason::kLimitCost || reason == reason::kModelUnavailable;
}

// The reason a run ends with when the decision could not be made (reference/core.md §4.11):
// a model limit or an unavailable model the agent passed on, else agent_error.
std::string DecisionFailureReason(const absl::Status& error) {
  if (std::optional<std::string> limit = LimitReasonOf(error)) return *limit;
  if (IsModelUnavailable(error)) return std::string(reason::kModelUnavailable);
  return std::string(reason::kAgentError);
}

std::string FormatMs(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(1)));
}

}  // namespace

namespace internal {

// Keeps a session's lease alive while its loop runs, including through long tool calls: every
// ttl/3 on the lease clock it extends the expiry, on the same store (writes are serialized),
// as one statement outside any event. A renewal that finds the lease gone stops; the loop
// notices at its next write, which requires the owner.
class LeaseHeartbeat {
 public:
  LeaseHeartbeat(store::Store& store, const world::Clock& clock, std::string run_id,
                 std::string owner, absl::Duration ttl, std::function<void()> on_renewed)
      : store_(store),
        clock_(clock),
        run_id_(std::move(run_id)),
        owner_(std::move(owner)),
        ttl_(ttl),
        on_renewed_(std::move(on_renewed)),
        start_(clock.Now()),
        thread_([this] { Beat(); }) {}
  ~LeaseHeartbeat() {
    done_.Notify();
    clock_.Wake();
    thread_.join();
  }

 private:
  // Beats are spaced from the start, not from whenever the thread got to wait: a clock moved
  // on before the wait began still ends it at once.
  void Beat() {
    absl::Time next = start_ + ttl_ / 3;
    for (; !clock_.WaitUntil(done_, next); next += ttl_ / 3) {
      std::string expiry = FormatTimestamp(clock_.Now() + ttl_);
      std::int64_t renewed = 0;
      absl::Status written = store_.Write([&](Transaction& tx) -> absl::Status {
        AGENTRT_ASSIGN_OR_RETURN(renewed,
                                 tx.Exec("UPDATE runs SET lease_expires_at = ?1 WHERE id = ?2 AND "
                                         "lease_owner = ?3 AND status = 'RUNNING'",
                                         {std::string_view(expiry), std::string_view(run_id_),
                                          std::string_view(owner_)}));
        return absl::OkStatus();
      });
      // A failed write is retried at the next beat; the lease simply expires if it keeps
      // failing. A lease that is gone is not ours to keep.
      if (written.ok() && renewed == 0) return;
      if (written.ok() && on_renewed_) on_renewed_();
    }
  }

  store::Store& store_;
  const world::Clock& clock_;
  std::string run_id_;
  std::string owner_;
  absl::Duration ttl_;
  std::function<void()> on_renewed_;
  absl::Time start_;
  absl::Notification done_;
  std::thread thread_;
};

}  // namespace internal

using internal::LeaseHeartbeat;

class Driver::Session {
 public:
  friend class agentrt::GateSession;
  friend class Driver;
  Session(Driver& driver, Run run) : d_(driver), run_(std::move(run)) {}

  absl::Time LeaseNow() const { return d_.lease_clock().Now(); }
  std::string LeaseExpiry() const { return FormatTimestamp(LeaseNow() + d_.options_.lease_ttl); }

  // A stored row the runtime cannot read means it cannot know what happened: the run fails
  // (internal_error), every step in flight fails with the cause, and no damaged row is
  // rewritten otherwise.
  absl::StatusOr<Run> FailInternal(std::string_view cause) {
    absl::Time now = Now();
    std::string detail = absl::StrCat("internal: ", ToAbsl(cause));
    Observation obs =
        MakeObservation(ObservationKind::kInvalidDecision, {{"error", detail}}, detail);
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      AGENTRT_RETURN_IF_ERROR(FailStepsInFlightTx(tx, run_.id, obs, now));
      return FinishRunTx(tx, run_.id, RunEnd{RunStatus::kFailed, reason::kInternalError, detail},
                         now);
    }));
    return ReadRun(d_.store_, run_.id);
  }

  std::string Damage() const {
    for (const Step& step : steps_) {
      if (!step.decode_error.empty()) {
        return absl::StrCat("step ", step.index, " cannot be read: ", ToAbsl(step.decode_error));
      }
    }
    return "";
  }

  // Resumes a run found RUNNING (its owner died) or INTERRUPTED (reference/core.md §6.3,
  // without reconciliation): take the lease over, mark the steps in flight interrupted, and
  // pause a side effect whose outcome is unknown for an operator.
  absl::StatusOr<Run> ResumeInterrupted() {
    AGENTRT_ASSIGN_OR_RETURN(steps_, ReadSteps(d_.store_, run_.id));
    AGENTRT_ASSIGN_OR_RETURN(approvals_, ListApprovals(d_.store_, run_.id));
    absl::Time now = Now();
    std::vector<std::size_t> in_flight;
    std::optional<std::size_t> executing;
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].status == StepStatus::kDeciding || steps_[i].status == StepStatus::kExecuting) {
        in_flight.push_back(i);
        if (steps_[i].status == StepStatus::kExecuting) executing = i;
      }
    }
    // A resume before this one marked the executing step interrupted and died before pausing
    // it: that call's outcome is still unknown, so it is still the one to pause (reference/
    // core.md §6.3 step 3).
    if (!executing && !steps_.empty() && steps_.back().status == StepStatus::kInterrupted &&
        steps_.back().observation) {
      absl::StatusOr<json::Document> content = json::Parse(steps_.back().observation->content);
      if (content.ok() && MemberText(content->root(), "previous_status") == "executing") {
        executing = steps_.size() - 1;
      }
    }
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(
          std::vector<SqlRow> rows,
          tx.Query("SELECT status, lease_owner, lease_expires_at FROM runs WHERE id = ?1",
                   {std::string_view(run_.id)}));
      if (rows.empty() || (rows[0][0] != "RUNNING" && rows[0][0] != "INTERRUPTED")) {
        return absl::FailedPreconditionError(absl::StrCat("run ", run_.id, " moved"));
      }
      AGENTRT_RETURN_IF_ERROR(d_.RefuseLiveForeignLease(run_.id, rows[0][1], rows[0][2]));
      std::string expiry = LeaseExpiry();
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE runs SET status = 'RUNNING', lease_owner = ?1, "
                                      "lease_expires_at = ?2 WHERE id = ?3",
                                      {std::string_view(d_.options_.lease_owner),
                                       std::string_view(expiry), std::string_view(run_.id)})
                                  .status());
      if (!rows[0][1].empty()) {
        AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run_.id, "", now, "lease.taken_over",
                                               JsonObject()
                                                   .String("previous_owner", rows[0][1])
                                                   .String("previous_expires_at", rows[0][2])
                                                   .String("owner", d_.options_.lease_owner)
                                                   .Build())
                                    .status());
      }
      std::string at = FormatTimestamp(now);
      for (std::size_t i : in_flight) {
        Step& step = steps_[i];
        std::string previous(ToString(step.status));
        Observation obs =
            MakeObservation(ObservationKind::kInterrupted, {{"previous_status", previous}},
                            "step interrupted while " + previous);
        AGENTRT_RETURN_IF_ERROR(
            tx.Exec("UPDATE steps SET status = 'interrupted', observation_json = ?1, "
                    "observation_hash = ?2, finished_at = ?3 WHERE id = ?4 AND status = ?5",
                    {std::string_view(ObservationJson(obs)), std::string_view(obs.content_hash),
                     std::string_view(at), std::string_view(step.id), ToString(step.status)})
                .status());
        AGENTRT_RETURN_IF_ERROR(
            tx.AppendEvent(run_.id, step.id, now, "step.interrupted",
                           JsonObject().Raw("previous_status", obs.content).Build())
                .status());
        step.status = StepStatus::kInterrupted;
        step.observation = obs;
      }
      return absl::OkStatus();
    }));
    run_.status = RunStatus::kRunning;
    if (std::string damage = Damage(); !damage.empty()) return FailInternal(damage);
    if (d_.options_.reconcile) {
      std::optional<absl::StatusOr<Run>> decided = Reconciled(executing);
      if (decided) return *std::move(decided);
    } else if (executing) {
      const Step& step = steps_[*executing];
      Tool* tool = step.decision ? d_.registry_.Find(step.decision->tool) : nullptr;
      bool read_only = false;
      if (tool != nullptr) {
        absl::StatusOr<const RecordedSpec*> spec = d_.registry_.Current(tool);
        read_only = spec.ok() && (*spec)->spec.side_effect == SideEffect::kReadOnly;
      }
      if (!read_only) {
        AGENTRT_RETURN_IF_ERROR(InterruptedPause(*executing, tool));
        return ReadRun(d_.store_, run_.id);
      }
    }
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      return tx
          .AppendEvent(run_.id, "", now, "run.resumed",
                       JsonObject().String("after", "interruption").Build())
          .status();
    }));
    return Continue();
  }

  // Applies the consumer's reconciliation; nullopt means "continue".
  std::optional<absl::StatusOr<Run>> Reconciled(std::optional<std::size_t> executing) {
    RunView view;
    view.run = run_;
    view.steps = steps_;
    view.approvals = approvals_;
    absl::StatusOr<Reconciliation> rec;
    try {
      rec = d_.options_.reconcile(view);
    } catch (const std::exception& e) {
      rec = absl::InternalError(absl::StrCat("reconcile threw: ", e.what()));
    }
    auto settled = [&](absl::Status s) -> std::optional<absl::StatusOr<Run>> {
      if (!s.ok()) return absl::StatusOr<Run>(s);
      return ReadRun(d_.store_, run_.id);
    };
    if (!rec.ok()) {
      return settled(Settle(RunStatus::kFailed, reason::kInternalError,
                            absl::StrCat("reconcile: ", rec.status().message())));
    }
    switch (rec->outcome) {
      case Reconciliation::Outcome::kContinue:
        return std::nullopt;
      case Reconciliation::Outcome::kCompleted: {
        std::string result;
        if (!Blank(rec->result)) {
          absl::StatusOr<std::string> c = json::Canonicalize(rec->result);
          if (!c.ok()) {
            return settled(Settle(
                RunStatus::kFailed, reason::kInternalError,
                absl::StrCat("reconcile: result is not usable JSON: ", c.status().message())));
          }
          result = *c;
        }
        return settled(Settle(RunStatus::kCompleted, reason::kGoalCompleted,
                              "completed by reconciliation: " + rec->detail, "", {}, std::nullopt,
                              result));
      }
      case Reconciliation::Outcome::kConflict:
        return settled(Settle(RunStatus::kFailed, "reconcile_conflict", rec->detail));
      case Reconciliation::Outcome::kWaiting: {
        if (!rec->pause || rec->pause->outcome != PolicyOutcome::kRequireApproval) {
          return settled(Settle(RunStatus::kFailed, "reconcile_conflict",
                                "reconciliation asked to wait but gave no approval to wait for"));
        }
        if (!executing) {
          return settled(Settle(RunStatus::kFailed, "reconcile_conflict",
                                "reconciliation asked to wait but no tool call was executing"));
        }
        const Step& step = steps_[*executing];
        Tool* tool = step.decision ? d_.registry_.Find(step.decision->tool) : nullptr;
        return settled(InterruptedPause(*executing, tool, &*rec->pause));
      }
    }
    return std::nullopt;
  }

  // A tool that may have changed the world was executing when its process stopped: the outcome
  // is unknown, so the runtime does not run it again on its own; an operator decides (ADR 6).
  absl::Status InterruptedPause(std::size_t index, Tool* tool,
                                const PolicyDecision* reconciled = nullptr) {
    Step& step = steps_[index];
    const Decision& decision = *step.decision;
    auto conflict = [&](std::string why) {
      return Settle(RunStatus::kFailed, "reconcile_conflict",
                    absl::StrCat("step ", step.index,
                                 " was interrupted while executing a tool call whose outcome is "
                                 "unknown, and it cannot wait for an operator: ",
                                 ToAbsl(why)));
    };
    if (tool == nullptr) return conflict("its tool is not registered");
    AGENTRT_ASSIGN_OR_RETURN(const RecordedSpec* spec, d_.registry_.Current(tool));
    if (std::string invalid = Validate(decision, spec); !invalid.empty()) return conflict(invalid);
    ToolRequest request;
    request.run_id = run_.id;
    request.step_id = step.id;
    request.spec = spec->spec;
    request.args = *json::Canonicalize(decision.args.empty() ? "{}" : decision.args);
    PolicyDecision pd;
    pd.outcome = PolicyOutcome::kRequireApproval;
    pd.outcome_text = "require_approval";
    pd.reason = "interrupted while executing; outcome unknown";
    pd.kind = "interrupted_side_effect";
    if (reconciled != nullptr) {
      // The consumer chose what to ask: its decision pauses the call like any other.
      pd = *reconciled;
      pd.outcome_text = "require_approval";
    }
    if (reconciled == nullptr) {
      pd.capability =
          JsonObject().Raw("args", request.args).String("tool", spec->spec.name).Build();
      pd.presentation =
          JsonObject()
              .Raw("args", request.args)
              .String("notice",
                      "This call started, but the process running it stopped before its outcome "
                      "was recorded, so whether it took effect is unknown. Approving runs it again "
                      "with these arguments; rejecting ends the run.")
              .String("side_effect", ToString(spec->spec.side_effect))
              .String("tool", spec->spec.name)
              .Build();
    }
    step.policy = pd;
    // The pause is the runtime's, not a policy's: its record has the spec but no view.
    std::string policy_event = JsonObject()
                                   .String("outcome", pd.outcome_text)
                                   .String("reason", pd.reason)
                                   .String("kind", pd.kind)
                                   .String("spec_hash", spec->hash)
                                   .Build();
    absl::Time at = Now();
    // Pause ends the step it works on: make this step the current one.
    std::rotate(steps_.begin() + static_cast<std::ptrdiff_t>(index),
                steps_.begin() + static_cast<std::ptrdiff_t>(index) + 1, steps_.end());
    return Pause(pd, request, *spec, [&](Transaction& tx) {
      return tx.AppendEvent(run_.id, request.step_id, at, "step.policy", policy_event).status();
    });
  }

  // Resumes a run paused for approval (reference/core.md §5.5): only the latest approval of
  // the awaiting step can grant; its hash is verified; the tool must still be registered and
  // its current spec is the one judged; the arguments must meet the current schema; the policy
  // is asked again and an identical required approval is the grant, a different one pauses
  // again. Then the loop goes on.
  absl::StatusOr<Run> ResumeApproved() {
    AGENTRT_ASSIGN_OR_RETURN(steps_, ReadSteps(d_.store_, run_.id));
    AGENTRT_ASSIGN_OR_RETURN(approvals_, ListApprovals(d_.store_, run_.id));
    const std::vector<Approval>& approvals = approvals_;
    if (std::string damage = Damage(); !damage.empty()) {
      from_ = RunStatus::kWaitingForApproval;
      return FailInternal(damage);
    }
    if (steps_.empty() || steps_.back().status != StepStatus::kAwaitingApproval) {
      return absl::FailedPreconditionError(
          absl::StrCat("run ", run_.id, " is waiting but has no step awaiting approval"));
    }
    Step& step = current();
    const Approval* latest = nullptr;
    for (const Approval& a : approvals) {
      if (a.step_id == step.id) latest = &a;
    }
    if (latest == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("step ", step.id, " has no approval to resume with"));
    }
    if (latest->status == ApprovalStatus::kPending && latest->expires_at != absl::InfinitePast() &&
        Now() > latest->expires_at) {
      AGENTRT_RETURN_IF_ERROR(ExpireApproval(d_.store_, *latest, Now()));
      return ReadRun(d_.store_, run_.id);
    }
    if (latest->status != ApprovalStatus::kApproved) {
      return absl::FailedPreconditionError(absl::StrCat("the latest approval for step ", step.id,
                                                        " is ", ToAbsl(ToString(latest->status)),
                                                        ", not approved"));
    }
    AGENTRT_RETURN_IF_ERROR(VerifyApprovalHash(*latest));
    AGENTRT_ASSIGN_OR_RETURN(json::Document request, json::Parse(latest->request));
    std::optional<json::Value> spec_value = request.root().Find("spec");
    std::optional<json::Value> name = spec_value ? spec_value->Find("name") : std::nullopt;
    std::optional<json::Value> args = request.root().Find("args");
    if (!name || !name->is_string() || !args) {
      return absl::DataLossError(absl::StrCat("approval ", latest->id, " has no usable request"));
    }
    Tool* tool = d_.registry_.Find(name->string_value());
    if (tool == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("approved tool \"", ToAbsl(json::Sanitize(name->string_value())),
                       "\" is not registered"));
    }
    AGENTRT_ASSIGN_OR_RETURN(const RecordedSpec* spec, d_.registry_.Current(tool));
    resumed_at_ = Now();
    if (run_.limits.grant_ttl > absl::ZeroDuration() &&
        resumed_at_ > latest->decided_at + run_.limits.grant_ttl) {
      AGENTRT_RETURN_IF_ERROR(ExpireApproval(d_.store_, *latest, resumed_at_));
      return ReadRun(d_.store_, run_.id);
    }
    from_ = RunStatus::kWaitingForApproval;
    resumed_approval_ = latest->id;
    grant_ = *latest;
    Decision decision = *step.decision;
    decision.args = json::WriteCanonical(*args);
    decision.tool = spec->spec.name;
    if (std::string invalid = Validate(decision, spec); !invalid.empty()) {
      Observation obs = MakeObservation(ObservationKind::kInvalidDecision, {{"error", invalid}},
                                        "invalid decision on resume: " + invalid);
      AGENTRT_RETURN_IF_ERROR(EndStep(StepStatus::kFailed, obs, invalid));
      return Continue();
    }
    // The policy sees the run as it waited and the steps before the approved one.
    steps_.back().status = StepStatus::kAwaitingApproval;
    AGENTRT_ASSIGN_OR_RETURN(Next next, Judge(decision, *spec, tool, latest));
    // A gate attaching stops here: an allowed grant waits for the caller's Execute.
    if (attaching_) return ReadRun(d_.store_, run_.id);
    bool go_on = next == Next::kContinue;
    if (next == Next::kAllowed) {
      AGENTRT_ASSIGN_OR_RETURN(go_on, ExecutePending());
    }
    if (!go_on) return ReadRun(d_.store_, run_.id);
    return Loop();
  }

  // After a resume: the driver's loop goes on; a gate attaching hands the run back.
  absl::StatusOr<Run> Continue() {
    if (attaching_) return ReadRun(d_.store_, run_.id);
    return Loop();
  }

  // Drives the run until it ends or pauses. A write refused because the run was moved by
  // someone else (an operator's cancel, say) returns the run as that writer left it.
  absl::StatusOr<Run> Loop() {
    absl::StatusOr<Run> result;
    {
      LeaseHeartbeat heartbeat(d_.store_, d_.lease_clock(), run_.id, d_.options_.lease_owner,
                               d_.options_.lease_ttl, d_.options_.on_lease_renewed);
      result = Iterate();
    }
    if (!result.ok() && absl::IsFailedPrecondition(result.status())) {
      absl::StatusOr<Run> now = ReadRun(d_.store_, run_.id);
      if (now.ok() && now->status != RunStatus::kRunning) return now;
    }
    return result;
  }

 private:
  absl::StatusOr<Run> Iterate() {
    for (;;) {
      AGENTRT_ASSIGN_OR_RETURN(run_, ReadRun(d_.store_, run_.id));
      if (run_.status != RunStatus::kRunning) return run_;
      AGENTRT_ASSIGN_OR_RETURN(bool ended, CheckLimits());
      if (ended) return ReadRun(d_.store_, run_.id);
      AGENTRT_ASSIGN_OR_RETURN(bool started, StartStep());
      if (!started) return ReadRun(d_.store_, run_.id);
      AGENTRT_ASSIGN_OR_RETURN(bool go_on, DecideAndAct());
      if (!go_on) return ReadRun(d_.store_, run_.id);
    }
  }

  absl::Time Now() { return d_.clock_.Now(); }

  // What a proposal leads to: the step ended and the loop goes on, the run stopped (ended or
  // paused), or the call is allowed and waits to be executed.
  enum class Next { kContinue, kStop, kAllowed };

  // An allowed call, between the policy's answer and its execution.
  struct Pending {
    Decision decision;
    const RecordedSpec* spec = nullptr;
    Tool* tool = nullptr;
    absl::Time start_at;
    absl::Time policy_at;
    std::string policy_event;
  };

  // Trailing steps whose observation is a failure; a step without one, or a success, ends it.
  int ConsecutiveFailures() const {
    int n = 0;
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      if (!it->observation || !it->observation->is_failure()) break;
      ++n;
    }
    return n;
  }

  // Identical trailing (tool, canonical args, observation) signatures; a changed result is
  // progress. Invalid decisions take no part.
  std::pair<int, const Step*> LoopRepeats() const {
    int repeats = 0;
    const Step* last = nullptr;
    std::string signature;
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      const Step& s = *it;
      if (!s.decision || s.decision->kind != "tool_call" || !s.observation ||
          s.observation->kind == ObservationKind::kInvalidDecision) {
        break;
      }
      std::string sig =
          absl::StrCat(ToAbsl(s.decision->tool), "\n", ToAbsl(ContentHash(s.decision->args)), "\n",
                       ToAbsl(s.observation->content_hash));
      if (last == nullptr) {
        signature = sig;
        last = &s;
      } else if (sig != signature) {
        break;
      }
      ++repeats;
    }
    return {repeats, last};
  }

  absl::StatusOr<bool> CheckLimits() {
    const Limits& l = run_.limits;
    if (run_.step_count >= l.max_steps) {
      AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kFailed, reason::kLimitSteps,
                                     absl::StrCat("step limit ", l.max_steps, " reached")));
      return true;
    }
    if (int failures = ConsecutiveFailures(); failures >= l.max_consecutive_tool_failures) {
      AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kFailed, reason::kRepeatedToolFailures,
                                     absl::StrCat(failures, " consecutive failed steps")));
      return true;
    }
    if (l.max_active_time > absl::ZeroDuration() && run_.active_time >= l.max_active_time) {
      AGENTRT_RETURN_IF_ERROR(
          Settle(RunStatus::kFailed, reason::kLimitActiveTime,
                 absl::StrCat("active time ", FormatMs(run_.active_time), " reached limit ",
                              absl::FormatDuration(l.max_active_time))));
      return true;
    }
    if (l.max_elapsed_time > absl::ZeroDuration() &&
        Now() - run_.created_at >= l.max_elapsed_time) {
      AGENTRT_RETURN_IF_ERROR(Settle(
          RunStatus::kFailed, reason::kLimitElapsedTime,
          absl::StrCat("elapsed time reached limit ", absl::FormatDuration(l.max_elapsed_time))));
      return true;
    }
    auto [repeats, step] = LoopRepeats();
    if (repeats >= l.loop_threshold) {
      std::string tool = step->decision->tool;
      std::string loop = JsonObject()
                             .Int("repeats", repeats)
                             .String("tool", tool)
                             .String("args_hash", ContentHash(step->decision->args))
                             .String("observation_hash", step->observation->content_hash)
                             .Build();
      absl::Time at = Now();
      AGENTRT_RETURN_IF_ERROR(Settle(
          RunStatus::kFailed, reason::kLoopDetected,
          absl::StrCat(ToAbsl(tool), " produced the same observation ", repeats, " times in a row"),
          "", [&](Transaction& tx) {
            return tx.AppendEvent(run_.id, "", at, "loop.detected", loop).status();
          }));
      return true;
    }
    return false;
  }

  absl::StatusOr<bool> StartStep() {
    Step step;
    step.id = d_.entropy_.NewId();
    step.run_id = run_.id;
    step.index = run_.step_count;
    step.status = StepStatus::kDeciding;
    step.started_at = Now();
    bool claimed = false;
    std::string expiry = LeaseExpiry();
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      // Claiming the step renews the lease: only the owner can, so of two loops on one run
      // exactly one starts each step.
      AGENTRT_ASSIGN_OR_RETURN(
          std::int64_t changed,
          tx.Exec("UPDATE runs SET step_count = step_count + 1, lease_expires_at = ?4 "
                  "WHERE id = ?1 AND status = 'RUNNING' AND step_count = ?2 AND lease_owner = ?3",
                  {std::string_view(run_.id), std::int64_t{step.index},
                   std::string_view(d_.options_.lease_owner), std::string_view(expiry)}));
      if (changed == 0) return absl::OkStatus();  // someone else moved the run
      std::string at = FormatTimestamp(step.started_at);
      AGENTRT_RETURN_IF_ERROR(tx.Exec("INSERT INTO steps (id, run_id, idx, status, started_at) "
                                      "VALUES (?1, ?2, ?3, 'deciding', ?4)",
                                      {std::string_view(step.id), std::string_view(run_.id),
                                       std::int64_t{step.index}, std::string_view(at)})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run_.id, step.id, step.started_at, "step.started",
                                             JsonObject().Int("index", step.index).Build())
                                  .status());
      claimed = true;
      return absl::OkStatus();
    }));
    if (!claimed) return false;
    ++run_.step_count;
    steps_.push_back(step);
    if (d_.options_.model.model != nullptr) {
      model_caller_ = std::make_unique<AccountingModelCaller>(
          d_.options_.model,
          ModelCallScope{&d_.store_, &d_.clock_, &d_.entropy_, run_.id, step.id, step.started_at,
                         [this](Transaction& tx) { return RequireRunning(tx); }});
    }
    return true;
  }

  Step& current() { return steps_.back(); }

  // What an agent is handed for the open step: copies of the run (this step already counted),
  // the steps before it and the registered tools.
  StepInput Input() const {
    StepInput input;
    input.run = run_;
    if (!steps_.empty()) input.steps.assign(steps_.begin(), steps_.end() - 1);
    for (const RecordedSpec& s : d_.registry_.specs()) input.tools.push_back(s.spec);
    input.model = model_caller_.get();
    return input;
  }

  // Opens the next step for a caller-owned loop: the same checks and claim as the driver's
  // loop. False when the run is no longer RUNNING or a limit ended it.
  absl::StatusOr<bool> OpenStep() {
    AGENTRT_ASSIGN_OR_RETURN(run_, ReadRun(d_.store_, run_.id));
    if (run_.status != RunStatus::kRunning) return false;
    AGENTRT_ASSIGN_OR_RETURN(bool ended, CheckLimits());
    if (ended) return false;
    return StartStep();
  }

  absl::StatusOr<Next> ProposeDecision(const Decision& decision) { return Propose(decision); }

  // The decision could not be made: the run fails with the reason the error carries.
  absl::Status FailStep(const absl::Status& why) {
    std::string error(ToStd(why.message()));
    return Settle(RunStatus::kFailed, DecisionFailureReason(why), error, "agent error: " + error);
  }

  const Step* CurrentStep() const { return steps_.empty() ? nullptr : &steps_.back(); }
  const Run& run() const { return run_; }
  bool has_pending() const { return pending_.has_value(); }

  absl::StatusOr<bool> DecideAndAct() {
    StepInput input = Input();
    absl::StatusOr<Decision> decided;
    try {
      decided = d_.options_.agent->Decide(input);
    } catch (const std::exception& e) {
      decided = absl::InternalError(absl::StrCat("agent threw: ", e.what()));
    } catch (...) {
      decided = absl::InternalError("agent threw a non-standard exception");
    }
    if (!decided.ok()) {
      AGENTRT_RETURN_IF_ERROR(FailStep(decided.status()));
      return false;
    }
    AGENTRT_ASSIGN_OR_RETURN(Next next, Propose(*decided));
    if (next == Next::kAllowed) return ExecutePending();
    return next == Next::kContinue;
  }

  // Runs the allowed call: the policy record and the tool start commit together, then the tool
  // runs and its outcome is recorded.
  absl::StatusOr<bool> ExecutePending() {
    if (!pending_) return absl::FailedPreconditionError("no allowed call to execute");
    Pending p = *std::move(pending_);
    pending_.reset();
    return Execute(p.decision, *p.spec, p.tool, p.start_at, [&](Transaction& tx) {
      return tx.AppendEvent(run_.id, current().id, p.policy_at, "step.policy", p.policy_event)
          .status();
    });
  }

  // Records the decision as the agent made it, before anything judges it.
  absl::Status RecordDecision(const Decision& decision, const RecordedSpec* spec) {
    Step& step = current();
    step.decision = decision;
    if (spec != nullptr) step.spec_hash = spec->hash;
    std::string json = DecisionJson(decision);
    absl::Time at = Now();
    return d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE steps SET decision_json = ?1, spec_hash = ?2 "
                                      "WHERE id = ?3 AND status = 'deciding'",
                                      {std::string_view(json), std::string_view(step.spec_hash),
                                       std::string_view(step.id)})
                                  .status());
      if (spec != nullptr) {
        AGENTRT_RETURN_IF_ERROR(
            tx.Exec("INSERT OR IGNORE INTO tool_specs (hash, spec_json) VALUES (?1, ?2)",
                    {std::string_view(spec->hash), std::string_view(spec->json)})
                .status());
      }
      return tx.AppendEvent(run_.id, step.id, at, "step.decided", json).status();
    });
  }

  // The compare-and-set guard of every write: the run must still be in `from_` (RUNNING in
  // the loop; WAITING_FOR_APPROVAL for the first write of a resumed step).
  absl::Status RequireRunning(Transaction& tx) {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                             tx.Query("SELECT status, lease_owner FROM runs WHERE id = ?1",
                                      {std::string_view(run_.id)}));
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("run ", run_.id, " not found"));
    if (rows[0][0] != ToString(from_)) {
      return absl::FailedPreconditionError(
          absl::StrCat("run ", run_.id, " is ", rows[0][0], ", not ", ToAbsl(ToString(from_))));
    }
    // A run taken over by another owner is no longer this loop's to write.
    if (from_ == RunStatus::kRunning && rows[0][1] != d_.options_.lease_owner) {
      return absl::FailedPreconditionError(
          absl::StrCat("run ", run_.id, " is leased by ", rows[0][1], ", not this driver"));
    }
    return absl::OkStatus();
  }

  absl::Status RequireLiveLease(Transaction& tx, absl::Time lease_now) {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT lease_expires_at FROM runs WHERE id = ?1", {std::string_view(run_.id)}));
    absl::StatusOr<absl::Time> expiry = rows.empty()
                                            ? absl::StatusOr<absl::Time>(absl::InfinitePast())
                                            : world::ParseTimestamp(rows[0][0]);
    if (!expiry.ok() || *expiry <= lease_now) {
      return absl::FailedPreconditionError(absl::StrCat("run ", run_.id, ": the lease expired at ",
                                                        ToAbsl(rows.empty() ? "" : rows[0][0]),
                                                        "; no tool is started"));
    }
    return absl::OkStatus();
  }

  // Resuming a grant moves the run back to RUNNING in the same transaction as the step's
  // first write (the tool start, or the step's end), with run.resumed.
  absl::Status EnterIfResuming(Transaction& tx) {
    if (resumed_approval_.empty()) return absl::OkStatus();
    AGENTRT_RETURN_IF_ERROR(
        tx.Exec("UPDATE runs SET status = 'RUNNING', lease_owner = ?1, lease_expires_at = ?2 "
                "WHERE id = ?3 AND status = 'WAITING_FOR_APPROVAL'",
                {std::string_view(d_.options_.lease_owner), std::string_view(LeaseExpiry()),
                 std::string_view(run_.id)})
            .status());
    return tx
        .AppendEvent(run_.id, current().id, resumed_at_, "run.resumed",
                     JsonObject().String("approval_id", resumed_approval_).Build())
        .status();
  }
  void Entered() {
    resumed_approval_.clear();
    from_ = RunStatus::kRunning;
  }

  // Returns "" when the decision is usable, else why not (one sentence for the agent).
  std::string Validate(const Decision& decision, const RecordedSpec* spec) {
    const std::string& o = decision.origin;
    if (!o.empty() && o != "model" && o != "plan" && o != "operator") {
      return absl::StrCat("unknown decision origin \"", ToAbsl(json::Sanitize(o)), "\"");
    }
    if (decision.kind == "complete") {
      if (!Blank(decision.result)) {
        if (absl::Status s = json::Parse(decision.result).status(); !s.ok()) {
          return absl::StrCat("result is not usable JSON: ", s.message());
        }
      }
      return "";
    }
    if (decision.kind == "fail") return "";
    if (decision.kind == "tool_call") {
      if (decision.tool.empty()) return "tool_call without a tool name";
      if (spec == nullptr) {
        return absl::StrCat("unknown tool \"", ToAbsl(json::Sanitize(decision.tool)), "\"");
      }
      if (absl::Status s = CheckArgs(*spec, decision.args); !s.ok()) {
        return std::string(ToStd(s.message()));
      }
      return "";
    }
    if (decision.kind.empty()) return "decision has no kind";
    if (decision.kind == "truncated") {
      return "the reply was cut off by the output cap before a tool call";
    }
    if (decision.kind == "no_tool_call") return "the reply contained no tool call";
    return absl::StrCat("unknown decision kind \"", ToAbsl(json::Sanitize(decision.kind)), "\"");
  }

  absl::StatusOr<Next> Propose(Decision decision) {
    if (Blank(decision.args)) decision.args.clear();
    if (Blank(decision.result)) decision.result.clear();
    Tool* tool = decision.kind == "tool_call" ? d_.registry_.Find(decision.tool) : nullptr;
    const RecordedSpec* spec = nullptr;
    if (tool != nullptr) {
      absl::StatusOr<const RecordedSpec*> current = d_.registry_.Current(tool);
      if (!current.ok()) {
        AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kFailed, reason::kInternalError,
                                       absl::StrCat("internal: ", current.status().message()),
                                       "tool spec refused"));
        return Next::kStop;
      }
      spec = *current;
    }
    AGENTRT_RETURN_IF_ERROR(RecordDecision(decision, spec));

    if (std::string invalid = Validate(decision, spec); !invalid.empty()) {
      Observation obs = MakeObservation(ObservationKind::kInvalidDecision, {{"error", invalid}},
                                        "invalid decision: " + invalid);
      AGENTRT_RETURN_IF_ERROR(EndStep(StepStatus::kFailed, obs, invalid));
      return Next::kContinue;
    }
    if (decision.kind == "complete") {
      std::string result;
      if (!decision.result.empty()) result = *json::Canonicalize(decision.result);
      AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kCompleted, reason::kGoalCompleted, "", "", {},
                                     StepEnd{StepStatus::kDone, std::nullopt, ""}, result));
      return Next::kStop;
    }
    if (decision.kind == "fail") {
      AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kFailed, reason::kGoalFailed, decision.message, "",
                                     {}, StepEnd{StepStatus::kDone, std::nullopt, ""}));
      return Next::kStop;
    }
    return Judge(decision, *spec, tool);
  }

  absl::StatusOr<Next> Judge(const Decision& decision, const RecordedSpec& spec, Tool* tool,
                             const Approval* granted = nullptr) {
    ToolRequest request;
    request.run_id = run_.id;
    request.step_id = current().id;
    request.spec = spec.spec;
    request.args = *json::Canonicalize(decision.args.empty() ? "{}" : decision.args);
    RunView view;
    view.run = run_;
    view.steps.assign(steps_.begin(), steps_.end() - 1);
    view.approvals = approvals_;
    absl::StatusOr<PolicyDecision> evaluated;
    try {
      evaluated = d_.options_.policy->Evaluate(request, view);
    } catch (const std::exception& e) {
      evaluated = absl::InternalError(absl::StrCat("policy threw: ", e.what()));
    } catch (...) {
      evaluated = absl::InternalError("policy threw a non-standard exception");
    }
    if (!evaluated.ok()) {
      std::string error(ToStd(evaluated.status().message()));
      AGENTRT_RETURN_IF_ERROR(Settle(RunStatus::kFailed, reason::kInternalError, "policy: " + error,
                                     "policy error: " + error));
      return Next::kStop;
    }
    PolicyDecision pd = *evaluated;
    if (pd.outcome_text.empty()) pd.outcome_text = std::string(ToString(pd.outcome));
    current().policy = pd;
    absl::Time policy_at = granted != nullptr ? resumed_at_ : Now();
    // On resume, the approval the policy asks for again is the grant when it is the same
    // approval: same kind, capability, presentation and request (so the same hash).
    if (granted != nullptr && pd.outcome == PolicyOutcome::kRequireApproval &&
        GrantedHash(pd, request, spec) == granted->hash) {
      pd.outcome = PolicyOutcome::kAllow;
    }
    // Capability and presentation are recorded as the policy gave them (canonical when they
    // are JSON), so a re-check can compute the approval this evaluation asked for.
    auto canonical_if_json = [](const std::string& raw) -> std::string {
      if (Blank(raw)) return "";
      absl::StatusOr<std::string> c = json::Canonicalize(raw);
      return c.ok() ? *c : "";
    };
    std::string policy_event =
        JsonObject()
            .String("outcome", pd.outcome_text)
            .StringIfSet("reason", pd.reason)
            .StringIfSet("kind", pd.kind)
            .RawIfSet("capability", canonical_if_json(pd.capability))
            .RawIfSet("presentation", canonical_if_json(pd.presentation))
            .StringIfSet("policy_id", d_.options_.policy->Id())
            .String("spec_hash", spec.hash)
            .Raw("view", JsonObject()
                             .String("status", ToString(view.run.status))
                             .Int("step_count", view.run.step_count)
                             .Int("model_calls", view.run.model_calls)
                             .Int("input_tokens", view.run.input_tokens)
                             .Int("output_tokens", view.run.output_tokens)
                             .Int("cached_input_tokens", view.run.cached_input_tokens)
                             .Int("estimated_cost_micros", view.run.estimated_cost_micros)
                             .Int("active_ms", absl::ToInt64Milliseconds(view.run.active_time))
                             .Int("steps", static_cast<std::int64_t>(view.steps.size()))
                             .Int("approvals", static_cast<std::int64_t>(view.approvals.size()))
                             .Build())
            .Build();
    // The evaluation as the step keeps it (what readers and summaries show) and its event.
    std::string step_policy_json = PolicyJson(pd);
    auto write_policy = [&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(
          tx.Exec("UPDATE steps SET policy_json = ?1 WHERE id = ?2",
                  {std::string_view(step_policy_json), std::string_view(current().id)})
              .status());
      current().policy = pd;
      return tx.AppendEvent(run_.id, current().id, policy_at, "step.policy", policy_event).status();
    };
    switch (pd.outcome) {
      case PolicyOutcome::kAllow:
        // Nothing is written yet: the policy record commits with the tool start. On resume the
        // step's clock restarts: the wait for the operator is not active time.
        pending_ = Pending{decision,  &spec,       tool, granted != nullptr ? Now() : policy_at,
                           policy_at, policy_event};
        return Next::kAllowed;
      case PolicyOutcome::kDeny: {
        Observation obs = MakeObservation(ObservationKind::kPolicyDenied,
                                          {{"tool", spec.spec.name}, {"reason", pd.reason}},
                                          "denied: " + pd.reason);
        AGENTRT_RETURN_IF_ERROR(
            EndStep(StepStatus::kFailed, obs, "policy denied: " + pd.reason, write_policy));
        return Next::kContinue;
      }
      case PolicyOutcome::kAbort: {
        Observation obs = MakeObservation(ObservationKind::kPolicyDenied,
                                          {{"tool", spec.spec.name}, {"reason", pd.reason}},
                                          "aborted: " + pd.reason);
        AGENTRT_RETURN_IF_ERROR(
            Settle(RunStatus::kFailed, reason::kPolicyAbort, pd.reason, "", write_policy,
                   StepEnd{StepStatus::kFailed, obs, "policy abort: " + pd.reason}));
        return Next::kStop;
      }
      case PolicyOutcome::kRequireApproval:
        AGENTRT_RETURN_IF_ERROR(Pause(pd, request, spec, write_policy));
        return Next::kStop;
      case PolicyOutcome::kUnknown:
        break;
    }
    AGENTRT_RETURN_IF_ERROR(Settle(
        RunStatus::kFailed, reason::kInternalError,
        absl::StrCat("unknown policy outcome \"", ToAbsl(json::Sanitize(pd.outcome_text)), "\""),
        "", write_policy, StepEnd{StepStatus::kFailed, std::nullopt, "unknown policy outcome"}));
    return Next::kStop;
  }

  static std::string RequestJson(const ToolRequest& request, const RecordedSpec& spec) {
    return JsonObject()
        .String("run_id", request.run_id)
        .String("step_id", request.step_id)
        .Raw("spec", spec.json)
        .Raw("args", request.args)
        .Build();
  }

  static std::string GrantedHash(const PolicyDecision& pd, const ToolRequest& request,
                                 const RecordedSpec& spec) {
    absl::StatusOr<std::string> capability =
        json::Canonicalize(Blank(pd.capability) ? "{}" : pd.capability);
    absl::StatusOr<std::string> presentation =
        json::Canonicalize(Blank(pd.presentation) ? "{}" : pd.presentation);
    if (!capability.ok() || !presentation.ok()) return "";
    return ApprovalHash(pd.kind, *capability, *presentation, RequestJson(request, spec));
  }

  // The approval binds kind, capability, presentation and the whole request (run, step, the
  // full spec and the canonical arguments): approving it can only ever grant this call.
  absl::Status Pause(const PolicyDecision& pd, const ToolRequest& request, const RecordedSpec& spec,
                     const std::function<absl::Status(Transaction&)>& write_policy) {
    auto canonical_or_empty = [](const std::string& raw) -> absl::StatusOr<std::string> {
      if (Blank(raw)) return std::string("{}");
      return json::Canonicalize(raw);
    };
    absl::StatusOr<std::string> capability = canonical_or_empty(pd.capability);
    absl::StatusOr<std::string> presentation = canonical_or_empty(pd.presentation);
    if (!capability.ok() || !presentation.ok()) {
      std::string which = !capability.ok() ? "capability" : "presentation";
      std::string why(ToStd((!capability.ok() ? capability : presentation).status().message()));
      return Settle(RunStatus::kFailed, reason::kInternalError,
                    absl::StrCat("policy: ", which, " is not usable JSON: ", why), "", write_policy,
                    StepEnd{StepStatus::kFailed, std::nullopt, "policy error: " + which});
    }
    std::string request_json = RequestJson(request, spec);
    std::string hash = ApprovalHash(pd.kind, *capability, *presentation, request_json);
    std::string approval_id = d_.entropy_.NewId();
    absl::Time now = Now();
    std::string created = FormatTimestamp(now);
    std::string expires = run_.limits.approval_ttl > absl::ZeroDuration()
                              ? FormatTimestamp(now + run_.limits.approval_ttl)
                              : "";
    std::string policy_json = PolicyJson(pd);
    Step& step = current();
    return d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE steps SET status = 'awaiting_approval', "
                                      "policy_json = ?1, observation_json = '', "
                                      "observation_hash = '', finished_at = '' WHERE id = ?2",
                                      {std::string_view(policy_json), std::string_view(step.id)})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE runs SET status = 'WAITING_FOR_APPROVAL', "
                                      "lease_owner = '', lease_expires_at = '' WHERE id = ?1",
                                      {std::string_view(run_.id)})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(write_policy(tx));
      AGENTRT_RETURN_IF_ERROR(
          tx.Exec("INSERT INTO approvals (id, run_id, step_id, kind, capability_json, "
                  "presentation_json, request_json, hash, status, created_at, expires_at) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9, ?10)",
                  {std::string_view(approval_id), std::string_view(run_.id),
                   std::string_view(step.id), std::string_view(pd.kind),
                   std::string_view(*capability), std::string_view(*presentation),
                   std::string_view(request_json), std::string_view(hash),
                   std::string_view(created), std::string_view(expires)})
              .status());
      return tx
          .AppendEvent(run_.id, step.id, now, "approval.requested",
                       JsonObject()
                           .String("approval_id", approval_id)
                           .String("kind", pd.kind)
                           .String("reason", pd.reason)
                           .Raw("capability", *capability)
                           .Raw("presentation", *presentation)
                           .String("hash", hash)
                           .Build())
          .status();
    });
  }

  absl::StatusOr<bool> Execute(const Decision& decision, const RecordedSpec& spec, Tool* tool,
                               absl::Time start_at,
                               const std::function<absl::Status(Transaction&)>& write_policy) {
    Step& step = current();
    std::string policy_json = PolicyJson(*step.policy);
    std::string args = decision.args.empty() ? "{}" : decision.args;
    std::string started = FormatTimestamp(start_at);
    std::string granted = resumed_approval_;
    absl::Time lease_now = LeaseNow();
    std::string expiry = FormatTimestamp(lease_now + d_.options_.lease_ttl);
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      if (from_ == RunStatus::kRunning) {
        // A side effect starts only under a live lease: a loop whose lease lapsed (another
        // owner may be taking over) stops here, before the call.
        AGENTRT_RETURN_IF_ERROR(RequireLiveLease(tx, lease_now));
      }
      AGENTRT_RETURN_IF_ERROR(EnterIfResuming(tx));
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE runs SET lease_expires_at = ?1 WHERE id = ?2",
                                      {std::string_view(expiry), std::string_view(run_.id)})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE steps SET status = 'executing', policy_json = ?1, "
                                      "started_at = ?2 WHERE id = ?3 AND status IN "
                                      "('deciding', 'awaiting_approval')",
                                      {std::string_view(policy_json), std::string_view(started),
                                       std::string_view(step.id)})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(write_policy(tx));
      return tx
          .AppendEvent(run_.id, step.id, start_at, "step.tool_started",
                       JsonObject()
                           .String("tool", spec.spec.name)
                           .Raw("args", *json::Canonicalize(args))
                           .StringIfSet("approval_id", granted)
                           .Build())
          .status();
    }));
    Entered();
    step.status = StepStatus::kExecuting;
    step.started_at = start_at;

    ToolCall call{run_.id, step.id, args, start_at + spec.spec.timeout, &d_.clock_};
    absl::StatusOr<ToolResult> result;
    try {
      result = tool->Call(call);
    } catch (const std::exception& e) {
      result = absl::InternalError(absl::StrCat("panic: ", e.what()));
    } catch (...) {
      result = absl::InternalError("panic: a non-standard exception");
    }
    const std::string& name = spec.spec.name;
    Observation obs;
    bool abort = false;
    std::string abort_detail;
    if (!result.ok()) {
      std::string error(ToStd(result.status().message()));
      std::string failure = "error";
      std::string summary = absl::StrCat(ToAbsl(name), " error: ", ToAbsl(error));
      if (IsAbortRun(result.status())) {
        abort = true;
        abort_detail = std::string(
            result.status().GetPayload("agentrt/abort-run").value_or(absl::Cord()).Flatten());
        failure = "abort";
        summary = absl::StrCat(ToAbsl(name), " aborted the run: ", ToAbsl(abort_detail));
      } else if (result.status().code() == absl::StatusCode::kDeadlineExceeded || call.Expired()) {
        failure = "timeout";
        summary = absl::StrCat(ToAbsl(name), " timeout: ", ToAbsl(error));
      } else if (error.starts_with("panic: ")) {
        summary = absl::StrCat(ToAbsl(name), " panicked");
      }
      obs = MakeObservation(ObservationKind::kToolError,
                            {{"tool", name}, {"error", error}, {"failure", failure}}, summary);
    } else {
      std::string content = Blank(result->content) ? "{}" : result->content;
      absl::StatusOr<std::string> canonical = json::Canonicalize(content);
      if (!canonical.ok()) {
        std::string why(ToStd(canonical.status().message()));
        obs = MakeObservation(
            ObservationKind::kToolError,
            {{"tool", name},
             {"error", "content is not usable JSON: " + why},
             {"failure", "invalid_content"},
             {json::IsValidUtf8(content) ? "content" : "content_base64",
              json::IsValidUtf8(content) ? content
                                         : std::string(absl::Base64Escape(ToAbsl(content)))}},
            absl::StrCat(ToAbsl(name), " returned content is not usable JSON: ", ToAbsl(why)));
      } else {
        obs.kind = ObservationKind::kToolResult;
        obs.content = *canonical;
        obs.summary = result->summary;
        obs.content_hash = json::Sha256Hex(*canonical);
      }
    }
    absl::Status recorded;
    bool go_on = false;
    if (abort) {
      recorded = Settle(RunStatus::kFailed, reason::kToolAbort, abort_detail, "", {},
                        StepEnd{StepStatus::kFailed, obs, obs.summary});
    } else if (obs.is_failure()) {
      recorded = EndStep(StepStatus::kFailed, obs, obs.summary);
      go_on = true;
    } else if (spec.spec.terminal) {
      recorded = Settle(RunStatus::kCompleted, reason::kGoalCompleted,
                        absl::StrCat("terminal tool ", ToAbsl(name)), "", {},
                        StepEnd{StepStatus::kDone, obs, ""}, obs.content);
    } else {
      recorded = EndStep(StepStatus::kDone, obs, "");
      go_on = true;
    }
    if (absl::IsFailedPrecondition(recorded)) {
      // The run was moved while the tool ran. Work already done is never lost: when an
      // operator cancelled, the outcome is appended after the run's end.
      AGENTRT_RETURN_IF_ERROR(AppendLateOutcome(obs, start_at));
    }
    AGENTRT_RETURN_IF_ERROR(recorded);
    return go_on;
  }

  absl::Status AppendLateOutcome(const Observation& obs, absl::Time started_at) {
    Step& step = current();
    absl::Time at = Now();
    std::int64_t ms = std::max<std::int64_t>(0, absl::ToInt64Milliseconds(at - started_at));
    return d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(
          std::vector<SqlRow> rows,
          tx.Query("SELECT status, reason FROM runs WHERE id = ?1", {std::string_view(run_.id)}));
      if (rows.empty() || rows[0][0] != "CANCELLED" || rows[0][1] != "operator_cancelled") {
        return absl::OkStatus();
      }
      JsonObject payload;
      payload.String("tool", step.decision->tool)
          .Int("duration_ms", ms)
          .Bool("late", true)
          .Raw("observation", ObservationJson(obs));
      if (!obs.is_failure()) {
        payload.StringIfSet("summary", obs.summary).String("content_hash", obs.content_hash);
      }
      return tx.AppendEvent(run_.id, step.id, at, "step.tool_finished", payload.Build()).status();
    });
  }

  struct StepEnd {
    StepStatus status;
    std::optional<Observation> observation;
    std::string detail;
  };

  // Ends the current step inside `tx` at `at`: its columns, active time, and the
  // step.tool_finished / step.failed events.
  absl::Status EndStepTx(Transaction& tx, const StepEnd& end, absl::Time at) {
    Step& step = current();
    StepStatus previous = step.status;
    step.status = end.status;
    step.observation = end.observation;
    step.finished_at = at;
    std::string obs_json = end.observation ? ObservationJson(*end.observation) : "";
    std::string obs_hash = end.observation ? end.observation->content_hash : "";
    std::string finished = FormatTimestamp(at);
    AGENTRT_ASSIGN_OR_RETURN(
        std::int64_t changed,
        tx.Exec("UPDATE steps SET status = ?1, observation_json = ?2, observation_hash = ?3, "
                "finished_at = ?4 WHERE id = ?5 AND status = ?6",
                {ToString(end.status), std::string_view(obs_json), std::string_view(obs_hash),
                 std::string_view(finished), std::string_view(step.id), ToString(previous)}));
    if (changed == 0) {
      return absl::FailedPreconditionError(absl::StrCat("step ", step.id, " moved under us"));
    }
    std::int64_t ms = std::max<std::int64_t>(0, absl::ToInt64Milliseconds(at - step.started_at));
    AGENTRT_RETURN_IF_ERROR(tx.Exec("UPDATE runs SET active_ms = active_ms + ?1 WHERE id = ?2",
                                    {ms, std::string_view(run_.id)})
                                .status());
    run_.active_time += absl::Milliseconds(ms);
    if (previous == StepStatus::kExecuting) {
      JsonObject finished_payload;
      finished_payload.String("tool", step.decision->tool).Int("duration_ms", ms);
      if (end.status == StepStatus::kDone && end.observation) {
        finished_payload.StringIfSet("summary", end.observation->summary)
            .String("content_hash", end.observation->content_hash);
      } else {
        finished_payload.String("error", end.detail);
      }
      AGENTRT_RETURN_IF_ERROR(
          tx.AppendEvent(run_.id, step.id, at, "step.tool_finished", finished_payload.Build())
              .status());
    }
    if (end.status == StepStatus::kFailed) {
      JsonObject failed;
      failed.String("detail", end.detail);
      if (end.observation) {
        failed.String("observation", ToString(end.observation->kind))
            .String("content_hash", end.observation->content_hash);
      }
      AGENTRT_RETURN_IF_ERROR(
          tx.AppendEvent(run_.id, step.id, at, "step.failed", failed.Build()).status());
    }
    return absl::OkStatus();
  }

  absl::Status EndStep(StepStatus status, std::optional<Observation> obs, std::string detail,
                       const std::function<absl::Status(Transaction&)>& pre = {}) {
    absl::Time at = Now();
    AGENTRT_RETURN_IF_ERROR(d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      AGENTRT_RETURN_IF_ERROR(EnterIfResuming(tx));
      if (pre) AGENTRT_RETURN_IF_ERROR(pre(tx));
      return EndStepTx(tx, StepEnd{status, std::move(obs), detail}, at);
    }));
    Entered();
    return absl::OkStatus();
  }

  // Ends the run (and, when `step_end` is set or `step_detail` given, its current step) in
  // one transaction: a finished step never sits under a running run.
  absl::Status Settle(RunStatus status, std::string_view reason, std::string detail,
                      std::string step_detail = "",
                      const std::function<absl::Status(Transaction&)>& pre = {},
                      std::optional<StepEnd> step_end = std::nullopt, std::string result = "") {
    if (!step_end && !step_detail.empty()) {
      step_end = StepEnd{StepStatus::kFailed, std::nullopt, step_detail};
    }
    absl::Time step_at = step_end ? Now() : absl::InfinitePast();
    absl::Time at = Now();
    return d_.store_.Write([&](Transaction& tx) -> absl::Status {
      AGENTRT_RETURN_IF_ERROR(RequireRunning(tx));
      if (pre) AGENTRT_RETURN_IF_ERROR(pre(tx));
      if (step_end) AGENTRT_RETURN_IF_ERROR(EndStepTx(tx, *step_end, step_at));
      RunEnd run_end{status, reason, detail, result};
      run_end.limit = IsLimitReason(reason);
      return FinishRunTx(tx, run_.id, run_end, at);
    });
  }

  Driver& d_;
  Run run_;
  std::vector<Step> steps_;
  std::vector<Approval> approvals_;  // the run's approvals, as this session wrote or read them
  std::optional<Pending> pending_;
  std::unique_ptr<AccountingModelCaller> model_caller_;  // the open step's, when a model is set
  bool attaching_ = false;         // resumed for a gate: stop where the caller takes over
  std::optional<Approval> grant_;  // the approval a resume executes, until it runs
  RunStatus from_ = RunStatus::kRunning;
  std::string resumed_approval_;  // set while resuming a grant, until the run is entered
  absl::Time resumed_at_;
};

Driver::Driver(store::Store& store, const world::Clock& clock, world::Entropy& entropy,
               DriverOptions options, ToolRegistry registry)
    : store_(store),
      clock_(clock),
      entropy_(entropy),
      options_(std::move(options)),
      registry_(std::move(registry)) {}

absl::StatusOr<std::unique_ptr<Driver>> Driver::Create(store::Store& store,
                                                       const world::Clock& clock,
                                                       world::Entropy& entropy,
                                                       DriverOptions options) {
  if (options.policy == nullptr) return absl::InvalidArgumentError("driver: a policy is required");
  AGENTRT_ASSIGN_OR_RETURN(ToolRegistry registry, ToolRegistry::Create(options.tools));
  // Two drivers never share an owner, even with the same name: a restarted process is a new
  // owner and must wait for (or take over) its predecessor's lease.
  options.lease_owner = options.lease_owner.empty()
                            ? entropy.NewId()
                            : absl::StrCat(options.lease_owner, "/", entropy.NewId().substr(0, 12));
  if (options.lease_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("driver: lease_ttl must be positive");
  }
  return std::unique_ptr<Driver>(
      new Driver(store, clock, entropy, std::move(options), std::move(registry)));
}

const world::Clock& Driver::lease_clock() const {
  return options_.lease_clock != nullptr ? *options_.lease_clock : wall_clock_;
}

absl::StatusOr<std::pair<std::string, std::string>> Driver::ReadLease(std::string_view run_id) {
  std::pair<std::string, std::string> lease;
  AGENTRT_RETURN_IF_ERROR(store_.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT lease_owner, lease_expires_at FROM runs WHERE id = ?1", {run_id}));
    if (!rows.empty()) lease = {rows[0][0], rows[0][1]};
    return absl::OkStatus();
  }));
  return lease;
}

absl::Status Driver::RefuseLiveForeignLease(std::string_view run_id, std::string_view owner,
                                            std::string_view expires_at) const {
  if (owner.empty() || owner == options_.lease_owner) return absl::OkStatus();
  absl::StatusOr<absl::Time> expiry = world::ParseTimestamp(expires_at);
  if (expiry.ok() && *expiry > lease_clock().Now()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", ToAbsl(json::Sanitize(run_id)), " is leased by ", ToAbsl(json::Sanitize(owner)),
        " until ", ToAbsl(expires_at), "; it may still be running"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Run> Driver::Resume(std::string_view run_id) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError("driver: Resume needs an agent");
  }
  AGENTRT_ASSIGN_OR_RETURN(auto session, ResumeSession(run_id, /*attaching=*/false));
  return session.second;
}

absl::StatusOr<std::pair<std::unique_ptr<GateSession>, GateVerdict>> Driver::Attach(
    std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(auto resumed, ResumeSession(run_id, /*attaching=*/true));
  auto& [session, run] = resumed;
  GateVerdict verdict;
  verdict.run = run;
  bool allowed = session->has_pending();
  if (allowed) {
    verdict.outcome = GateVerdict::Outcome::kAllowed;
  } else if (run.status == RunStatus::kWaitingForApproval) {
    verdict.outcome = GateVerdict::Outcome::kPending;
  } else if (IsTerminal(run.status)) {
    verdict.outcome = GateVerdict::Outcome::kEnded;
  } else {
    verdict.outcome = GateVerdict::Outcome::kOpen;
  }
  auto gate = std::unique_ptr<GateSession>(new GateSession(std::move(session)));
  if (allowed) gate->step_open_ = gate->proposed_ = true;
  return std::pair<std::unique_ptr<GateSession>, GateVerdict>(std::move(gate), verdict);
}

absl::StatusOr<std::pair<std::unique_ptr<Driver::Session>, Run>> Driver::ResumeSession(
    std::string_view run_id, bool attaching) {
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadRun(store_, run_id));
  if (IsTerminal(run.status)) {
    return absl::FailedPreconditionError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)),
                                                      " is ", ToAbsl(ToString(run.status)),
                                                      " and cannot be resumed"));
  }
  auto session = std::make_unique<Session>(*this, run);
  session->attaching_ = attaching;
  absl::StatusOr<Run> resumed;
  if (run.status == RunStatus::kWaitingForApproval) {
    resumed = session->ResumeApproved();
  } else {
    // A live lease of another owner is refused before anything else, the run's clock included.
    AGENTRT_ASSIGN_OR_RETURN(auto lease, ReadLease(run_id));
    AGENTRT_RETURN_IF_ERROR(RefuseLiveForeignLease(run_id, lease.first, lease.second));
    resumed = session->ResumeInterrupted();
  }
  if (!resumed.ok()) return resumed.status();
  return std::pair<std::unique_ptr<Session>, Run>(std::move(session), *std::move(resumed));
}

absl::StatusOr<Run> Driver::Start(std::string_view goal, const Limits& limits) {
  return StartWithId(entropy_.NewId(), goal, limits);
}

absl::StatusOr<Run> Driver::StartWithId(std::string_view run_id, std::string_view goal,
                                        const Limits& limits) {
  if (options_.agent == nullptr) {
    return absl::FailedPreconditionError(
        "driver: Start needs an agent (use Begin for a loop you own)");
  }
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  Session session(*this, run);
  return session.Loop();
}

absl::StatusOr<std::unique_ptr<GateSession>> Driver::Begin(std::string_view run_id,
                                                           std::string_view goal,
                                                           const Limits& limits) {
  AGENTRT_ASSIGN_OR_RETURN(Run run, CreateRun(run_id, goal, limits));
  return std::unique_ptr<GateSession>(new GateSession(std::make_unique<Session>(*this, run)));
}

absl::StatusOr<Run> Driver::CreateRun(std::string_view run_id, std::string_view goal,
                                      const Limits& limits) {
  AGENTRT_RETURN_IF_ERROR(limits.Validate());
  if (run_id.empty()) return absl::InvalidArgumentError("run id is required");
  Run run;
  run.id = std::string(run_id);
  run.goal = std::string(goal);
  run.limits = limits;
  run.created_at = clock_.Now();
  std::string created = world::FormatTimestamp(run.created_at);
  std::string expiry = world::FormatTimestamp(lease_clock().Now() + options_.lease_ttl);
  std::string limits_json = limits.ToJson();
  std::string tools = "[";
  for (const RecordedSpec& s : registry_.specs()) {
    if (tools.size() > 1) tools += ",";
    tools += JsonString(s.hash);
  }
  tools += "]";
  AGENTRT_RETURN_IF_ERROR(store_.Write([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(
        tx.Exec("INSERT INTO runs (id, goal, status, limits_json, created_at, started_at, "
                "lease_owner, lease_expires_at) VALUES (?1, ?2, 'RUNNING', ?3, ?4, ?4, ?5, ?6)",
                {std::string_view(run.id), std::string_view(run.goal),
                 std::string_view(limits_json), std::string_view(created),
                 std::string_view(options_.lease_owner), std::string_view(expiry)})
            .status());
    for (const RecordedSpec& s : registry_.specs()) {
      AGENTRT_RETURN_IF_ERROR(
          tx.Exec("INSERT OR IGNORE INTO tool_specs (hash, spec_json) VALUES (?1, ?2)",
                  {std::string_view(s.hash), std::string_view(s.json)})
              .status());
    }
    AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run.id, "", run.created_at, "run.created",
                                           JsonObject()
                                               .String("goal", run.goal)
                                               .Raw("limits", limits_json)
                                               .Raw("tools", tools)
                                               .Build())
                                .status());
    return tx.AppendEvent(run.id, "", run.created_at, "run.started", "{}").status();
  }));
  return run;
}

GateSession::GateSession(std::unique_ptr<Driver::Session> session) : session_(std::move(session)) {}

GateSession::~GateSession() = default;

void GateSession::KeepLease() {
  if (heartbeat_ != nullptr) return;
  const Driver& d = session_->d_;
  heartbeat_ = std::make_unique<LeaseHeartbeat>(session_->d_.store_, d.lease_clock(),
                                                session_->run().id, d.options_.lease_owner,
                                                d.options_.lease_ttl, d.options_.on_lease_renewed);
}

absl::StatusOr<bool> GateSession::Step() {
  if (step_open_) {
    return absl::FailedPreconditionError("a step is already open: propose or fail it first");
  }
  KeepLease();
  AGENTRT_ASSIGN_OR_RETURN(bool open, session_->OpenStep());
  step_open_ = open;
  return open;
}

StepInput GateSession::Input() const { return session_->Input(); }

const Run& GateSession::run() const { return session_->run(); }

absl::StatusOr<GateVerdict> GateSession::Propose(const Decision& decision) {
  if (!step_open_ || proposed_) {
    return absl::FailedPreconditionError("no open step awaiting a decision");
  }
  proposed_ = true;
  AGENTRT_ASSIGN_OR_RETURN(Driver::Session::Next next, session_->ProposeDecision(decision));
  GateVerdict verdict;
  switch (next) {
    case Driver::Session::Next::kAllowed:
      verdict.outcome = GateVerdict::Outcome::kAllowed;
      return verdict;
    case Driver::Session::Next::kContinue:
      verdict.outcome = GateVerdict::Outcome::kDenied;
      if (const agentrt::Step* step = session_->CurrentStep(); step != nullptr) {
        verdict.observation = step->observation;
      }
      step_open_ = proposed_ = false;
      return verdict;
    case Driver::Session::Next::kStop:
      break;
  }
  step_open_ = proposed_ = false;
  AGENTRT_ASSIGN_OR_RETURN(verdict.run, ReadRun(session_->d_.store_, session_->run().id));
  verdict.outcome = verdict.run.status == RunStatus::kWaitingForApproval
                        ? GateVerdict::Outcome::kPending
                        : GateVerdict::Outcome::kEnded;
  return verdict;
}

absl::StatusOr<Observation> GateSession::Execute() {
  if (!session_->has_pending()) {
    return absl::FailedPreconditionError("nothing to execute: the last proposal was not allowed");
  }
  step_open_ = proposed_ = false;
  // A grant the caller held on to is judged again now: GrantTTL counts until it runs.
  if (const std::optional<Approval>& grant = session_->grant_;
      grant && !session_->resumed_approval_.empty()) {
    absl::Duration ttl = session_->run().limits.grant_ttl;
    absl::Time now = session_->Now();
    if (ttl > absl::ZeroDuration() && now > grant->decided_at + ttl) {
      session_->pending_.reset();
      AGENTRT_RETURN_IF_ERROR(ExpireApproval(session_->d_.store_, *grant, now));
      return ApprovalExpiredError(absl::StrCat(
          "approval ", grant->id, " expired before it was executed; the run is cancelled"));
    }
  }
  KeepLease();
  AGENTRT_RETURN_IF_ERROR(session_->ExecutePending().status());
  const agentrt::Step* step = session_->CurrentStep();
  if (step == nullptr || !step->observation) {
    return absl::InternalError("the executed step has no observation");
  }
  return *step->observation;
}

absl::Status GateSession::Fail(const absl::Status& why) {
  if (!step_open_ || proposed_) return absl::FailedPreconditionError("no open step to fail");
  if (why.ok()) return absl::InvalidArgumentError("Fail needs the error that stopped the step");
  step_open_ = false;
  return session_->FailStep(why);
}

}  // namespace agentrt
