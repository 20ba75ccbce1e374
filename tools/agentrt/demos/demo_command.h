// tools/agentrt/demos/demo_command.h
//
// `agentrt demo scripted|model|mcp|world|live`: the demonstrations, each a short program over the
// libraries that a reader can copy into a product of their own:
//   scripted  a scripted agent against three in-memory tools (demo_command.cc)
//   model     a model-backed agent under model accounting, recorded or replayed (model_demo.h)
//   mcp       the real filesystem MCP server in a sandbox, a write approved (mcp_demo.h)
//   world     tools that start a process and ask an HTTP server, recorded or replayed
//             (world_demo.h)
//   live      a real model through its provider's adapter, or a stand-in on loopback
//             (live_demo.h)
// They live apart from the commands' core: nothing but this dispatch and `agentrt replay`
// (which re-runs a recorded demonstration) reaches them.
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunDemoCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
