// tools/agentrt/demos/demo_tools.h
//
// The in-memory tools the demonstrations run against: each answers every call with a fixed
// result, so a demonstration shows what the runtime decides, not what a tool does.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "runtime/tool.h"

namespace agentrt::cli {

// An in-memory tool for a demonstration: arguments {path?, summary?}, a fixed result.
class DemoTool final : public Tool {
 public:
  DemoTool(std::string name, std::string description, SideEffect side_effect, bool terminal,
           std::string content, std::string summary)
      : spec_{std::move(name),
              std::move(description),
              R"({"type":"object","properties":{"path":{"type":"string"},)"
              R"("summary":{"type":"string"}},"additionalProperties":false})",
              side_effect,
              absl::Seconds(5),
              terminal},
        content_(std::move(content)),
        summary_(std::move(summary)) {}
  ToolSpec Spec() const override { return spec_; }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{content_, summary_};
  }

 private:
  ToolSpec spec_;
  std::string content_;
  std::string summary_;
};

}  // namespace agentrt::cli
