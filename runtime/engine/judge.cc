// Asking the policy and acting on its answer, pausing for approval.
#include <exception>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/session.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/reasons.h"
#include "runtime/records/rows.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using store::Transaction;
using world::FormatTimestamp;

absl::StatusOr<Driver::Session::Next> Driver::Session::Judge(const Decision& decision,
                                                             const RecordedSpec& spec, Tool* tool,
                                                             const Approval* granted) {
  ToolRequest request;
  request.run_id = run_.id;
  request.step_id = current().id;
  request.spec = spec.spec;
  request.args = *json::Canonicalize(decision.args.empty() ? "{}" : decision.args);
  RunView view;
  view.run = run_;
  view.steps = steps_.Share(steps_.size() - 1);
  view.approvals = approvals_;
  // The identity read (and checked) when the driver was made: the step.policy event and
  // steps.policy_id name the same policy.
  const std::string& policy_id = driver_.policy_id_;
  absl::StatusOr<PolicyDecision> evaluated;
  try {
    evaluated = driver_.options_.policy->Evaluate(request, view);
  } catch (const std::exception& e) {
    evaluated = absl::InternalError(absl::StrCat("policy threw: ", e.what()));
  } catch (...) {
    evaluated = absl::InternalError("policy threw a non-standard exception");
  }
  if (!evaluated.ok()) {
    std::string error(ToStd(evaluated.status().message()));
    AGENTRT_RETURN_IF_ERROR(Settle({.status = RunStatus::kFailed,
                                    .reason = reason::kInternalError,
                                    .detail = "policy: " + error,
                                    .step = FailedStep("policy error: " + error)}));
    return Next::kStop;
  }
  PolicyDecision pd = *evaluated;
  if (pd.outcome_text.empty()) pd.outcome_text = std::string(ToString(pd.outcome));
  current().policy = pd;
  absl::Time policy_at = granted != nullptr ? state_.grant()->resumed_at : Now();
  // On resume, the approval the policy asks for again is the grant when it is the same
  // approval: same kind, capability, presentation and request (so the same hash).
  if (granted != nullptr && pd.outcome == PolicyOutcome::kRequireApproval &&
      GrantedHash(pd, request, spec) == granted->hash) {
    pd.outcome = PolicyOutcome::kAllow;
  }
  // Capability and presentation are recorded as the policy gave them (canonical when they
  // are JSON), so a re-check can compute the approval this evaluation asked for.
  std::string policy_event =
      json::JsonObject()
          .String("outcome", pd.outcome_text)
          .StringIfSet("reason", pd.reason)
          .StringIfSet("kind", pd.kind)
          .RawIfSet("capability", CanonicalIfJson(pd.capability))
          .RawIfSet("presentation", CanonicalIfJson(pd.presentation))
          .StringIfSet("policy_id", policy_id)
          .String("spec_hash", spec.hash)
          .Raw("view", json::JsonObject()
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
    AGENTRT_RETURN_IF_ERROR(rows::SetStepPolicy(tx, current().id, step_policy_json, policy_id));
    // The spec the policy was handed is readable by its hash, as step.policy names it: on resume
    // after the tool changed it is not the one the decision recorded.
    if (spec.hash != current().spec_hash) {
      AGENTRT_RETURN_IF_ERROR(rows::InsertToolSpec(tx, spec.hash, spec.json));
    }
    current().policy = pd;
    return tx.AppendEvent(run_.id, current().id, policy_at, event::kStepPolicy, policy_event)
        .status();
  };
  switch (pd.outcome) {
    case PolicyOutcome::kAllow:
      // Nothing is written yet: the policy record commits with the tool start. On resume the
      // step's clock restarts: the wait for the operator is not active time.
      AGENTRT_RETURN_IF_ERROR(Move(internal::SessionState::Allow{
          {decision, &spec, tool, granted != nullptr ? Now() : policy_at, policy_at,
           policy_event}}));
      return Next::kAllowed;
    case PolicyOutcome::kDeny: {
      Observation obs = MakeObservation(
          ObservationKind::kPolicyDenied, {{"tool", spec.spec.name}, {"reason", pd.reason}},
          std::string(granted != nullptr ? "denied on resume: " : "denied: ") + pd.reason);
      AGENTRT_RETURN_IF_ERROR(
          EndStep(StepStatus::kFailed, obs, "policy denied: " + pd.reason, write_policy));
      return Next::kContinue;
    }
    case PolicyOutcome::kAbort: {
      Observation obs = MakeObservation(
          ObservationKind::kPolicyDenied, {{"tool", spec.spec.name}, {"reason", pd.reason}},
          std::string(granted != nullptr ? "aborted on resume: " : "aborted: ") + pd.reason);
      AGENTRT_RETURN_IF_ERROR(
          Settle({.status = RunStatus::kFailed,
                  .reason = reason::kPolicyAbort,
                  .detail = pd.reason,
                  .step = StepEnd{StepStatus::kFailed, obs, "policy abort: " + pd.reason},
                  .pre = write_policy}));
      return Next::kStop;
    }
    case PolicyOutcome::kRequireApproval:
      AGENTRT_RETURN_IF_ERROR(Pause(pd, request, spec, write_policy));
      return Next::kStop;
    case PolicyOutcome::kUnknown:
      break;
  }
  AGENTRT_RETURN_IF_ERROR(
      Settle({.status = RunStatus::kFailed,
              .reason = reason::kInternalError,
              .detail = absl::StrCat("unknown policy outcome \"",
                                     ToAbsl(json::Sanitize(pd.outcome_text)), "\""),
              .step = FailedStep("unknown policy outcome"),
              .pre = write_policy}));
  return Next::kStop;
}

