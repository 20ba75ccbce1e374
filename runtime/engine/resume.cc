// Resuming a run: a granted approval, or a run found interrupted (docs/architecture.md, "The
// engine").
#include <exception>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/chain_check.h"
#include "runtime/engine/lease_heartbeat.h"
#include "runtime/engine/run_end.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using store::Transaction;
using world::FormatTimestamp;

// A stored row the runtime cannot read means it cannot know what happened: the run fails
// (internal_error), every step in flight fails with the cause, and no damaged row is
// rewritten otherwise.
absl::StatusOr<Run> Driver::Session::FailInternal(std::string_view cause) {
  absl::Time now = Now();
  std::string detail = absl::StrCat("internal: ", ToAbsl(cause));
  Observation obs = MakeObservation(ObservationKind::kInvalidDecision, {{"error", detail}}, detail);
  AGENTRT_RETURN_IF_ERROR(Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(RequireRunning(tx).status());
    AGENTRT_RETURN_IF_ERROR(FailStepsInFlightTx(tx, run_.id, obs, now));
    return FinishRunTx(tx, run_.id, RunEnd{RunStatus::kFailed, reason::kInternalError, detail},
                       now);
  }));
  return ReadRun(driver_.store_, run_.id);
}

std::string Driver::Session::Damage() const {
  for (const Step& step : steps_) {
    if (!step.decode_error.empty()) {
      return absl::StrCat("step ", step.index, " cannot be read: ", ToAbsl(step.decode_error));
    }
  }
  return "";
}

absl::Status Driver::Session::ReadHistory() {
  AGENTRT_ASSIGN_OR_RETURN(RunHistory history, agentrt::ReadHistory(driver_.store_, run_.id));
  steps_.Assign(std::move(history.steps));
  approvals_ = std::move(history.approvals);
  return absl::OkStatus();
}

// Resumes a run found RUNNING (its owner died) or INTERRUPTED (without reconciliation): take the
// lease over, mark the steps in flight interrupted, and pause a side effect whose outcome is
// unknown for an operator.
absl::StatusOr<Run> Driver::Session::ResumeInterrupted() {
  // Every step, once: a damaged one anywhere fails the run (Damage). The window drops the older
  // ones at the next step.
  AGENTRT_RETURN_IF_ERROR(ReadHistory());
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
  // it: that call's outcome is still unknown, so it is still the one to pause.
  if (!executing && !steps_.empty() && steps_.back().status == StepStatus::kInterrupted &&
      steps_.back().observation) {
    absl::StatusOr<json::Document> content = json::Parse(steps_.back().observation->content);
    if (content.ok() && ParseStepStatus(json::MemberText(content->root(), "previous_status")) ==
                            StepStatus::kExecuting) {
      executing = steps_.size() - 1;
    }
  }
  // The run's row and the step whose call may be paused again must be what the chain recorded:
  // an edited decision would be put to the operator as the call that was interrupted.
  std::string executing_id = executing ? steps_[*executing].id : "";
  AGENTRT_RETURN_IF_ERROR(driver_.store_.Read([&](Transaction& tx) {
    return chain::CheckRunAndStep(tx, run_.id, executing_id, "resumed");
  }));
  AGENTRT_RETURN_IF_ERROR(Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunState> state, rows::ReadRunState(tx, run_.id));
    if (!state.has_value() || (state->status != ToString(RunStatus::kRunning) &&
                               state->status != ToString(RunStatus::kInterrupted))) {
      return absl::FailedPreconditionError(absl::StrCat("run ", run_.id, " moved"));
    }
    AGENTRT_RETURN_IF_ERROR(
        driver_.RefuseLiveForeignLease(run_.id, state->lease_owner, state->lease_expires_at));
    AGENTRT_RETURN_IF_ERROR(
        rows::TakeOver(tx, run_.id, driver_.options_.lease_owner, LeaseExpiry()));
    if (!state->lease_owner.empty()) {
      AGENTRT_RETURN_IF_ERROR(
          tx.AppendEvent(run_.id, "", now, event::kLeaseTakenOver,
                         json::JsonObject()
                             .String("previous_owner", state->lease_owner)
                             .String("previous_expires_at", state->lease_expires_at)
                             .String("owner", driver_.options_.lease_owner)
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
      AGENTRT_RETURN_IF_ERROR(rows::EndStep(tx, step.id, step.status,
                                            {.status = StepStatus::kInterrupted,
                                             .observation_json = ObservationJson(obs),
                                             .observation_hash = obs.content_hash,
                                             .finished_at = at})
                                  .status());
      AGENTRT_RETURN_IF_ERROR(
          tx.AppendEvent(run_.id, step.id, now, event::kStepInterrupted,
                         json::JsonObject().Raw("previous_status", obs.content).Build())
              .status());
      step.status = StepStatus::kInterrupted;
      step.observation = obs;
    }
    return absl::OkStatus();
  }));
  run_.status = RunStatus::kRunning;
  if (std::string damage = Damage(); !damage.empty()) return FailInternal(damage);
  if (driver_.options_.reconcile) {
    std::optional<absl::StatusOr<Run>> decided = Reconciled(executing);
    if (decided) return *std::move(decided);
  } else if (executing) {
    const Step& step = steps_[*executing];
    Tool* tool = step.decision ? driver_.registry_->Find(step.decision->tool) : nullptr;
    bool read_only = false;
    if (tool != nullptr) {
      absl::StatusOr<const RecordedSpec*> spec = driver_.registry_->Current(tool);
      read_only = spec.ok() && (*spec)->spec.side_effect == SideEffect::kReadOnly;
    }
    if (!read_only) {
      AGENTRT_RETURN_IF_ERROR(InterruptedPause(*executing, tool));
      return ReadRun(driver_.store_, run_.id);
    }
  }
  AGENTRT_RETURN_IF_ERROR(Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(RequireRunning(tx).status());
    return tx
        .AppendEvent(run_.id, "", now, event::kRunResumed,
                     json::JsonObject().String("after", "interruption").Build())
        .status();
  }));
  return Continue();
}

