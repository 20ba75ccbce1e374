// tests/bench/reading_run.h
//
// The run the step benchmarks drive (driver_bench, memory_bench): an agent that reads a
// distinct file at each step, `calls` times, then completes, against a tool whose every result
// is `bytes` long (100 bytes and 8 KiB).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/agent.h"
#include "runtime/tool.h"

namespace agentrt::bench {

// Reads a file, or (as a local mutation) stands for a call whose effect cannot be taken back,
// whose start the driver makes durable before it runs. Its observation is `bytes` long.
class ReadTool final : public Tool {
 public:
  ReadTool(SideEffect effect, std::size_t bytes)
      : effect_(effect),
        content_(
            absl::StrCat(R"({"text":")", std::string(bytes > 12 ? bytes - 12 : 0, 'x'), R"("})")) {}
  ToolSpec Spec() const override {
    return ToolSpec{"read_file",
                    "Read a text file.",
                    R"({"type":"object","properties":{"path":{"type":"string","minLength":1}},)"
                    R"("required":["path"],"additionalProperties":false})",
                    effect_,
                    absl::Seconds(5),
                    false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall&) override {
    return ToolResult{content_, "read the file"};
  }

 private:
  SideEffect effect_;
  std::string content_;
};

// Asks for `calls` reads of distinct files, then completes: stateless (it reads the step
// count), so one agent serves every run of a benchmark. Distinct calls are what an agent makes;
// a run of identical ones is a loop the runtime ends at its threshold. `at_last`, when set, runs
// at the completing decision.
class ReadingAgent final : public Agent {
 public:
  explicit ReadingAgent(int calls, std::function<void()> at_last = {})
      : calls_(calls), at_last_(std::move(at_last)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    Decision d;
    if (input.run.step_count <= calls_) {
      d.kind = "tool_call";
      d.tool = "read_file";
      d.args = absl::StrCat(R"({"path":"/var/notes/)", input.run.step_count, R"("})");
    } else {
      if (at_last_) at_last_();
      d.kind = "complete";
    }
    return d;
  }

 private:
  int calls_;
  std::function<void()> at_last_;
};

}  // namespace agentrt::bench
