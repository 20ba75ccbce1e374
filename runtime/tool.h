// runtime/tool.h
//
// A tool the agent may call. The runtime asks for its spec at every step that names it (a
// changed spec gets a new hash), validates the arguments against the spec's schema and asks
// the policy before Call is ever reached. Call gets the run and step identity and the agent's
// argument bytes exactly as sent — except for an approved call run on resume, which gets the
// arguments the approval bound, as stored (canonical JSON): the bytes
// the operator approved.
//
// A tool's failure is an observation the agent sees, never a crash: an error Status or an
// exception. Timeouts are cooperative, as a context deadline is: a tool checks
// ToolCall::Expired() (or its deadline) and returns DeadlineExceeded; an error returned once
// the deadline has passed is also recorded as a timeout. A tool ends the run by returning
// AbortRun().
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/cancellation.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"

namespace agentrt {

struct ToolCall {
  std::string run_id;
  std::string step_id;
  std::string args;                     // the agent's bytes ("{}" when it sent none; canonical
                                        // when a resume runs an approved call)
  absl::Time deadline;                  // the tool's timeout from its start, on the runtime's clock
  const world::Clock* clock = nullptr;  // the runtime's clock, to check the deadline against
  // The caller's (cancellation.h); null when the run cannot be cancelled. A tool told to stop
  // returns its outcome if it has one; an error it returns once cancelled leaves the outcome
  // unknown (the step is interrupted).
  const Cancellation* cancellation = nullptr;

  bool Expired() const { return clock != nullptr && clock->Now() >= deadline; }
  bool Cancelled() const { return cancellation != nullptr && cancellation->cancelled(); }
};

struct ToolResult {
  std::string content;  // JSON; empty means {}
  std::string summary;
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual ToolSpec Spec() const = 0;
  // Call runs the tool. DeadlineExceeded is reported as a timeout; AbortRun() ends the run.
  virtual absl::StatusOr<ToolResult> Call(const ToolCall& call) = 0;
};

// CheckToolSpec is the driver's acceptance of a tool's spec, exactly what Driver::Create (and a
// spec that changed during a run) goes through: a usable name, a positive timeout and an input
// schema that compiles under agentrt::schema's self-contained rules. So a product or an adapter
// (MCP's Load) refuses a tool before a driver would, with the driver's own reason. Errors:
// InvalidArgument naming the tool and what is wrong.
absl::Status CheckToolSpec(const ToolSpec& spec);

// AbortRun is the status a tool returns to end the run (FAILED, tool_abort) with `detail`.
absl::Status AbortRun(std::string_view detail);
bool IsAbortRun(const absl::Status& status);

}  // namespace agentrt