// Applies the consumer's reconciliation; nullopt means "continue".
std::optional<absl::StatusOr<Run>> Driver::Session::Reconciled(
    std::optional<std::size_t> executing) {
  RunView view;
  view.run = run_;
  view.steps = steps_.Share(steps_.size());
  view.approvals = approvals_;
  absl::StatusOr<Reconciliation> rec;
  try {
    rec = driver_.options_.reconcile(view);
  } catch (const std::exception& e) {
    rec = absl::InternalError(absl::StrCat("reconcile threw: ", e.what()));
  }
  auto settled = [&](absl::Status s) -> std::optional<absl::StatusOr<Run>> {
    if (!s.ok()) return absl::StatusOr<Run>(s);
    return ReadRun(driver_.store_, run_.id);
  };
  if (!rec.ok()) {
    return settled(Settle({.status = RunStatus::kFailed,
                           .reason = reason::kInternalError,
                           .detail = absl::StrCat("reconcile: ", rec.status().message())}));
  }
  switch (rec->outcome) {
    case Reconciliation::Outcome::kContinue:
      return std::nullopt;
    case Reconciliation::Outcome::kCompleted: {
      std::string result;
      if (!Blank(rec->result)) {
        absl::StatusOr<std::string> c = json::Canonicalize(rec->result);
        if (!c.ok()) {
          return settled(Settle({.status = RunStatus::kFailed,
                                 .reason = reason::kInternalError,
                                 .detail = absl::StrCat("reconcile: result is not usable JSON: ",
                                                        c.status().message())}));
        }
        result = *c;
      }
      return settled(Settle({.status = RunStatus::kCompleted,
                             .reason = reason::kGoalCompleted,
                             .detail = "completed by reconciliation: " + rec->detail,
                             .result = result}));
    }
    case Reconciliation::Outcome::kConflict:
      return settled(Settle({.status = RunStatus::kFailed,
                             .reason = reason::kReconcileConflict,
                             .detail = rec->detail}));
    case Reconciliation::Outcome::kWaiting: {
      if (!rec->pause || rec->pause->outcome != PolicyOutcome::kRequireApproval) {
        return settled(
            Settle({.status = RunStatus::kFailed,
                    .reason = reason::kReconcileConflict,
                    .detail = "reconciliation asked to wait but gave no approval to wait for"}));
      }
      if (!executing) {
        return settled(
            Settle({.status = RunStatus::kFailed,
                    .reason = reason::kReconcileConflict,
                    .detail = "reconciliation asked to wait but no tool call was executing"}));
      }
      const Step& step = steps_[*executing];
      Tool* tool = step.decision ? driver_.registry_->Find(step.decision->tool) : nullptr;
      return settled(InterruptedPause(*executing, tool, &*rec->pause));
    }
  }
  return std::nullopt;
}

