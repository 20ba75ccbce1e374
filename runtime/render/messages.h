// runtime/render/messages.h
//
// Turning a run's steps into the conversation a model sees next. The
// first user turn is the consumer's opening; then every step that has a recorded decision
// becomes an assistant turn (what the model asked for) and a user turn (what came of it). Only
// the most recent results are shown whole; older and oversized ones by their summary, so the
// conversation stays bounded however long the run.
//
// Rendering is a pure function of the steps: the same steps give the same messages, byte for
// byte, whether the steps came from the driver's memory or were read back from the store, so
// recorded requests (and the replay keys made from them) are reproduced exactly. (One exception:
// arguments that were not usable JSON; see Args.)
//
// Steps without a recorded decision (the step being decided, or one interrupted while
// deciding) are skipped and do not count toward the window of recent results.
//
// Only what is rendered is read: a step shown by its summary is read from the run's history
// without its observation's content (StepDetail::kWithoutContent), and is handed to the
// `observation` hook so, whether or not the driver still held it; the content of a step shown
// whole is read whole. A store error reading the history is returned.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/agent.h"
#include "runtime/model.h"
#include "runtime/types.h"

namespace agentrt::render {

inline constexpr int kDefaultRecentResults = 6;
inline constexpr std::size_t kDefaultMaxContentBytes = 24000;

// What the model is told about a tool call whose process was interrupted: nobody knows whether
// it ran, so the model asks again; a change that was already applied is answered from its
// record (the consumer's reconciliation or the tool's own idempotency), not applied twice.
inline constexpr std::string_view kInterruptedText =
    "The process running this tool call was interrupted, so its outcome is unknown. If you "
    "still need it, request the tool again; a change that was already applied will be "
    "answered from its record rather than applied twice.";
// The nudges that answer a step that ran no tool, keyed by the recorded decision kind.
inline constexpr std::string_view kNoToolCallNudge =
    "Your reply contained no executable tool call. Respond with exactly one tool call.";
inline constexpr std::string_view kTruncatedNudge =
    "Your reply hit the output token cap, so nothing was executed. Respond with one short tool "
    "call.";
// Any other step that ran no tool: this, then " (<observation summary>)" when there is one,
// then kAskForOneCall.
inline constexpr std::string_view kNotExecutable = "Your reply was not an executable tool call";
inline constexpr std::string_view kAskForOneCall = ". Respond with exactly one valid tool call.";
inline constexpr std::string_view kSummaryPrefix = "[summary] ";

struct RenderOptions {
  // Required: the first user turn's text (the goal, the instructions). Messages refuses to
  // render without it.
  std::function<std::string(const StepInput&)> opening;
  // How many of the latest rendered steps show their result whole (negative counts as 0).
  int recent_results = kDefaultRecentResults;
  // A whole result longer than this is shown by its summary.
  std::size_t max_content_bytes = kDefaultMaxContentBytes;
  // The id pairing a step's tool_use with its tool_result; unset or "" -> DefaultToolUseId.
  std::function<std::string(const Step&)> tool_use_id;
  // Replaces the synthesized assistant turn when it returns a message (a provider that keeps
  // its own raw turn, thinking blocks included, plugs in here).
  std::function<std::optional<Message>(const Step&)> assistant;
  // Replaces the user turn's block when it returns a block with a non-empty type; anything else
  // falls back to DefaultObservation. When `full` is false the step's observation comes without
  // its content (only its kind, summary and content hash).
  std::function<std::optional<ContentBlock>(const Step&, std::string_view id, bool full)>
      observation;
};

// Messages renders the conversation for `input`. InvalidArgument when options.opening is unset.
absl::StatusOr<std::vector<Message>> Messages(const StepInput& input, const RenderOptions& options);

// "step_<index>".
std::string DefaultToolUseId(const Step& step);

// The tool_use input of a decision: its arguments in canonical form, "{}" when it sent none.
// Arguments that are not usable JSON are rendered as {"invalid_json": "<bytes>"} (or
// {"invalid_json_base64": "<base64>"} when they are not UTF-8), so the model sees what it sent
// without the request becoming invalid JSON. The store keeps such bytes out of band (invalid_args)
// and ReadSteps puts them back, so a step read back from the store renders exactly as the live one.
std::string Args(const Decision& decision);

// The synthesized assistant turn: a tool_call with a tool -> an optional text block (the
// reason) and a tool_use {id, tool, Args}; anything else -> one text block, the reason or
// "(no tool call)".
Message DefaultAssistant(const Step& step, std::string_view id);

// The synthesized answer to a step: a tool_result for a tool_call that has an observation
// (is_error for a failure; kInterruptedText when interrupted; "[summary] <summary>" when not
// `full` or the content is longer than `max_content_bytes`; else the content), otherwise a
// text block with the nudge for the decision's kind.
ContentBlock DefaultObservation(const Step& step, std::string_view id, bool full,
                                std::size_t max_content_bytes);

}  // namespace agentrt::render
