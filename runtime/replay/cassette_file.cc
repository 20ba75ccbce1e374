#include "runtime/replay/cassette_file.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/file_util.h"
#include "runtime/base/status_macros.h"

namespace agentrt::replay {

absl::StatusOr<Cassette> ReadCassette(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadInput(path);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("read cassette: ", bytes.status().message()));
  }
  return ParseCassette(*bytes, path);
}

absl::Status WriteCassette(const std::string& path, const Cassette& cassette) {
  absl::StatusOr<std::string> bytes = SerializeCassette(cassette);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("write cassette ", path, ": ", bytes.status().message()));
  }
  return WriteFileAtomically(path, *bytes, "cassette");
}

}  // namespace agentrt::replay