// A tool that may have changed the world was executing when its process stopped: the outcome
// is unknown, so the runtime does not run it again on its own; an operator decides (ADR 6).
absl::Status Driver::Session::InterruptedPause(std::size_t index, Tool* tool,
                                               const PolicyDecision* reconciled) {
  Step& step = steps_[index];
  const Decision& decision = *step.decision;
  auto conflict = [&](std::string why) {
    return Settle(
        {.status = RunStatus::kFailed,
         .reason = reason::kReconcileConflict,
         .detail = absl::StrCat("step ", step.index,
                                " was interrupted while executing a tool call whose outcome is "
                                "unknown, and it cannot wait for an operator: ",
                                ToAbsl(why))});
  };
  if (tool == nullptr) return conflict("its tool is not registered");
  AGENTRT_ASSIGN_OR_RETURN(const RecordedSpec* spec, driver_.registry_->Current(tool));
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
  pd.kind = kInterruptedSideEffectKind;
  if (reconciled != nullptr) {
    // The consumer chose what to ask: its decision pauses the call like any other.
    pd = *reconciled;
    pd.outcome_text = "require_approval";
  }
  if (reconciled == nullptr) {
    pd.capability =
        json::JsonObject().Raw("args", request.args).String("tool", spec->spec.name).Build();
    pd.presentation =
        json::JsonObject()
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
  std::string policy_event = json::JsonObject()
                                 .String("outcome", pd.outcome_text)
                                 .String("reason", pd.reason)
                                 .String("kind", pd.kind)
                                 .String("spec_hash", spec->hash)
                                 .Build();
  absl::Time at = Now();
  // Pause ends the step it works on: make this step the current one.
  const auto at_index = steps_.begin() + static_cast<std::ptrdiff_t>(index - steps_.first());
  std::rotate(at_index, at_index + 1, steps_.end());
  return Pause(pd, request, *spec, [&](Transaction& tx) {
    return tx.AppendEvent(run_.id, request.step_id, at, event::kStepPolicy, policy_event).status();
  });
}

// Resumes a run paused for approval: only the latest approval of
// the awaiting step can grant; its hash is verified; the tool must still be registered and
// its current spec is the one judged; the arguments must meet the current schema; the policy
// is asked again and an identical required approval is the grant, a different one pauses
// again. Then the loop goes on.
absl::StatusOr<Run> Driver::Session::ResumeApproved() {
  AGENTRT_RETURN_IF_ERROR(ReadHistory());
  const std::vector<Approval>& approvals = approvals_;
  if (std::string damage = Damage(); !damage.empty()) {
    AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::FailPaused{}));
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
    AGENTRT_RETURN_IF_ERROR(ExpireApproval(driver_.store_, *latest, Now()));
    return ReadRun(driver_.store_, run_.id);
  }
  if (latest->status != ApprovalStatus::kApproved) {
    return absl::FailedPreconditionError(absl::StrCat("the latest approval for step ", step.id,
                                                      " is ", ToAbsl(ToString(latest->status)),
                                                      ", not approved"));
  }
  AGENTRT_RETURN_IF_ERROR(VerifyApprovalHash(*latest));
  // A row is only a copy: the grant is what the chain recorded (approval.requested's hash binds
  // the request, approval.decided the decision), and so are the run's limits and the step.
  AGENTRT_RETURN_IF_ERROR(
      driver_.store_.Read([&](Transaction& tx) { return chain::CheckGrant(tx, *latest, "run"); }));
  AGENTRT_ASSIGN_OR_RETURN(json::Document request, json::Parse(latest->request));
  std::optional<json::Value> spec_value = request.root().Find("spec");
  std::optional<json::Value> name = spec_value ? spec_value->Find("name") : std::nullopt;
  std::optional<json::Value> args = request.root().Find("args");
  if (!name || !name->is_string() || !args) {
    return absl::DataLossError(absl::StrCat("approval ", latest->id, " has no usable request"));
  }
  Tool* tool = driver_.registry_->Find(name->string_value());
  if (tool == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "approved tool \"", ToAbsl(json::Sanitize(name->string_value())), "\" is not registered"));
  }
  AGENTRT_ASSIGN_OR_RETURN(const RecordedSpec* spec, driver_.registry_->Current(tool));
  absl::Time resumed_at = Now();
  if (run_.limits.grant_ttl > absl::ZeroDuration() &&
      resumed_at > latest->decided_at + run_.limits.grant_ttl) {
    AGENTRT_RETURN_IF_ERROR(ExpireApproval(driver_.store_, *latest, resumed_at));
    return ReadRun(driver_.store_, run_.id);
  }
  AGENTRT_RETURN_IF_ERROR(
      Move(internal::SessionState::GrantResumed{{.approval = *latest, .resumed_at = resumed_at}}));
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
  if (after_resume_ == AfterResume::kHandBack) return ReadRun(driver_.store_, run_.id);
  bool go_on = next == Next::kContinue;
  if (next == Next::kAllowed) {
    // The approved call takes the lease in the transaction that starts it; a heartbeat keeps it
    // through a call longer than its TTL, as the loop's does (its first beat comes a third of a
    // TTL later, after that transaction).
    internal::LeaseHeartbeat heartbeat(driver_.store_, *driver_.options_.scheduler, run_.id,
                                       driver_.options_.lease_owner, driver_.options_.lease_ttl,
                                       driver_.options_.on_lease_renewed);
    AGENTRT_ASSIGN_OR_RETURN(go_on, ExecutePending());
  }
  if (!go_on) return ReadRun(driver_.store_, run_.id);
  return Loop();
}

}  // namespace agentrt
