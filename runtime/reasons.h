// runtime/reasons.h
//
// Why a run ended (Run::reason, runs.reason, run.finished's `reason`): the exact strings the
// runtime stores, each defined once. docs/formats/database.md lists
// them with the status each comes with; a test holds the list and the documentation to each
// other. Parts added later (MCP, providers) add theirs here, to the same list.
#pragma once

#include <array>
#include <string_view>

namespace agentrt::reason {

// The agent ended it.
inline constexpr std::string_view kGoalCompleted = "goal_completed";
inline constexpr std::string_view kGoalFailed = "goal_failed";
// A limit ended it (limit.exceeded is written first).
inline constexpr std::string_view kLimitSteps = "limit_steps";
inline constexpr std::string_view kLimitActiveTime = "limit_active_time";
inline constexpr std::string_view kLimitElapsedTime = "limit_elapsed_time";
inline constexpr std::string_view kRepeatedToolFailures = "repeated_tool_failures";
inline constexpr std::string_view kLimitModelCalls = "limit_model_calls";
inline constexpr std::string_view kLimitTokens = "limit_tokens";
inline constexpr std::string_view kLimitCost = "limit_cost";
inline constexpr std::string_view kModelUnavailable = "model_unavailable";
// The runtime ended it.
inline constexpr std::string_view kLoopDetected = "loop_detected";
inline constexpr std::string_view kPolicyAbort = "policy_abort";
inline constexpr std::string_view kToolAbort = "tool_abort";
inline constexpr std::string_view kAgentError = "agent_error";
inline constexpr std::string_view kInternalError = "internal_error";
inline constexpr std::string_view kReconcileConflict = "reconcile_conflict";
// An operator's decision, or its absence, ended it.
inline constexpr std::string_view kApprovalExpired = "approval_expired";
inline constexpr std::string_view kApprovalRejected = "approval_rejected";
inline constexpr std::string_view kOperatorCancelled = "operator_cancelled";

// Every reason above, in the order docs/formats/database.md lists them.
inline constexpr std::array kAll = {
    kGoalCompleted,    kGoalFailed,           kLimitSteps,        kLimitActiveTime,
    kLimitElapsedTime, kRepeatedToolFailures, kLimitModelCalls,   kLimitTokens,
    kLimitCost,        kModelUnavailable,     kLoopDetected,      kPolicyAbort,
    kToolAbort,        kAgentError,           kInternalError,     kReconcileConflict,
    kApprovalExpired,  kApprovalRejected,     kOperatorCancelled,
};

// IsLimit: the reasons a limit ends a run with (those that write limit.exceeded).
constexpr bool IsLimit(std::string_view r) {
  return r == kLimitSteps || r == kRepeatedToolFailures || r == kLimitActiveTime ||
         r == kLimitElapsedTime || r == kLimitModelCalls || r == kLimitTokens || r == kLimitCost ||
         r == kModelUnavailable;
}

}  // namespace agentrt::reason
