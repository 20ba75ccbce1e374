// tests/runtime/crash_world.h
//
// The world of the crash-safety test, shared by the test and the child process it kills: a
// stateless agent that decides by step index (so a resumed run continues the same script in
// another process), a side-effecting tool that appends the step id to a file, and a read-only
// tool. Test-only.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/agent.h"
#include "runtime/tool.h"

namespace agentrt::crash {

inline std::vector<Decision> Script(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Decision> script;
  int calls = 3 + static_cast<int>(random() % 4);
  for (int i = 0; i < calls; ++i) {
    Decision d;
    d.kind = "tool_call";
    d.tool = random() % 3 == 0 ? "read" : "append";
    d.args = R"({"text":"call )" + std::to_string(i) + R"("})";
    script.push_back(d);
  }
  Decision done;
  done.kind = "complete";
  script.push_back(done);
  return script;
}

class IndexedAgent final : public Agent {
 public:
  explicit IndexedAgent(std::vector<Decision> script) : script_(std::move(script)) {}
  absl::StatusOr<Decision> Decide(const StepInput& input) override {
    std::size_t index = static_cast<std::size_t>(input.run.step_count - 1);
    if (index >= script_.size()) return script_.back();
    return script_[index];
  }

 private:
  std::vector<Decision> script_;
};

inline std::string Schema() {
  return R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
}

// Appends "<step id>\n" to `path` (fsynced) — the side effect whose count the test checks.
class AppendTool final : public Tool {
 public:
  AppendTool(std::string path, std::function<void(std::string_view)> hook)
      : path_(std::move(path)), hook_(std::move(hook)) {}
  ToolSpec Spec() const override {
    return ToolSpec{
        "append", "Append a line.", Schema(), SideEffect::kLocalMutation, absl::Seconds(10), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    hook_("before effect");
    std::string line = call.step_id + "\n";
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      return absl::InternalError("cannot append");
    }
    ::fsync(fd);
    ::close(fd);
    hook_("after effect");
    return ToolResult{"{}", "appended"};
  }

 private:
  std::string path_;
  std::function<void(std::string_view)> hook_;
};

class ReadTool final : public Tool {
 public:
  ToolSpec Spec() const override {
    return ToolSpec{"read", "Read.", Schema(), SideEffect::kReadOnly, absl::Seconds(10), false};
  }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    return ToolResult{R"({"text":"ok"})", "read"};
  }
};

inline std::vector<std::string> Effects(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace agentrt::crash
