// providers/model_world.h
//
// What an adapter takes from the injected world (runtime/world/world.h): the network every HTTP
// exchange goes through (so a real run is recorded and replayed like every other exchange), the
// clock Retry-After dates are read against, and the entropy ids are drawn from. The environment
// is read only for a setting that is no secret (OLLAMA_HOST); keys come from an ApiKey the
// composition root read (api_key.h), never through a recorded environment.
#pragma once

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/world/world.h"

namespace agentrt::providers {

// The time an adapter waits for one reply when the caller's deadline is later: a backstop only,
// the model caller's per-attempt timeout is the real deadline.
inline constexpr absl::Duration kDefaultTimeout = absl::Minutes(15);

// CheckModelWorld: InvalidArgument "<provider>: the world has no <part>" unless `world` has a
// network, a clock and an entropy.
absl::Status CheckModelWorld(const world::World& world, const char* provider);

}  // namespace agentrt::providers
