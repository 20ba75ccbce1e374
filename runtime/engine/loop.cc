// The step loop: limits, claiming a step, recording and validating a decision.
#include <exception>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/lease_heartbeat.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

// The reason a run ends with when the decision could not be made: a model limit or an unavailable
// model the agent passed on, else agent_error.
std::string DecisionFailureReason(const absl::Status& error) {
  if (std::optional<std::string> limit = LimitReasonOf(error)) return *limit;
  if (IsModelUnavailable(error)) return std::string(reason::kModelUnavailable);
  return std::string(reason::kAgentError);
}

std::string FormatMs(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(1)));
}

}  // namespace

using internal::LeaseHeartbeat;
using store::Transaction;
using world::FormatTimestamp;

// After a resume: the driver's loop goes on; a gate attaching hands the run back.
absl::StatusOr<Run> Driver::Session::Continue() {
  if (after_resume_ == AfterResume::kHandBack) return ReadRun(driver_.store_, run_.id);
  return Loop();
}

// Drives the run until it ends or pauses. A write refused because the run was moved by
// someone else (an operator's cancel, say) returns the run as that writer left it.
absl::StatusOr<Run> Driver::Session::Loop() {
  absl::StatusOr<Run> result;
  {
    LeaseHeartbeat heartbeat(driver_.store_, *driver_.options_.scheduler, run_.id,
                             driver_.options_.lease_owner, driver_.options_.lease_ttl,
                             driver_.options_.on_lease_renewed);
    result = Iterate();
  }
  if (!result.ok() && absl::IsFailedPrecondition(result.status())) {
    absl::StatusOr<Run> now = ReadRun(driver_.store_, run_.id);
    if (now.ok() && now->status != RunStatus::kRunning) return now;
  }
  return result;
}

absl::StatusOr<Run> Driver::Session::Iterate() {
  for (;;) {
    AGENTRT_RETURN_IF_ERROR(RefreshRun(driver_.store_, run_));
    if (run_.status != RunStatus::kRunning) return run_;
    if (cancelled()) return Cancelled();
    AGENTRT_ASSIGN_OR_RETURN(bool ended, CheckLimits());
    if (ended) return ReadRun(driver_.store_, run_.id);
    AGENTRT_ASSIGN_OR_RETURN(bool started, StartStep());
    if (!started) return ReadRun(driver_.store_, run_.id);
    AGENTRT_ASSIGN_OR_RETURN(bool go_on, DecideAndAct());
    if (!go_on) return ReadRun(driver_.store_, run_.id);
  }
}

// Trailing steps whose observation is a failure; a step without one, or a success, ends it.
// Counting stops at `enough` (see LoopRepeats).
int Driver::Session::ConsecutiveFailures(int enough) const {
  int n = 0;
  for (auto it = steps_.rbegin(); it != steps_.rend() && n < enough; ++it) {
    if (!it->observation || !it->observation->is_failure()) break;
    ++n;
  }
  return n;
}

