// runtime/base/atomic_file.h
//
// Replacing a file so that a crash at any moment leaves either the old contents or the new,
// never a mix: the bytes go to a fresh temporary file in the same folder (a unique name,
// created 0600 with O_EXCL, so nobody else's file is ever written), are synced, and the
// temporary file is renamed over the target; then the folder is synced so the rename itself
// survives a power loss. The one way agentrt replaces a file (cassettes, cursors, the test
// kit's records).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace agentrt {

// WriteFileAtomically replaces (or creates) the file at `path` with `bytes`, mode 0600. On
// error no temporary file is left behind and `path` is unchanged. Errors name `what` (e.g.
// "cassette") and `path`, and the operation and OS reason: NotFound (no such folder),
// PermissionDenied, otherwise Unavailable.
absl::Status WriteFileAtomically(const std::string& path, std::string_view bytes,
                                 std::string_view what);

}  // namespace agentrt
