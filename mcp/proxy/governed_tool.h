// mcp/proxy/governed_tool.h
//
// One tool the proxy offers a host: an upstream server's pinned and classified tool (an
// McpTool, or any Tool in tests) with what the operator's configuration says about it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "runtime/tool.h"
#include "runtime/types.h"

namespace agentrt::proxy {

struct GovernedTool {
  Tool* tool = nullptr;  // not owned; its Spec() is what the host sees and the runtime checks
  std::string server;    // the configured server's name
  std::string upstream;  // the server's own name for the tool
  std::string name;      // the model-visible name (the rule's rename, else <server>_<tool>)
  SideEffect side_effect = SideEffect::kReadOnly;
  std::map<std::string, std::string> fixed;             // parameter -> canonical JSON value
  std::optional<PolicyOutcome> outcome;                 // the rule's, overriding the class's
  absl::Duration repeat_window = absl::ZeroDuration();  // the rule's, else the configuration's

  bool mutating() const { return side_effect != SideEffect::kReadOnly; }
};

// TerminalTool is a tool as the proxy's gate sees it: every call is a run of its own, which ends
// with the call, so the tool is terminal whatever its rule says (a rule's `terminal` changes
// nothing in the proxy). `tool` is not owned.
class TerminalTool final : public Tool {
 public:
  explicit TerminalTool(Tool* tool) : tool_(tool) {}
  ToolSpec Spec() const override {
    ToolSpec spec = tool_->Spec();
    spec.terminal = true;
    return spec;
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override { return tool_->Call(call); }

 private:
  Tool* const tool_;
};

}  // namespace agentrt::proxy
