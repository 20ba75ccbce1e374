// runtime/status_payloads.h
//
// The type URLs of the payloads agentrt attaches to an absl::Status, each defined once. A
// payload says what kind of failure a status is — a tool that asked to end the run, a tool that
// threw, a limit, a refused approval decision — so callers decide on the kind, never on the
// message's words (which are for people and may quote what a tool or server wrote). One
// convention: "type.agentrt.dev/<kind>". The helpers that set and read each payload live with
// the contract they serve (tool.h, model.h, approvals.h, ...).
#pragma once

#include <string_view>

namespace agentrt::payload {

// tool.h: AbortRun(detail); the payload is the detail.
inline constexpr std::string_view kAbortRun = "type.agentrt.dev/abort-run";
// The driver caught an exception from a tool's Call (a panic); the payload is empty.
inline constexpr std::string_view kToolPanic = "type.agentrt.dev/tool-panic";
// model.h: how a model call failed (transient, ambiguous, served, unusable usage).
inline constexpr std::string_view kModelError = "type.agentrt.dev/model-error";
// A model call the run's limits refused; the payload is the limit reason.
inline constexpr std::string_view kLimit = "type.agentrt.dev/limit";
// The model stayed unavailable through every attempt.
inline constexpr std::string_view kModelUnavailable = "type.agentrt.dev/model-unavailable";
// approvals.h: why an operator's decision was refused (run state, not pending, expired, ...).
inline constexpr std::string_view kApprovalRefusal = "type.agentrt.dev/approval-refusal";
// runtime/operator/approver: the approver's typed error kinds.
inline constexpr std::string_view kApproverError = "type.agentrt.dev/approver-error";

}  // namespace agentrt::payload
