// Running an allowed call and ending steps and runs (reference/core.md §4.6, §4.7, §4.9).
#include <algorithm>
#include <exception>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/run_end.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "runtime/json/utf8.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
using store::Transaction;
using world::FormatTimestamp;

absl::StatusOr<bool> Driver::Session::Execute(
    const Decision& decision, const RecordedSpec& spec, Tool* tool, absl::Time start_at,
    const std::function<absl::Status(Transaction&)>& write_policy) {
  Step& step = current();
  std::string policy_json = PolicyJson(*step.policy);
  // Only a call the policy allowed (or whose grant it asked for again) is executed, under the
  // identity Judge put in the step.policy event.
  const std::string& policy_id = d_.policy_id_;
  std::string args = decision.args.empty() ? "{}" : decision.args;
  std::string started = FormatTimestamp(start_at);
  std::string granted = resumed_approval_;
  absl::Time lease_now = LeaseNow();
  std::string expiry = FormatTimestamp(lease_now + d_.options_.lease_ttl);
  AGENTRT_RETURN_IF_ERROR(Write(
      [&](Transaction& tx) -> absl::Status {
        AGENTRT_ASSIGN_OR_RETURN(rows::RunState state, RequireRunning(tx));
        if (from_ == RunStatus::kRunning) {
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
  Entered();
  step.status = StepStatus::kExecuting;
  step.started_at = start_at;

  ToolCall call{run_.id, step.id, args, start_at + spec.spec.timeout, &d_.clock_, cancellation_};
  absl::StatusOr<ToolResult> result;
  // A tool that throws has panicked: the status says so by its payload, never by its words (a
  // tool may return any message, "panic: " included).
  auto panicked = [](std::string_view what) {
    absl::Status status = absl::InternalError(absl::StrCat("panic: ", ToAbsl(what)));
    status.SetPayload(ToAbsl(payload::kToolPanic), absl::Cord());
    return status;
  };
  try {
    result = tool->Call(call);
  } catch (const std::exception& e) {
    result = panicked(e.what());
  } catch (...) {
    result = panicked("a non-standard exception");
  }
  const std::string& name = spec.spec.name;
  Observation obs;
  bool abort = false;
  bool interrupted = false;
  std::string abort_detail;
  if (!result.ok() && cancelled() && !IsAbortRun(result.status())) {
    // Told to stop, the tool stopped without an outcome: whether its effect happened is
    // unknown, so the step is interrupted as a crash would leave it (previous_status executing),
    // and a resume asks an operator before anything that is not read_only runs again.
    interrupted = true;
    obs = MakeObservation(ObservationKind::kInterrupted,
                          {{"tool", name},
                           {"error", std::string(ToStd(result.status().message()))},
                           {"failure", std::string(ToString(ToolFailure::kCancelled))},
                           {"previous_status", std::string(ToString(StepStatus::kExecuting))}},
                          absl::StrCat(ToAbsl(name), " was cancelled; its outcome is unknown"));
  } else if (!result.ok()) {
    std::string error(ToStd(result.status().message()));
    ToolFailure failure = ToolFailure::kError;
    std::string summary = absl::StrCat(ToAbsl(name), " error: ", ToAbsl(error));
    if (IsAbortRun(result.status())) {
      abort = true;
      abort_detail = std::string(
          result.status().GetPayload(ToAbsl(payload::kAbortRun)).value_or(absl::Cord()).Flatten());
      failure = ToolFailure::kAbort;
      summary = absl::StrCat(ToAbsl(name), " aborted the run: ", ToAbsl(abort_detail));
    } else if (result.status().code() == absl::StatusCode::kDeadlineExceeded || call.Expired()) {
      failure = ToolFailure::kTimeout;
      summary = absl::StrCat(ToAbsl(name), " timeout: ", ToAbsl(error));
    } else if (result.status().GetPayload(ToAbsl(payload::kToolPanic)).has_value()) {
      summary = absl::StrCat(ToAbsl(name), " panicked");
    }
    obs = MakeObservation(
        ObservationKind::kToolError,
        {{"tool", name}, {"error", error}, {"failure", std::string(ToString(failure))}}, summary);
  } else {
    std::string content = Blank(result->content) ? "{}" : result->content;
    absl::StatusOr<std::string> canonical = json::Canonicalize(content);
    if (!canonical.ok()) {
      std::string why(ToStd(canonical.status().message()));
      obs = MakeObservation(
          ObservationKind::kToolError,
          {{"tool", name},
           {"error", "content is not usable JSON: " + why},
           {"failure", std::string(ToString(ToolFailure::kInvalidContent))},
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
  if (interrupted) {
    recorded = EndStep(StepStatus::kInterrupted, obs, obs.summary);
  } else if (abort) {
    recorded = Settle({.status = RunStatus::kFailed,
                       .reason = reason::kToolAbort,
                       .detail = abort_detail,
                       .step = StepEnd{StepStatus::kFailed, obs, obs.summary}});
  } else if (obs.is_failure()) {
    recorded = EndStep(StepStatus::kFailed, obs, obs.summary);
    go_on = true;
  } else if (spec.spec.terminal) {
    recorded = Settle({.status = RunStatus::kCompleted,
                       .reason = reason::kGoalCompleted,
                       .detail = absl::StrCat("terminal tool ", ToAbsl(name)),
                       .result = obs.content,
                       .step = StepEnd{StepStatus::kDone, obs, ""}});
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
  if (interrupted) return Cancelled();
  return go_on;
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
  Entered();
  return absl::OkStatus();
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
