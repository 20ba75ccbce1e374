#include "mcp/proxy/request_key.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sha256.h"

namespace agentrt::proxy {

std::string HostArguments(std::string_view arguments) {
  std::string_view trimmed = ToStd(absl::StripAsciiWhitespace(ToAbsl(arguments)));
  if (trimmed.empty() || trimmed == "null") return "{}";
  return std::string(arguments);
}

std::optional<std::string> RequestKey(std::string_view tool, std::string_view arguments) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(HostArguments(arguments));
  if (!canonical.ok()) return std::nullopt;
  std::string keyed(tool);
  keyed.push_back('\0');
  keyed += *canonical;
  return json::Sha256Hex(keyed);
}

}  // namespace agentrt::proxy
