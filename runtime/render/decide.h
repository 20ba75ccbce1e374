// runtime/render/decide.h
//
// Reading a model's response as the agent's next decision. The runtime
// executes at most one tool call per step, so only the first tool use is proposed; the others
// are named in the reason, never run. A reply cut off by the output cap is never executed, even
// when a whole tool use made it through, and a reply without a tool use is not guessed at: both
// become pseudo kinds (`truncated`, `no_tool_call`) that the driver records and answers as
// invalid decisions, so the model is told and the run goes on.
//
// The reason (the model's text) is bounded: it never exceeds kReasonBytes and is never cut
// inside a UTF-8 sequence.
#pragma once

#include <string_view>

#include "runtime/model.h"
#include "runtime/types.h"

namespace agentrt::render {

inline constexpr int kReasonBytes = 500;
// Each further tool use's name is cut to this in the note, and the note stays within
// kNoteBytes; names past it are replaced by ", …".
inline constexpr int kNameBytes = 64;
inline constexpr int kNoteBytes = 250;

inline constexpr std::string_view kRefusalMessage = "the model declined to continue (refusal)";
inline constexpr std::string_view kContextWindowMessage =
    "the conversation no longer fits the model's context window (stop reason "
    "model_context_window_exceeded)";
inline constexpr std::string_view kTruncatedReason =
    "the reply hit the output token cap; the tool call was not executed";

// Decide maps a response to a decision:
//  - stop reason refusal -> fail, message kRefusalMessage;
//  - model_context_window_exceeded -> fail, message kContextWindowMessage;
//  - max_tokens -> kind `truncated`, reason kTruncatedReason (whatever tool uses came back);
//  - no tool use -> kind `no_tool_call`, reason = the trimmed text, truncated;
//  - else a tool_call of the first tool use (args "{}" when empty); with more tool uses the
//    reason ends with "[K further tool call(s) not executed: a, b, …]".
Decision Decide(const ModelResponse& response);

}  // namespace agentrt::render
