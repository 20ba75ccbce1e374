// tools/agentrt/mcp_shared.h
//
// What the `agentrt mcp` commands and `agentrt demo mcp` share: a configured server as the
// client's Server, the tools a Load registered with their runtime spec, and how a listing is
// shown to an operator (one line a tool, every server-chosen piece escaped).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mcp/annotations.h"
#include "mcp/config.h"
#include "mcp/listing.h"
#include "mcp/server.h"

namespace agentrt::cli {

// ServerOf is the client's view of a configured server (its stderr kept as a tail).
mcp::Server ServerOf(const mcp::ServerConfig& config);

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
