// mcp/pin.h
//
// Pin (docs/mcp.md, "Pin"): what a server presents, recorded so a later Load can refuse any
// change. Connect, list every page of tools/list from the raw bytes the server sent (listing.h:
// exact-case keys, no duplicates, at most 100 pages and 1,000 tools, no repeated cursor), close,
// and pin each tool's name, description and canonical input schema by hash, with the
// annotations as received. One deadline (the caller's, or the connect timeout from now if
// sooner) bounds connecting and listing. Pin classifies nothing: that is the operator's rules.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/listing.h"
#include "mcp/manifest.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "runtime/world/world.h"

namespace agentrt::mcp {

// Pin pins `server`'s tools. Errors: ValidateServer's; phase errors (server.h) for `connect`
// and `list tools`. The session is always closed when Pin returns.
absl::StatusOr<Manifest> Pin(const Server& server, const world::World& world,
                             absl::Time deadline = absl::InfiniteFuture());

// ListAll reads every page of the server's tools over `session` by `deadline`, sorted by name.
// Errors: the session's, and the listing's (listing.h), unwrapped: the caller names the phase.
absl::StatusOr<std::vector<ListedTool>> ListAll(Session& session, absl::Time deadline);

}  // namespace agentrt::mcp
