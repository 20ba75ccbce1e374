// tools/agentrt/mcp_shared.h
//
// What the `agentrt mcp` and `agentrt proxy` commands and `agentrt demo mcp` share: how a listing
// is shown to an operator (one line a tool, every server-chosen piece escaped), and pinning a
// configuration's servers. Loading them is the MCP library's (mcp/load_all.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/annotations.h"
#include "mcp/config.h"
#include "mcp/listing.h"
#include "runtime/world/world.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

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

// LoadConfig reads the configuration a command's --config named. Without one it prints the usage
// error and sets `*exit` (2); the file's own errors are a failure (1), printed under `command`.
std::optional<mcp::Config> LoadConfig(Io& io, std::string_view command, const std::string& path,
                                      int* exit);

// SelectServers is the configuration's servers, or only the one named `only` ("" for all);
// `*unknown` says `only` names none.
std::vector<const mcp::ServerConfig*> SelectServers(const mcp::Config& config,
                                                    const std::string& only, bool* unknown);

// PinServers pins each of `servers` and writes its manifest (owner-only, atomically), printing
// each server's tools with the hints they claim; a server that cannot be pinned is a failure
// named under `command`, and the others are still pinned. kExitOk or kExitFailure.
int PinServers(Io& io, std::string_view command,
               const std::vector<const mcp::ServerConfig*>& servers, const world::World& world);

// PinConfigured is `mcp pin` and `proxy pin` once their flags are read: the configuration at
// `config_path` read (LoadConfig), its servers (or only `only`) pinned (PinServers) in the real
// world, then, after a success, `next` followed by the configuration's path (the command to run
// next). kExitOk, kExitFailure or kExitUsage.
int PinConfigured(Io& io, std::string_view command, const std::string& config_path,
                  const std::string& only, std::string_view next);

}  // namespace agentrt::cli
