// runtime/events.h
//
// The event types the runtime writes to the audit log (docs/formats/events.md), each defined
// once. Every writer names its type through these constants and every reader compares against
// them, so a type is never misspelled in one place. docs/formats/events.md documents each one
// (when it is written, what its payload holds); a test holds the list, the documentation and
// what the runtime actually writes to each other. Parts added later (MCP, providers) add their
// types here, to the same list.
#pragma once

#include <array>
#include <string_view>

namespace agentrt::event {

// A run.
inline constexpr std::string_view kRunCreated = "run.created";
inline constexpr std::string_view kRunStarted = "run.started";
inline constexpr std::string_view kRunResumed = "run.resumed";
inline constexpr std::string_view kRunFinished = "run.finished";
// A step.
inline constexpr std::string_view kStepStarted = "step.started";
inline constexpr std::string_view kStepDecided = "step.decided";
inline constexpr std::string_view kStepPolicy = "step.policy";
inline constexpr std::string_view kStepToolStarted = "step.tool_started";
inline constexpr std::string_view kStepToolFinished = "step.tool_finished";
inline constexpr std::string_view kStepFailed = "step.failed";
inline constexpr std::string_view kStepInterrupted = "step.interrupted";
// Approvals.
inline constexpr std::string_view kApprovalRequested = "approval.requested";
inline constexpr std::string_view kApprovalDecided = "approval.decided";
// Ownership, limits and model calls.
inline constexpr std::string_view kLeaseTakenOver = "lease.taken_over";
inline constexpr std::string_view kLoopDetected = "loop.detected";
inline constexpr std::string_view kLimitExceeded = "limit.exceeded";
inline constexpr std::string_view kModelDispatched = "model.dispatched";
inline constexpr std::string_view kModelCompleted = "model.completed";
inline constexpr std::string_view kModelFailed = "model.failed";

// Every type above, in the order docs/formats/events.md lists them.
inline constexpr std::array kAll = {
    kRunCreated,      kRunStarted,       kStepStarted,    kStepDecided,     kStepPolicy,
    kStepToolStarted, kStepToolFinished, kStepFailed,     kStepInterrupted, kApprovalRequested,
    kApprovalDecided, kRunResumed,       kLeaseTakenOver, kLoopDetected,    kLimitExceeded,
    kModelDispatched, kModelCompleted,   kModelFailed,    kRunFinished,
};

}  // namespace agentrt::event
