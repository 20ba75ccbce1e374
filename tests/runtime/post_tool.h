// tests/runtime/post_tool.h
//
// The remote mutation the approval tests pause on: "post" sends a message to `to`. The default
// policy requires an approval for it; it records every call it gets.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/tool.h"

namespace agentrt::testing {

class PostTool : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"post",           description, schema, SideEffect::kRemoteMutation,
                    absl::Seconds(5), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    calls.push_back(call);
    if (during_call) during_call();
    return ToolResult{R"({"sent":true})", "sent"};
  }
  // A test may change the spec through these.
  std::string description = "Send a message.";
  std::string schema =
      R"({"type":"object","properties":{"to":{"type":"string"}},"required":["to"]})";
  std::vector<ToolCall> calls;
  // Runs inside every call, after it is recorded (a test advances its clock here).
  std::function<void()> during_call;
};

}  // namespace agentrt::testing
