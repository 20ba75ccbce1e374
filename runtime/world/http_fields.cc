#include "runtime/world/http_fields.h"

#include "absl/strings/match.h"
#include "runtime/base/string_view.h"

namespace agentrt::world {

std::optional<std::string> FindHeader(const HttpFields& fields, std::string_view name) {
  for (const auto& [key, value] : fields) {
    if (absl::EqualsIgnoreCase(key, ToAbsl(name))) return value;
  }
  return std::nullopt;
}

}  // namespace agentrt::world