// Identical trailing (tool, canonical args, observation) signatures; a changed result is
// progress. Invalid decisions take no part. Counting stops at `enough`: the check runs before
// every step, so a run never has more repeats than its threshold, and walking further back
// (with a hash of every step's arguments) would make a step's cost grow with the run.
std::pair<int, const Step*> Driver::Session::LoopRepeats(int enough) const {
  int repeats = 0;
  const Step* last = nullptr;
  std::string signature;
  for (auto it = steps_.rbegin(); it != steps_.rend() && repeats < enough; ++it) {
    const Step& s = *it;
    if (!s.decision || s.decision->Kind() != DecisionKind::kToolCall || !s.observation ||
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

absl::StatusOr<bool> Driver::Session::CheckLimits() {
  const Limits& l = run_.limits;
  if (run_.step_count >= l.max_steps) {
    AGENTRT_RETURN_IF_ERROR(
        Settle({.status = RunStatus::kFailed,
                .reason = reason::kLimitSteps,
                .detail = absl::StrCat("step limit ", l.max_steps, " reached")}));
    return true;
  }
  if (int failures = ConsecutiveFailures(l.max_consecutive_tool_failures);
      failures >= l.max_consecutive_tool_failures) {
    AGENTRT_RETURN_IF_ERROR(
        Settle({.status = RunStatus::kFailed,
                .reason = reason::kRepeatedToolFailures,
                .detail = absl::StrCat(failures, " consecutive failed steps")}));
    return true;
  }
  if (l.max_active_time > absl::ZeroDuration() && run_.active_time >= l.max_active_time) {
    AGENTRT_RETURN_IF_ERROR(Settle(
        {.status = RunStatus::kFailed,
         .reason = reason::kLimitActiveTime,
         .detail = absl::StrCat("active time ", FormatMs(run_.active_time), " reached limit ",
                                absl::FormatDuration(l.max_active_time))}));
    return true;
  }
  if (l.max_elapsed_time > absl::ZeroDuration() && Now() - run_.created_at >= l.max_elapsed_time) {
    AGENTRT_RETURN_IF_ERROR(
        Settle({.status = RunStatus::kFailed,
                .reason = reason::kLimitElapsedTime,
                .detail = absl::StrCat("elapsed time reached limit ",
                                       absl::FormatDuration(l.max_elapsed_time))}));
    return true;
  }
  auto [repeats, step] = LoopRepeats(l.loop_threshold);
  if (repeats >= l.loop_threshold) {
    std::string tool = step->decision->tool;
    std::string loop = json::JsonObject()
                           .Int("repeats", repeats)
                           .String("tool", tool)
                           .String("args_hash", ContentHash(step->decision->args))
                           .String("observation_hash", step->observation->content_hash)
                           .Build();
    absl::Time at = Now();
    AGENTRT_RETURN_IF_ERROR(
        Settle({.status = RunStatus::kFailed,
                .reason = reason::kLoopDetected,
                .detail = absl::StrCat(ToAbsl(tool), " produced the same observation ", repeats,
                                       " times in a row"),
                .pre = [&](Transaction& tx) {
                  return tx.AppendEvent(run_.id, "", at, event::kLoopDetected, loop).status();
                }}));
    return true;
  }
  return false;
}

absl::StatusOr<bool> Driver::Session::StartStep() {
  Step step;
  step.id = driver_.entropy_.NewId();
  step.run_id = run_.id;
  step.index = run_.step_count;
  step.status = StepStatus::kDeciding;
  step.started_at = Now();
  bool claimed = false;
  std::string expiry = LeaseExpiry();
  AGENTRT_RETURN_IF_ERROR(Write([&](Transaction& tx) -> absl::Status {
    // Claiming the step renews the lease: only the owner can, so of two loops on one run
    // exactly one starts each step.
    AGENTRT_ASSIGN_OR_RETURN(bool counted, rows::ClaimStep(tx, run_.id, step.index,
                                                           driver_.options_.lease_owner, expiry));
    if (!counted) return absl::OkStatus();  // someone else moved the run
    AGENTRT_RETURN_IF_ERROR(
        rows::InsertStep(tx, step.id, run_.id, step.index, FormatTimestamp(step.started_at)));
    AGENTRT_RETURN_IF_ERROR(tx.AppendEvent(run_.id, step.id, step.started_at, event::kStepStarted,
                                           json::JsonObject().Int("index", step.index).Build())
                                .status());
    claimed = true;
    return absl::OkStatus();
  }));
  if (!claimed) return false;
  ++run_.step_count;
  steps_.push_back(step, HeldStepsFor(run_.limits));
  if (driver_.options_.model.model != nullptr) {
    model_caller_ = std::make_unique<AccountingModelCaller>(
        driver_.options_.model,
        ModelCallScope{.store = &driver_.store_,
                       .clock = &driver_.clock_,
                       .entropy = &driver_.entropy_,
                       .run_id = run_.id,
                       .step_id = step.id,
                       .step_started_at = step.started_at,
                       .limits = run_.limits,
                       .run_created_at = run_.created_at,
                       .run_active_time = run_.active_time,
                       // Only the run's live owner may spend on the model for it.
                       .require_lease = [this](Transaction& tx) -> absl::Status {
                         AGENTRT_ASSIGN_OR_RETURN(rows::RunState state, RequireRunning(tx));
                         return RequireLiveLease(state, LeaseNow(), "nothing is sent to the model");
                       },
                       .cancellation = cancellation_});
  }
  return true;
}

// What an agent is handed for the open step: copies of the run (this step already counted),
// the steps before it and the registered tools.
StepInput Driver::Session::Input() const {
  StepInput input;
  input.run = run_;
  if (!steps_.empty()) input.steps = steps_.Share(steps_.size() - 1);
  for (const RecordedSpec& s : driver_.registry_->specs()) input.tools.push_back(s.spec);
  input.model = model_caller_.get();
  input.cancellation = cancellation_;
  return input;
}

// Opens the next step for a caller-owned loop: the same checks and claim as the driver's
// loop. False when the run is no longer RUNNING or a limit ended it.
absl::StatusOr<bool> Driver::Session::OpenStep() {
  AGENTRT_RETURN_IF_ERROR(RefreshRun(driver_.store_, run_));
  if (run_.status != RunStatus::kRunning) return false;
  if (cancelled()) return Cancelled();
  AGENTRT_ASSIGN_OR_RETURN(bool ended, CheckLimits());
  if (ended) return false;
  return StartStep();
}

// The decision could not be made: the run fails with the reason the error carries.
absl::Status Driver::Session::FailStep(const absl::Status& why) {
  std::string error(ToStd(why.message()));
  return Settle({.status = RunStatus::kFailed,
                 .reason = DecisionFailureReason(why),
                 .detail = error,
                 .step = FailedStep("agent error: " + error)});
}

absl::StatusOr<bool> Driver::Session::DecideAndAct() {
  StepInput input = Input();
  absl::StatusOr<Decision> decided;
  try {
    decided = driver_.options_.agent->Decide(input);
  } catch (const std::exception& e) {
    decided = absl::InternalError(absl::StrCat("agent threw: ", e.what()));
  } catch (...) {
    decided = absl::InternalError("agent threw a non-standard exception");
  }
  if (!decided.ok()) {
    // An agent stopped by its caller's cancellation has failed at nothing: the step stays
    // deciding, and a resume treats it as interrupted.
    if (cancelled()) return Cancelled();
    AGENTRT_RETURN_IF_ERROR(FailStep(decided.status()));
    return false;
  }
  AGENTRT_ASSIGN_OR_RETURN(Next next, Propose(*decided));
  if (next == Next::kAllowed) return ExecutePending();
  return next == Next::kContinue;
}

// Runs the allowed call: the policy record and the tool start commit together, then the tool
// runs and its outcome is recorded.
absl::StatusOr<bool> Driver::Session::ExecutePending() {
  if (state_.call() == nullptr) return absl::FailedPreconditionError("no allowed call to execute");
  internal::AllowedCall p;
  AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Take{&p}));
  // No tool starts once the caller cancelled: the step keeps its decision, still deciding.
  if (cancelled()) {
    AGENTRT_RETURN_IF_ERROR(WriteStagedDecision());
    return Cancelled();
  }
  return Execute(p.decision, *p.spec, p.tool, p.start_at, [&](Transaction& tx) {
    return tx.AppendEvent(run_.id, current().id, p.policy_at, event::kStepPolicy, p.policy_event)
        .status();
  });
}

// Records the decision as the agent made it, before anything judges it (staged: see session.h).
absl::Status Driver::Session::RecordDecision(const Decision& decision, const RecordedSpec* spec) {
  Step& step = current();
  std::string spec_hash = spec != nullptr ? spec->hash : step.spec_hash;
  AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Stage{{.step_id = step.id,
                                                              .json = DecisionJson(decision),
                                                              .spec_hash = spec_hash,
                                                              .spec = spec,
                                                              .at = Now()}}));
  // What a fresh read of the step gives once it is written.
  step.decision = StoredDecision(decision);
  step.spec_hash = std::move(spec_hash);
  return absl::OkStatus();
}

