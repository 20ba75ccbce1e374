// mcp/load.h
//
// Load (docs/mcp.md, "Check"): an MCP server's tools as agentrt tools, each one only if it is
// still exactly what was pinned and the operator classified it. The server only describes; the
// operator's rules decide what the model will see, and the report says, tool by tool, what it
// will not see and why.
//
// In order: the server is validated; the manifest must exist and be this server's; every rule
// must name a pinned tool; then one deadline (the connect timeout from now) bounds connecting,
// listing and every check. A live tool the manifest does not pin is reported unpinned; a pinned
// tool without a rule, unclassified; each classified tool is then checked, the first failure
// refusing it with its reason:
//   1. the server still offers it;                 8. its schema reaches nothing outside it;
//   2. its schema hash is the pinned one;          9. every fixed value is JSON;
//   3. its description hash is the pinned one;    10. the hidden parameters hide soundly;
//   4. its annotations contradict no class         11. the schema restricts;
//      (pinned ones, else live ones), unless the  12. the description: the rule's, or pinned;
//      rule allows it;                            13. the spec is built;
//   5. it has a timeout (rule, else server);      14. the runtime itself accepts it
//   6. its model-visible name is usable;              (CheckToolSpec);
//   7. its schema is an object schema;            and its name is not taken by an earlier one,
//                                                 of this server or of one loaded before it with
//                                                 the same ToolNames (tool_names.h).
// Registered tools share one connection; a Load that registers nothing closes it and fails.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "mcp/connection.h"
#include "mcp/manifest.h"
#include "mcp/mcp_tool.h"
#include "mcp/report.h"
#include "mcp/rules.h"
#include "mcp/server.h"
#include "mcp/tool_names.h"
#include "runtime/tool_registry.h"
#include "runtime/world/world.h"

namespace agentrt::mcp {

struct LoadOptions {
  // Called before each classified tool is checked (tests make the checks slow with it).
  std::function<void(std::string_view tool)> before_check;
  // The names the servers loaded before this one hold: a tool whose name one holds is refused,
  // and a Load that registers tools adds theirs. Null: this server is loaded alone.
  ToolNames* names = nullptr;
  // Optional, not owned: where each tool's spec is checked (recorded), so a driver given the
  // same cache (DriverOptions::specs) does not compile its schema again.
  SpecCache* specs = nullptr;
};

struct LoadResult {
  // OK when at least one tool registered. Otherwise the reason: an error before anything was
  // built (validation, manifest, rules, connect, listing, the deadline) comes with no report;
  // `mcp: server "<name>": no tool registered` comes with the report.
  absl::Status status;
  std::optional<Report> report;
  std::vector<std::unique_ptr<McpTool>> tools;  // in the report's order
  std::shared_ptr<Connection> connection;       // shared by `tools`; null when none registered
};

LoadResult Load(const Server& server, const Manifest* manifest, const Rules& rules,
                const world::World& world, const LoadOptions& options = {});

// Classify is Load without the server: the report a Load would give if the server offered
// exactly what `manifest` pins (checks 4 to 14 and the name collisions, with `names` as in
// LoadOptions), starting nothing. The offline check of a team's pinned servers (`agentrt mcp
// check`). Errors: Load's before it connects (validation, a manifest for another server, rules
// naming tools it does not pin).
absl::StatusOr<Report> Classify(const Server& server, const Manifest& manifest, const Rules& rules,
                                ToolNames* names = nullptr);

}  // namespace agentrt::mcp
