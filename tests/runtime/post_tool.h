// tests/runtime/post_tool.h
//
// The remote mutation the approval tests pause on: "post" sends a message to `to`. The default
// policy requires an approval for it; it records every call it gets.
#pragma once

#include <string>
#include <vector>

#include "runtime/tool.h"

namespace agentrt::testing {

class PostTool : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"post",
                    description,
                    R"({"type":"object","properties":{"to":{"type":"string"}},"required":["to"]})",
                    SideEffect::kRemoteMutation,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    calls.push_back(call);
    return ToolResult{R"({"sent":true})", "sent"};
  }
  std::string description = "Send a message.";  // a test may change the spec through it
  std::vector<ToolCall> calls;
};

}  // namespace agentrt::testing
