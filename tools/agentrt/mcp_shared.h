// tools/agentrt/mcp_shared.h
//
// What the `agentrt mcp` commands, `agentrt demo mcp` and `agentrt sim record|replay` share: a
// configured server as the client's Server, a configuration's servers loaded into the tools a
// driver is given, and how a listing is shown to an operator (one line a tool, every
// server-chosen piece escaped).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/annotations.h"
#include "mcp/config.h"
#include "mcp/listing.h"
#include "mcp/load.h"
#include "mcp/manifest.h"
#include "mcp/server.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "runtime/world/world.h"

namespace agentrt::cli {

// ServerOf is the client's view of a configured server (its stderr kept as a tail).
mcp::Server ServerOf(const mcp::ServerConfig& config);

// The tools a configuration's servers registered, for one driver.
struct ConfiguredTools {
  std::vector<mcp::LoadResult> loaded;  // one per server, in order: owns its tools and session
  std::vector<Tool*> tools;             // every registered tool, the servers' in their order
  // The model-visible names whose rule sets an `outcome`, which overrides their class's.
  std::map<std::string, PolicyOutcome> outcomes;
  std::string reports;  // each load's report, and why a load registered nothing, one a line
  // Close ends every server's session (its process, or its HTTP session).
  void Close();
};

// LoadConfigured loads each server of `config` against `manifests[i]` (one per server, in the
// configuration's order) and its rules, in `world`. A server whose load fails registers
// nothing and says why in `reports`; the others' tools are still there.
ConfiguredTools LoadConfigured(const mcp::Config& config,
                               const std::vector<mcp::Manifest>& manifests,
                               const world::World& world);

// OneLine is `text` on one line for a listing: whitespace runs become one space, the ends are
// trimmed, the rest is escaped (json::Sanitize) and cut at `max_bytes` with a mark.
std::string OneLine(std::string_view text, int max_bytes);

// HintsText: the hints a tool claims, short ("read-only", "destructive", "not destructive",
// "idempotent", "open-world", "closed-world"), "no hints" when it sent no annotations.
std::string HintsText(const std::optional<mcp::Annotations>& annotations);

// ListingLines: one line a tool, `  <name padded to 28>  <hints padded to 38>  <description>`,
// with `extra` (one per tool, may be empty) put before the description when given.
std::string ListingLines(const std::vector<mcp::ListedTool>& tools,
                         const std::vector<std::string>& extra = {});

}  // namespace agentrt::cli
