// testkit/stand_in.h
//
// A stand-in tool: a tool of a side-effect class (and schema) of the product's choosing that
// no real tool has yet — "a destructive tool is denied", "a remote mutation pauses for
// approval" — so the control can be tested before such a tool exists. It records every call
// it gets and answers each with a fixed result; its spec says it is a stand-in.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/tool.h"
#include "runtime/types.h"

namespace agentrt::testkit {

struct RecordedCall {
  std::string run_id;
  std::string step_id;
  std::string args;  // the agent's bytes, as the tool got them
};

class StandInTool final : public Tool {
 public:
  StandInTool(std::string name, SideEffect side_effect, std::string schema, std::string result);

  ToolSpec Spec() const override;
  // Records the call and returns the fixed result (content `result`, summary "stand-in").
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override;

  std::vector<RecordedCall> calls() const;

 private:
  ToolSpec spec_;
  std::string result_;
  mutable absl::Mutex mu_;
  std::vector<RecordedCall> calls_ ABSL_GUARDED_BY(mu_);
};

// StandIn makes a stand-in named `name` of class `side_effect`. `schema` is its input schema
// (any object when empty); `result` the JSON it answers every call with. The spec has a 10 s
// timeout and is checked like any tool's when a driver or a check registers it.
std::unique_ptr<StandInTool> StandIn(std::string name, SideEffect side_effect,
                                     std::string schema = "", std::string result = "{}");

}  // namespace agentrt::testkit