std::string Driver::Session::RequestJson(const ToolRequest& request, const RecordedSpec& spec) {
  return json::JsonObject()
      .String("run_id", request.run_id)
      .String("step_id", request.step_id)
      .Raw("spec", spec.json)
      .Raw("args", request.args)
      .Build();
}

std::string Driver::Session::GrantedHash(const PolicyDecision& pd, const ToolRequest& request,
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
absl::Status Driver::Session::Pause(const PolicyDecision& pd, const ToolRequest& request,
                                    const RecordedSpec& spec,
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
    return Settle({.status = RunStatus::kFailed,
                   .reason = reason::kInternalError,
                   .detail = absl::StrCat("policy: ", which, " is not usable JSON: ", why),
                   .step = FailedStep("policy error: " + which),
                   .pre = write_policy});
  }
  std::string request_json = RequestJson(request, spec);
  std::string hash = ApprovalHash(pd.kind, *capability, *presentation, request_json);
  std::string approval_id = driver_.entropy_.NewId();
  absl::Time now = Now();
  std::string created = FormatTimestamp(now);
  std::string expires = run_.limits.approval_ttl > absl::ZeroDuration()
                            ? FormatTimestamp(now + run_.limits.approval_ttl)
                            : "";
  std::string policy_json = PolicyJson(pd);
  Step& step = current();
  return Write([&](Transaction& tx) -> absl::Status {
    AGENTRT_RETURN_IF_ERROR(RequireRunning(tx).status());
    AGENTRT_RETURN_IF_ERROR(rows::AwaitApproval(tx, step.id, policy_json));
    AGENTRT_RETURN_IF_ERROR(rows::PauseForApproval(tx, run_.id));
    AGENTRT_RETURN_IF_ERROR(write_policy(tx));
    AGENTRT_RETURN_IF_ERROR(rows::InsertApproval(tx, {.id = approval_id,
                                                      .run_id = run_.id,
                                                      .step_id = step.id,
                                                      .kind = pd.kind,
                                                      .capability_json = *capability,
                                                      .presentation_json = *presentation,
                                                      .request_json = request_json,
                                                      .hash = hash,
                                                      .created_at = created,
                                                      .expires_at = expires}));
    return tx
        .AppendEvent(run_.id, step.id, now, event::kApprovalRequested,
                     json::JsonObject()
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

}  // namespace agentrt
