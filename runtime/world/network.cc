#include "runtime/world/network.h"

namespace agentrt::world {

absl::StatusOr<std::string> ReadBody(HttpResponse& response, absl::Time deadline) {
  std::string body;
  for (;;) {
    absl::StatusOr<std::string> chunk = response.Read(deadline);
    if (!chunk.ok()) return chunk.status();
    if (chunk->empty()) return body;
    body += *chunk;
  }
}

}  // namespace agentrt::world
