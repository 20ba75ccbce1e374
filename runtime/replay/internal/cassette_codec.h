// runtime/replay/internal/cassette_codec.h
//
// The cassette encoder without SerializeCassette's checks, for a writer that has checked each
// exchange as it arrived (CassetteRecorder): checking the whole cassette again on every save
// would cost time quadratic in the number of exchanges. Internal to sim/.
#pragma once

#include <string>

#include "runtime/replay/cassette.h"

namespace agentrt::replay::internal {

// EncodeCassette is the binary form of `cassette` at kCassetteFormatVersion. The caller makes
// sure it passes SerializeCassette's checks.
std::string EncodeCassette(const Cassette& cassette);

}  // namespace agentrt::replay::internal
