#include "runtime/world/environment.h"

#include <cstdlib>

namespace agentrt::world {

std::optional<std::string> ProcessEnvironment::Get(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> FixedEnvironment::Get(std::string_view name) {
  auto it = variables_.find(name);
  if (it == variables_.end()) return std::nullopt;
  return it->second;
}

EnvLookup LookupOf(Environment& environment) {
  return [&environment](std::string_view name) { return environment.Get(name); };
}

}  // namespace agentrt::world
