// runtime/replay/cassette_file.h
//
// Cassette files on disk: read with every check ParseCassette makes, written atomically
// (runtime/base/atomic_file.h) with mode 0600, since a cassette holds whole conversations with a
// model.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/replay/cassette.h"

namespace agentrt::replay {

// ReadCassette reads and checks the cassette file at `path`. Errors name the file: NotFound /
// PermissionDenied from the OS, and ParseCassette's.
absl::StatusOr<Cassette> ReadCassette(const std::string& path);

// WriteCassette replaces the file at `path` with `cassette` atomically. Errors:
// SerializeCassette's, and the OS's naming the file.
absl::Status WriteCassette(const std::string& path, const Cassette& cassette);

}  // namespace agentrt::replay
