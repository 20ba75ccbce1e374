// Running an allowed call and ending steps and runs.
#include <algorithm>
#include <exception>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/run_end.h"
#include "runtime/engine/session.h"
#include "runtime/engine/tool_outcome.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
using store::Transaction;
using world::FormatTimestamp;

// Runs an allowed call: its start is recorded, the tool is called, its answer classified
// (tool_outcome.h) and the outcome recorded.
absl::StatusOr<bool> Driver::Session::Execute(
    const Decision& decision, const RecordedSpec& spec, Tool* tool, absl::Time start_at,
    const std::function<absl::Status(Transaction&)>& write_policy) {
  std::string args = decision.args.empty() ? "{}" : decision.args;
  AGENTRT_RETURN_IF_ERROR(RecordCallStart(args, spec, start_at, write_policy));
  ToolCall call{run_.id,         current().id, args, start_at + spec.spec.timeout,
                &driver_.clock_, cancellation_};
  absl::StatusOr<ToolResult> result = CallTool(*tool, call);
  internal::ToolOutcome outcome = internal::ClassifyToolResult(
      result, spec.spec.name, spec.spec.terminal, [&] { return cancelled(); },
      [&] { return call.Expired(); });
  return RecordOutcome(outcome, spec.spec.name, start_at);
}

// The call's start, with the policy's record, in one transaction: from here the step is
// executing, and a crash leaves it for a resume to find.
absl::Status Driver::Session::RecordCallStart(
    std::string_view args, const RecordedSpec& spec, absl::Time start_at,
    const std::function<absl::Status(Transaction&)>& write_policy) {
  Step& step = current();
  std::string policy_json = PolicyJson(*step.policy);
  // Only a call the policy allowed (or whose grant it asked for again) is executed, under the
  // identity Judge put in the step.policy event.
  const std::string& policy_id = driver_.policy_id_;
  std::string started = FormatTimestamp(start_at);
  std::string granted = entering_approval();
  absl::Time lease_now = LeaseNow();
  std::string expiry = FormatTimestamp(lease_now + driver_.options_.lease_ttl);
  bool under_lease = state_.guard() == RunStatus::kRunning;
  AGENTRT_RETURN_IF_ERROR(Write(
      [&](Transaction& tx) -> absl::Status {
        AGENTRT_ASSIGN_OR_RETURN(rows::RunState state, RequireRunning(tx));
        if (under_lease) {
          // A side effect starts only under a live lease: a loop whose lease lapsed (another
          // owner may be taking over) stops here, before the call.
          AGENTRT_RETURN_IF_ERROR(RequireLiveLease(state, lease_now, "no tool is started"));
        }
        AGENTRT_RETURN_IF_ERROR(EnterIfResuming(tx));
        AGENTRT_RETURN_IF_ERROR(rows::SetLeaseExpiry(tx, run_.id, expiry));
        AGENTRT_RETURN_IF_ERROR(rows::StartExecuting(tx, step.id, policy_json, policy_id, started));
        // The spec the step.policy below names, when a resume judged another than the decision
        // recorded (the tool changed while the run waited).
        if (spec.hash != step.spec_hash) {
          AGENTRT_RETURN_IF_ERROR(rows::InsertToolSpec(tx, spec.hash, spec.json));
        }
        AGENTRT_RETURN_IF_ERROR(write_policy(tx));
        return tx
            .AppendEvent(run_.id, step.id, start_at, event::kStepToolStarted,
                         json::JsonObject()
                             .String("tool", spec.spec.name)
                             .Raw("args", *json::Canonicalize(args))
                             .StringIfSet("approval_id", granted)
                             .Build())
            .status();
      },
      // A call that may change the world starts only once its start is on disk: a power cut
      // can never leave it run but unrecorded.
      {.durable = spec.spec.side_effect != SideEffect::kReadOnly}));
  AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Enter{}));
  step.status = StepStatus::kExecuting;
  step.started_at = start_at;
  return absl::OkStatus();
}

// A tool that throws has panicked: the status says so by its payload, never by its words (a
// tool may return any message, "panic: " included).
absl::StatusOr<ToolResult> Driver::Session::CallTool(Tool& tool, const ToolCall& call) {
  auto panicked = [](std::string_view what) {
    absl::Status status = absl::InternalError(absl::StrCat("panic: ", ToAbsl(what)));
    status.SetPayload(ToAbsl(payload::kToolPanic), absl::Cord());
    return status;
  };
  try {
    return tool.Call(call);
  } catch (const std::exception& e) {
    return panicked(e.what());
  } catch (...) {
    return panicked("a non-standard exception");
  }
}

// Ends the step (and the run, for an abort or a terminal tool) as the outcome says. True when
// the loop goes on.
absl::StatusOr<bool> Driver::Session::RecordOutcome(const internal::ToolOutcome& outcome,
                                                    std::string_view name, absl::Time start_at) {
  using Ending = internal::ToolOutcome::Ending;
  const Observation& obs = outcome.observation;
  absl::Status recorded;
  switch (outcome.ending) {
    case Ending::kInterrupted:
      recorded = EndStep(StepStatus::kInterrupted, obs, obs.summary);
      break;
    case Ending::kAbortRun:
      recorded = Settle({.status = RunStatus::kFailed,
                         .reason = reason::kToolAbort,
                         .detail = outcome.abort_detail,
                         .step = StepEnd{StepStatus::kFailed, obs, obs.summary}});
      break;
    case Ending::kFailed:
      recorded = EndStep(StepStatus::kFailed, obs, obs.summary);
      break;
    case Ending::kCompleteRun:
      recorded = Settle({.status = RunStatus::kCompleted,
                         .reason = reason::kGoalCompleted,
                         .detail = absl::StrCat("terminal tool ", ToAbsl(name)),
                         .result = obs.content,
                         .step = StepEnd{StepStatus::kDone, obs, ""}});
      break;
    case Ending::kDone:
      recorded = EndStep(StepStatus::kDone, obs, "");
      break;
  }
  if (absl::IsFailedPrecondition(recorded)) {
    // The run was moved while the tool ran. Work already done is never lost: when an
    // operator cancelled, the outcome is appended after the run's end.
    AGENTRT_RETURN_IF_ERROR(AppendLateOutcome(obs, start_at));
  }
  AGENTRT_RETURN_IF_ERROR(recorded);
  if (outcome.ending == Ending::kInterrupted) return Cancelled();
  return outcome.ending == Ending::kFailed || outcome.ending == Ending::kDone;
}

