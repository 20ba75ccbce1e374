#include "runtime/types.h"

#include "absl/status/status.h"
#include "runtime/json/json_object.h"

namespace agentrt {

std::string_view ToString(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning:
      return "RUNNING";
    case RunStatus::kWaitingForApproval:
      return "WAITING_FOR_APPROVAL";
    case RunStatus::kInterrupted:
      return "INTERRUPTED";
    case RunStatus::kCompleted:
      return "COMPLETED";
    case RunStatus::kFailed:
      return "FAILED";
    case RunStatus::kCancelled:
      return "CANCELLED";
  }
  return "";
}

std::optional<RunStatus> ParseRunStatus(std::string_view s) {
  for (RunStatus r : {RunStatus::kRunning, RunStatus::kWaitingForApproval, RunStatus::kInterrupted,
                      RunStatus::kCompleted, RunStatus::kFailed, RunStatus::kCancelled}) {
    if (ToString(r) == s) return r;
  }
  return std::nullopt;
}

std::string_view ToString(DecisionKind k) {
  switch (k) {
    case DecisionKind::kToolCall:
      return "tool_call";
    case DecisionKind::kComplete:
      return "complete";
    case DecisionKind::kFail:
      return "fail";
    case DecisionKind::kTruncated:
      return "truncated";
    case DecisionKind::kNoToolCall:
      return "no_tool_call";
    case DecisionKind::kUnknown:
      return "";
  }
  return "";
}

DecisionKind ParseDecisionKind(std::string_view s) {
  for (DecisionKind k : {DecisionKind::kToolCall, DecisionKind::kComplete, DecisionKind::kFail,
                         DecisionKind::kTruncated, DecisionKind::kNoToolCall}) {
    if (ToString(k) == s) return k;
  }
  return DecisionKind::kUnknown;
}

std::optional<StepStatus> ParseStepStatus(std::string_view s) {
  for (StepStatus k : {StepStatus::kDeciding, StepStatus::kAwaitingApproval, StepStatus::kExecuting,
                       StepStatus::kDone, StepStatus::kFailed, StepStatus::kInterrupted}) {
    if (ToString(k) == s) return k;
  }
  return std::nullopt;
}

std::optional<PolicyOutcome> ParsePolicyOutcome(std::string_view s) {
  for (PolicyOutcome o : {PolicyOutcome::kAllow, PolicyOutcome::kRequireApproval,
                          PolicyOutcome::kDeny, PolicyOutcome::kAbort}) {
    if (ToString(o) == s) return o;
  }
  return std::nullopt;
}

std::optional<ApprovalStatus> ParseApprovalStatus(std::string_view s) {
  for (ApprovalStatus a : {ApprovalStatus::kPending, ApprovalStatus::kApproved,
                           ApprovalStatus::kRejected, ApprovalStatus::kExpired}) {
    if (ToString(a) == s) return a;
  }
  return std::nullopt;
}

bool IsTerminal(RunStatus s) {
  return s == RunStatus::kCompleted || s == RunStatus::kFailed || s == RunStatus::kCancelled;
}

std::string_view ToString(StepStatus s) {
  switch (s) {
    case StepStatus::kDeciding:
      return "deciding";
    case StepStatus::kAwaitingApproval:
      return "awaiting_approval";
    case StepStatus::kExecuting:
      return "executing";
    case StepStatus::kDone:
      return "done";
    case StepStatus::kFailed:
      return "failed";
    case StepStatus::kInterrupted:
      return "interrupted";
  }
  return "";
}

std::string_view ToString(ObservationKind k) {
  switch (k) {
    case ObservationKind::kToolResult:
      return "tool_result";
    case ObservationKind::kToolError:
      return "tool_error";
    case ObservationKind::kPolicyDenied:
      return "policy_denied";
    case ObservationKind::kInvalidDecision:
      return "invalid_decision";
    case ObservationKind::kInterrupted:
      return "interrupted";
  }
  return "";
}

