// mcp/proxy/classify.h
//
// Whether an earlier call's outcome is known (docs/proxy.md, "Unknown outcomes"). A mutating
// call whose outcome is unknown (it timed out, failed without an answer from the server, or was
// cut off while executing) is never run again on the policy alone: only an operator's approval
// of an interruption approval naming the attempt runs it, once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mcp/proxy/governed_tool.h"
#include "mcp/proxy/proxy_policy.h"
#include "runtime/types.h"

namespace agentrt::proxy {

enum class Known { kKnown, kUnknown };

// ClassifyToolError reads a recorded tool_error observation's content (JSON with `tool`,
// `error`, `failure`) of a call to `tool`. Errors of a read-only tool are always known. For a
// mutating one: content that does not parse is unknown (no_answer); failure `timeout` is unknown
// (timed_out); `invalid_content` is known (the server answered); any other is known only when the
// error text starts as the MCP adapter words an answer: `<server>/<upstream>: <n> bytes[,
// truncated][, structured content of <n> bytes dropped for the text], error: `, `<name>:
// arguments are not a JSON object`, `<name>: parameter "..." is denied|fixed by the operator`,
// `<name>: the server asked for more input`. Everything else (a closed connection, another
// server's name) is unknown (no_answer). `ended` is set for an unknown one.
Known ClassifyToolError(const GovernedTool* tool, bool read_only, std::string_view content,
                        std::string* ended);

// What the newest attempt of a run says.
struct LastAttempt {
  enum class Kind { kNone, kKnown, kUnknown } kind = Kind::kNone;
  const Step* step = nullptr;  // the step whose outcome decides (kKnown), or that was cut off
  Attempt attempt;             // kUnknown: the attempt whose outcome is unknown
  bool executed = false;       // kKnown: the step's tool ran (a result or an error from it)
};

// FindLastAttempt walks the run's tool steps newest first: interrupted while executing is
// unknown (cut_off); interrupted before executing is skipped (nothing ran); a result is known; a
// tool error is classified (a tool no longer offered is unknown); a step whose latest approval
// is an interruption is unknown, naming the attempt that approval names; none is kNone.
// `find` gives the governed tool of a name (null when it is no longer offered).
LastAttempt FindLastAttempt(const std::string& run_id, const std::vector<Step>& steps,
                            const std::vector<Approval>& approvals,
                            const std::function<const GovernedTool*(std::string_view)>& find);

}  // namespace agentrt::proxy
