// runtime/engine/tool_outcome.h
//
// What a tool's answer means for its step and its run, decided without touching the store: the
// classification Session::Execute records. Pure apart from the two questions it may ask, and it
// asks each only when the answer matters, in the order the driver always asked them (whether the
// call expired reads the run's clock, and a recorded run replays its clock readings in order).
// Internal to the engine.
#pragma once

#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "runtime/tool.h"
#include "runtime/types.h"

namespace agentrt::internal {

struct ToolOutcome {
  enum class Ending {
    kInterrupted,  // cancelled by its caller without an outcome: the step is interrupted
    kAbortRun,     // the tool returned AbortRun: the step fails and the run fails (tool_abort)
    kFailed,       // an error or unusable content: the step fails and the loop goes on
    kCompleteRun,  // a terminal tool succeeded: the step is done and the run completes
    kDone,         // a result: the step is done and the loop goes on
  };
  Ending ending = Ending::kFailed;
  Observation observation;
  std::string abort_detail;  // kAbortRun: what the tool said in AbortRun
};

// Classifies `result`, the answer of the tool `name` (terminal when `terminal`):
//  - an error while `cancelled()` (not an AbortRun): interrupted, previous_status executing;
//  - AbortRun: a tool_error with failure "abort";
//  - DeadlineExceeded, or any error once `expired()`: failure "timeout";
//  - a panic (the kToolPanic payload): failure "error", summarized as a panic;
//  - any other error: failure "error";
//  - content that is not usable JSON: failure "invalid_content", the bytes kept (base64 when
//    they are not UTF-8);
//  - otherwise a tool_result with the canonical content and its hash ("{}" for blank content).
ToolOutcome ClassifyToolResult(const absl::StatusOr<ToolResult>& result, std::string_view name,
                               bool terminal, absl::FunctionRef<bool()> cancelled,
                               absl::FunctionRef<bool()> expired);

}  // namespace agentrt::internal