// Returns "" when the decision is usable, else why not (one sentence for the agent).
std::string Driver::Session::Validate(const Decision& decision, const RecordedSpec* spec) {
  const std::string& o = decision.origin;
  if (!o.empty() && o != "model" && o != "plan" && o != "operator") {
    return absl::StrCat("unknown decision origin \"", ToAbsl(json::Sanitize(o)), "\"");
  }
  switch (decision.Kind()) {
    case DecisionKind::kComplete:
      if (!Blank(decision.result)) {
        if (absl::Status s = json::Parse(decision.result).status(); !s.ok()) {
          return absl::StrCat("result is not usable JSON: ", s.message());
        }
      }
      return "";
    case DecisionKind::kFail:
      return "";
    case DecisionKind::kToolCall:
      if (decision.tool.empty()) return "tool_call without a tool name";
      if (spec == nullptr) {
        return absl::StrCat("unknown tool \"", ToAbsl(json::Sanitize(decision.tool)), "\"");
      }
      if (absl::Status s = CheckArgs(*spec, decision.args); !s.ok()) {
        return std::string(ToStd(s.message()));
      }
      return "";
    case DecisionKind::kTruncated:
      return "the reply was cut off by the output cap before a tool call";
    case DecisionKind::kNoToolCall:
      return "the reply contained no tool call";
    case DecisionKind::kUnknown:
      break;
  }
  if (decision.kind.empty()) return "decision has no kind";
  return absl::StrCat("unknown decision kind \"", ToAbsl(json::Sanitize(decision.kind)), "\"");
}

