// tests/support/in_process_mcp.h
//
// An MCP server inside this process, behind a world::Launcher: each Start gives a Process that
// answers, from memory, every JSON-RPC line written to its stdin — `initialize` (protocol
// 2025-11-25, tools only), `tools/list` (one page: the tools it was given), `tools/call` (the one
// result it was given, whatever the tool and arguments), `ping` — and has the answer ready to
// Read as soon as the request's line is written. Notifications get no answer; other methods
// -32601. No thread, no clock, nothing started: what remains when a client talks to it is the
// client's own work (and this server's one parse per request), which is what benchmarks of the
// client measure. A Read with nothing to return fails at once (DeadlineExceeded): no answer can
// come later from a server that only answers. Test-only.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/world/launcher.h"

namespace agentrt::test_support {

class InProcessMcpLauncher final : public world::Launcher {
 public:
  // `tools_json` is the JSON array tools/list returns as `tools`; `call_result_json` the result
  // of every tools/call. Both are sent in canonical form, each answer on one line.
  InProcessMcpLauncher(std::string tools_json, std::string call_result_json);

  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;

  // What the server answers (shared by every process it started).
  struct Answers {
    std::string initialize_result;
    std::string list_result;
    std::string call_result;
  };

 private:
  std::shared_ptr<const Answers> answers_;
  std::int64_t started_ = 0;
};

}  // namespace agentrt::test_support
