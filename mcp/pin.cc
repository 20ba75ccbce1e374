#include "mcp/pin.h"

#include <algorithm>
#include <utility>

#include "runtime/json/json_object.h"

namespace agentrt::mcp {

absl::StatusOr<std::vector<ListedTool>> ListAll(Session& session, absl::Time deadline) {
  Listing listing;
  while (!listing.done()) {
    if (absl::Status s = listing.BeforeRequest(); !s.ok()) return s;
    std::string params;
    if (!listing.next_cursor().empty()) {
      params = json::JsonObject().String("cursor", listing.next_cursor()).Build();
    }
    absl::StatusOr<std::string> result = session.Request("tools/list", params, deadline);
    if (!result.ok()) return result.status();
    absl::StatusOr<ListingPage> page = ParseListingPage(*result);
    if (!page.ok()) return page.status();
    if (absl::Status s = listing.Add(*std::move(page)); !s.ok()) return s;
  }
  return listing.Take();
}

absl::StatusOr<Manifest> Pin(const Server& server, const world::World& world, absl::Time deadline) {
  if (absl::Status valid = ValidateServer(server); !valid.ok()) return valid;
  deadline = std::min(deadline, world.clock->Now() + ConnectTimeout(server));
  absl::StatusOr<std::unique_ptr<Session>> session = Connect(server, world, deadline);
  if (!session.ok()) return session.status();
  absl::StatusOr<std::vector<ListedTool>> tools = ListAll(**session, deadline);
  if (!tools.ok()) return Fail(server, "list tools", **session, tools.status(), *world.clock);
  (*session)->Close();
  Manifest manifest;
  manifest.server = server.name;
  manifest.pinned_at = world.clock->Now();
  for (const ListedTool& tool : *tools) manifest.tools.emplace(tool.name, PinTool(tool));
  return manifest;
}

}  // namespace agentrt::mcp
