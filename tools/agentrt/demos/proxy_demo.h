// tools/agentrt/demos/proxy_demo.h
//
// `agentrt demo proxy`: the governing proxy between a host and the real filesystem MCP server
// (docs/proxy.md, "The demonstration").
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunProxyDemo(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
