// tools/agentrt/mcp_commands.h
//
// `agentrt mcp pin|check|tools|call`: the operator's commands for third-party MCP servers,
// configured by one file (docs/mcp.md):
//   pin    record what each server presents (its manifest), classifying nothing;
//   check  the offline check of the pins and the rules: what a Load would register and refuse,
//          starting no server (CI runs it);
//   tools  an operator's first look: the live listing, the hints each tool claims, and whether
//          it still matches its pin; writes nothing;
//   call   one governed call from the shell, recorded as a one-step run in the audit database.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunMcpCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
