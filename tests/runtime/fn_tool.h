// tests/runtime/fn_tool.h
//
// A tool whose behaviour a test chooses: every call is counted and answered by `fn`. Its schema
// accepts any object; its class, name and timeout are the test's.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "runtime/tool.h"

namespace agentrt::testing {

class FnTool final : public Tool {
 public:
  using Fn = std::function<absl::StatusOr<ToolResult>(const ToolCall&)>;
  FnTool(std::string name, SideEffect effect, Fn fn, absl::Duration timeout = absl::Seconds(30))
      : name_(std::move(name)), effect_(effect), fn_(std::move(fn)), timeout_(timeout) {}
  ToolSpec Spec() const override {
    return ToolSpec{name_, "A test tool.", R"({"type":"object"})", effect_, timeout_, false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    ++calls;
    return fn_(call);
  }
  int calls = 0;

 private:
  std::string name_;
  SideEffect effect_;
  Fn fn_;
  absl::Duration timeout_;
};

}  // namespace agentrt::testing
