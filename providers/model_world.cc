#include "providers/model_world.h"

#include "absl/strings/str_cat.h"

namespace agentrt::providers {

absl::Status CheckModelWorld(const world::World& world, const char* provider) {
  const char* missing = world.network == nullptr   ? "network"
                        : world.clock == nullptr   ? "clock"
                        : world.entropy == nullptr ? "entropy"
                                                   : nullptr;
  if (missing == nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(provider, ": the world has no ", missing));
}

}  // namespace agentrt::providers
