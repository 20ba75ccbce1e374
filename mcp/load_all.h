// mcp/load_all.h
//
// Loading several servers for one driver, and a configuration's servers as that driver's tools.
// Every caller that loads more than one server (the `agentrt mcp call` and `sim record`
// commands, the simulator's player) goes through LoadAll, so a model-visible name names one
// tool across the servers (tool_names.h) however the servers were configured.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "mcp/config.h"
#include "mcp/load.h"
#include "mcp/manifest.h"
#include "mcp/rules.h"
#include "mcp/server.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "runtime/world/world.h"

namespace agentrt::mcp {

// ServerOf is the client's view of a configured server (its stderr kept as a tail).
Server ServerOf(const ServerConfig& config);

// One server to load: what Load takes. The pointers are borrowed for the call.
struct ServerToLoad {
  Server server;
  const Manifest* manifest = nullptr;
  const Rules* rules = nullptr;
};

// LoadAll loads `servers` in order, each with Load, the later ones refused a name an earlier one
// registered. One result a server, in order; a server whose load fails registers nothing and its
// result says why, the others' tools are still there. Specs are checked through `specs` when
// given (LoadOptions::specs).
std::vector<LoadResult> LoadAll(std::span<const ServerToLoad> servers, const world::World& world,
                                SpecCache* specs = nullptr);

// The tools a configuration's servers registered, for one driver.
struct ConfiguredTools {
  std::vector<LoadResult> loaded;  // one per server, in order: owns its tools and session
  std::vector<Tool*> tools;        // every registered tool, the servers' in their order
  // The model-visible names whose rule sets an `outcome`, which overrides their class's.
  std::map<std::string, PolicyOutcome> outcomes;
  // Each load's report, and why a load registered nothing (escaped), one a line.
  std::string reports;
  // Close ends every server's session (its process, or its HTTP session).
  void Close();
};

// LoadConfigured loads each server of `config` against `manifests[i]` (one per server, in the
// configuration's order) and its rules, in `world` (LoadAll, through `specs` when given).
ConfiguredTools LoadConfigured(const Config& config, const std::vector<Manifest>& manifests,
                               const world::World& world, SpecCache* specs = nullptr);

}  // namespace agentrt::mcp
