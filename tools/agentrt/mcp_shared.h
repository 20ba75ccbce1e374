// tools/agentrt/mcp_shared.h
//
// What the `agentrt mcp` commands and `agentrt demo mcp` share: how a listing is shown to an
// operator (one line a tool, every server-chosen piece escaped). Loading a configuration's
// servers is the MCP library's (mcp/load_all.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/annotations.h"
#include "mcp/listing.h"

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

}  // namespace agentrt::cli
