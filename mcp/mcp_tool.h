// mcp/mcp_tool.h
//
// A tool an MCP server offers, as an agentrt Tool (docs/mcp.md, "What a call does"): the spec Load
// built (the model-visible name, the operator's description or the pinned one, the schema with
// hidden parameters removed, the operator's side-effect class and timeout), and a Call that sends
// `tools/call` through the Load's shared connection.
//
// A call, after the runtime validated its arguments against the spec:
//  1. the arguments must be a JSON object (blank and null are {});
//  2. a parameter the rule denies, or one it fixes, is refused if the model set it (never
//     silently overridden): `<name>: parameter "<p>" is denied by the operator` / `is fixed by
//     the operator`;
//  3. the fixed values are injected (after validation and outside the approval hash, on
//     purpose: an approval binds what the model asked for);
//  4. the request is bounded by the rule's timeout as well as the runtime's deadline;
//  5. the result is mapped (result_content.h): structured content when it fits the cap, else
//     text with placeholders, capped; `isError` becomes an error the agent sees (never an
//     abort); a result asking for more input is refused.
// Transport failures name the server and the tool (`mcp: server "fs": tool "read_file": ...`)
// and keep their code, so a deadline is recorded as a timeout; a dead session fails at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/connection.h"
#include "mcp/rules.h"
#include "runtime/tool.h"

namespace agentrt::mcp {

class McpTool final : public Tool {
 public:
  McpTool(std::shared_ptr<Connection> connection, ToolSpec spec, std::string remote_name, Rule rule,
          std::size_t max_content_bytes)
      : connection_(std::move(connection)),
        spec_(std::move(spec)),
        remote_name_(std::move(remote_name)),
        rule_(std::move(rule)),
        max_content_bytes_(max_content_bytes) {}

  ToolSpec Spec() const override { return spec_; }
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override;

  // The server's own name for the tool, and the connection it calls through.
  const std::string& remote_name() const { return remote_name_; }
  const std::shared_ptr<Connection>& connection() const { return connection_; }

  // Arguments builds what is sent as `arguments` from the model's `args` (steps 1–3 above).
  // Errors: InvalidArgument as above.
  absl::StatusOr<std::string> Arguments(std::string_view args) const;

 private:
  const std::shared_ptr<Connection> connection_;
  const ToolSpec spec_;
  const std::string remote_name_;
  const Rule rule_;
  const std::size_t max_content_bytes_;
};

}  // namespace agentrt::mcp
