#include "mcp/errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {

std::string Quote(std::string_view text) { return json::QuoteBytes(text, kQuotedBytes); }

std::string ServerPrefix(std::string_view server) {
  return absl::StrCat("mcp: server ", Quote(server), ": ");
}

absl::Status ServerError(std::string_view server, const absl::Status& status) {
  absl::Status out(status.code(), absl::StrCat(ServerPrefix(server), status.message()));
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& value) { out.SetPayload(url, value); });
  return out;
}

}  // namespace agentrt::mcp
