// providers/api_key.h
//
// An API key is an operator's secret (runtime/world/secret.h): read from an environment variable
// or an owner-only file, printed only as "[redacted]", sent only in the one header the provider
// reads it from, never written to the database, and recorded in a cassette redacted.
#pragma once

#include "absl/status/statusor.h"
#include "runtime/world/environment.h"
#include "runtime/world/filesystem.h"
#include "runtime/world/secret.h"

namespace agentrt::providers {

using ApiKey = world::Secret;
using KeySource = world::SecretSource;
inline constexpr std::size_t kMaxKeyFileBytes = world::kMaxSecretFileBytes;

// ReadKey is ReadSecret for a key: its messages call it a key (`key file "<path>" holds no key`).
inline absl::StatusOr<ApiKey> ReadKey(const KeySource& source, world::Environment& environment,
                                      world::Filesystem& files) {
  return world::ReadSecret(source, environment, files, "key");
}

}  // namespace agentrt::providers
