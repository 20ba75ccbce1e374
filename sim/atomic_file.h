// sim/atomic_file.h
//
// Replacing a file so that a crash at any moment leaves either the old contents or the new,
// never a mix: the bytes go to a fresh temporary file in the same folder (created 0600),
// are synced, and the temporary file is renamed over the target; then the folder is synced
// so the rename itself survives a power loss.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace agentrt::sim {

// WriteFileAtomically replaces (or creates) the file at `path` with `bytes`, mode 0600. On
// error no temporary file is left behind and `path` is unchanged. Errors name `what` (e.g.
// "cassette") and `path`, and the operation and OS reason.
absl::Status WriteFileAtomically(const std::string& path, std::string_view bytes,
                                 std::string_view what);

}  // namespace agentrt::sim