absl::StatusOr<Driver::Session::Next> Driver::Session::Propose(Decision decision) {
  if (Blank(decision.args)) decision.args.clear();
  if (Blank(decision.result)) decision.result.clear();
  Tool* tool =
      decision.Kind() == DecisionKind::kToolCall ? driver_.registry_->Find(decision.tool) : nullptr;
  const RecordedSpec* spec = nullptr;
  if (tool != nullptr) {
    absl::StatusOr<const RecordedSpec*> current = driver_.registry_->Current(tool);
    if (!current.ok()) {
      AGENTRT_RETURN_IF_ERROR(
          Settle({.status = RunStatus::kFailed,
                  .reason = reason::kInternalError,
                  .detail = absl::StrCat("internal: ", current.status().message()),
                  .step = FailedStep("tool spec refused")}));
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
  if (decision.Kind() == DecisionKind::kComplete) {
    std::string result;
    if (!decision.result.empty()) result = *json::Canonicalize(decision.result);
    AGENTRT_RETURN_IF_ERROR(Settle({.status = RunStatus::kCompleted,
                                    .reason = reason::kGoalCompleted,
                                    .result = result,
                                    .step = StepEnd{StepStatus::kDone, std::nullopt, ""}}));
    return Next::kStop;
  }
  if (decision.Kind() == DecisionKind::kFail) {
    AGENTRT_RETURN_IF_ERROR(Settle({.status = RunStatus::kFailed,
                                    .reason = reason::kGoalFailed,
                                    .detail = decision.message,
                                    .step = StepEnd{StepStatus::kDone, std::nullopt, ""}}));
    return Next::kStop;
  }
  return Judge(decision, *spec, tool);
}

}  // namespace agentrt