std::string_view ToString(SideEffect s) {
  switch (s) {
    case SideEffect::kReadOnly:
      return "read_only";
    case SideEffect::kLocalMutation:
      return "local_mutation";
    case SideEffect::kRemoteMutation:
      return "remote_mutation";
    case SideEffect::kDestructive:
      return "destructive";
  }
  return "";
}

std::string_view ToString(ToolFailure f) {
  switch (f) {
    case ToolFailure::kError:
      return "error";
    case ToolFailure::kAbort:
      return "abort";
    case ToolFailure::kTimeout:
      return "timeout";
    case ToolFailure::kCancelled:
      return "cancelled";
    case ToolFailure::kInvalidContent:
      return "invalid_content";
  }
  return "";
}

std::optional<SideEffect> ParseSideEffect(std::string_view s) {
  for (SideEffect e : {SideEffect::kReadOnly, SideEffect::kLocalMutation,
                       SideEffect::kRemoteMutation, SideEffect::kDestructive}) {
    if (ToString(e) == s) return e;
  }
  return std::nullopt;
}

std::optional<ToolFailure> ParseToolFailure(std::string_view s) {
  for (ToolFailure f : {ToolFailure::kError, ToolFailure::kAbort, ToolFailure::kTimeout,
                        ToolFailure::kCancelled, ToolFailure::kInvalidContent}) {
    if (ToString(f) == s) return f;
  }
  return std::nullopt;
}

std::string_view ToString(PolicyOutcome o) {
  switch (o) {
    case PolicyOutcome::kAllow:
      return "allow";
    case PolicyOutcome::kRequireApproval:
      return "require_approval";
    case PolicyOutcome::kDeny:
      return "deny";
    case PolicyOutcome::kAbort:
      return "abort";
    case PolicyOutcome::kUnknown:
      return "";
  }
  return "";
}

std::string_view ToString(ApprovalStatus s) {
  switch (s) {
    case ApprovalStatus::kPending:
      return "pending";
    case ApprovalStatus::kApproved:
      return "approved";
    case ApprovalStatus::kRejected:
      return "rejected";
    case ApprovalStatus::kExpired:
      return "expired";
  }
  return "";
}

absl::Status Limits::Validate() const {
  if (max_steps <= 0) return absl::InvalidArgumentError("limits: max_steps must be positive");
  if (max_consecutive_tool_failures <= 0) {
    return absl::InvalidArgumentError("limits: max_consecutive_tool_failures must be positive");
  }
  if (loop_threshold <= 0) {
    return absl::InvalidArgumentError("limits: loop_threshold must be positive");
  }
  for (absl::Duration d : {max_active_time, max_elapsed_time, approval_ttl, grant_ttl}) {
    if (d < absl::ZeroDuration()) {
      return absl::InvalidArgumentError("limits: durations must not be negative");
    }
  }
  for (std::int64_t n :
       {max_model_calls, max_output_tokens_per_call, max_total_tokens, max_estimated_cost_micros}) {
    if (n < 0) return absl::InvalidArgumentError("limits: model limits must not be negative");
  }
  return absl::OkStatus();
}

std::string Limits::ToJson() const {
  json::JsonObject o;
  o.Int("max_steps", max_steps)
      .Int("max_consecutive_tool_failures", max_consecutive_tool_failures)
      .Int("loop_threshold", loop_threshold);
  auto count = [&](std::string_view key, std::int64_t n) {
    if (n > 0) o.Int(key, n);
  };
  count("max_model_calls", max_model_calls);
  count("max_output_tokens_per_call", max_output_tokens_per_call);
  count("max_total_tokens", max_total_tokens);
  count("max_estimated_cost_micros", max_estimated_cost_micros);
  auto ns = [&](std::string_view key, absl::Duration d) {
    if (d > absl::ZeroDuration()) o.Int(key, absl::ToInt64Nanoseconds(d));
  };
  ns("max_active_time", max_active_time);
  ns("max_elapsed_time", max_elapsed_time);
  ns("approval_ttl", approval_ttl);
  ns("grant_ttl", grant_ttl);
  return o.Build();
}

}  // namespace agentrt