absl::Status Driver::Session::AppendLateOutcome(const Observation& obs, absl::Time started_at) {
  Step& step = current();
  absl::Time at = Now();
  std::int64_t ms = std::max<std::int64_t>(0, absl::ToInt64Milliseconds(at - started_at));
  return Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::optional<rows::RunState> state, rows::ReadRunState(tx, run_.id));
    if (!state.has_value() || state->status != ToString(RunStatus::kCancelled) ||
        state->reason != reason::kOperatorCancelled) {
      return absl::OkStatus();
    }
    json::JsonObject payload;
    payload.String("tool", step.decision->tool)
        .Int("duration_ms", ms)
        .Bool("late", true)
        .Raw("observation", ObservationJson(obs));
    if (!obs.is_failure()) {
      payload.StringIfSet("summary", obs.summary).String("content_hash", obs.content_hash);
    }
    return tx.AppendEvent(run_.id, step.id, at, event::kStepToolFinished, payload.Build()).status();
  });
}

// Ends the current step inside `tx` at `at`: its columns, active time, and the
// step.tool_finished / step.failed events.
absl::Status Driver::Session::EndStepTx(Transaction& tx, const StepEnd& end, absl::Time at) {
  Step& step = current();
  StepStatus previous = step.status;
  step.status = end.status;
  step.observation = end.observation;
  step.finished_at = at;
  std::string obs_json = end.observation ? ObservationJson(*end.observation) : "";
  std::string obs_hash = end.observation ? end.observation->content_hash : "";
  std::string finished = FormatTimestamp(at);
  AGENTRT_ASSIGN_OR_RETURN(bool ended, rows::EndStep(tx, step.id, previous,
                                                     {.status = end.status,
                                                      .observation_json = obs_json,
                                                      .observation_hash = obs_hash,
                                                      .finished_at = finished}));
  if (!ended) {
    return absl::FailedPreconditionError(absl::StrCat("step ", step.id, " moved under us"));
  }
  std::int64_t ms = std::max<std::int64_t>(0, absl::ToInt64Milliseconds(at - step.started_at));
  AGENTRT_RETURN_IF_ERROR(rows::AddActiveTime(tx, run_.id, ms));
  run_.active_time += absl::Milliseconds(ms);
  if (previous == StepStatus::kExecuting) {
    json::JsonObject finished_payload;
    finished_payload.String("tool", step.decision->tool).Int("duration_ms", ms);
    if (end.status == StepStatus::kDone && end.observation) {
      finished_payload.StringIfSet("summary", end.observation->summary)
          .String("content_hash", end.observation->content_hash);
    } else {
      finished_payload.String("error", end.detail);
    }
    AGENTRT_RETURN_IF_ERROR(
        tx.AppendEvent(run_.id, step.id, at, event::kStepToolFinished, finished_payload.Build())
            .status());
  }
  if (end.status == StepStatus::kInterrupted && end.observation) {
    AGENTRT_RETURN_IF_ERROR(
        tx.AppendEvent(run_.id, step.id, at, event::kStepInterrupted,
                       json::JsonObject().Raw("previous_status", end.observation->content).Build())
            .status());
  }
  if (end.status == StepStatus::kFailed) {
    json::JsonObject failed;
    failed.String("detail", end.detail);
    if (end.observation) {
      failed.String("observation", ToString(end.observation->kind))
          .String("content_hash", end.observation->content_hash);
    }
    AGENTRT_RETURN_IF_ERROR(
        tx.AppendEvent(run_.id, step.id, at, event::kStepFailed, failed.Build()).status());
  }
  return absl::OkStatus();
}

absl::Status Driver::Session::EndStep(StepStatus status, std::optional<Observation> obs,
                                      std::string detail,
                                      const std::function<absl::Status(Transaction&)>& pre) {
  absl::Time at = Now();
  AGENTRT_RETURN_IF_ERROR(Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(RequireRunning(tx).status());
    AGENTRT_RETURN_IF_ERROR(EnterIfResuming(tx));
    if (pre) AGENTRT_RETURN_IF_ERROR(pre(tx));
    return EndStepTx(tx, StepEnd{status, std::move(obs), detail}, at);
  }));
  return Move(internal::SessionState::Enter{});
}

// Ends the run (and, when `step_end` is set or `step_detail` given, its current step) in
// one transaction: a finished step never sits under a running run.
absl::Status Driver::Session::Settle(Ending ending) {
  absl::Time step_at = ending.step ? Now() : absl::InfinitePast();
  absl::Time at = Now();
  return Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(RequireRunning(tx).status());
    if (ending.pre) AGENTRT_RETURN_IF_ERROR(ending.pre(tx));
    if (ending.step) AGENTRT_RETURN_IF_ERROR(EndStepTx(tx, *ending.step, step_at));
    RunEnd run_end{ending.status, ending.reason, ending.detail, ending.result};
    run_end.limit = reason::IsLimit(ending.reason);
    return FinishRunTx(tx, run_.id, run_end, at);
  });
}

}  // namespace agentrt
