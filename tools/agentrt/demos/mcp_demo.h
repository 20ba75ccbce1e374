// tools/agentrt/demos/mcp_demo.h
//
// `agentrt demo mcp`: a scripted agent against the real filesystem MCP server in a private
// sandbox: pinned, loaded under the operator's rules, a read allowed, a write paused for an
// operator and resumed once approved (docs/mcp.md, "The demonstration").
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunMcpDemo(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
