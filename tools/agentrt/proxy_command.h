// tools/agentrt/proxy_command.h
//
// `agentrt proxy`: the governing MCP proxy (docs/proxy.md). `agentrt proxy --config F` serves one
// MCP host over standard input and output (only the protocol on stdout; everything else on
// stderr, escaped); `proxy pin` and `proxy check` prepare and check its servers.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunProxyCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
