// runtime/base/owned_file.h
//
// Reading a file an operator owns: rules, manifests, a configuration. What such a file says
// decides which tools an agent gets and what the runtime allows, so a file that someone else
// could have written is refused rather than read (docs/mcp.md, "Classify"). The checks are made
// on the opened file (fstat), so the bytes read are the bytes of the file checked: a rename
// between a check and the read cannot swap them. Symbolic links are followed, as open does.
//
// Thread-safe: no shared state.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/base/file_util.h"

namespace agentrt {

// ReadOwned returns the bytes of the file at `path` once it is known to be
//   1. a regular file, else InvalidArgument `<path> is not a regular file`;
//   2. writable by nobody but its owner, else FailedPrecondition
//      `<path> has mode <mode>, which lets its group or others write it: chmod go-w it`;
//   3. owned by this process's effective user, else FailedPrecondition
//      `<path> (mode <mode>) is owned by uid <uid>, not by the current user`.
// Files others may read (0644, 0444) are accepted, unless `read` is kOwnerOnly (a secret: a key,
// a token): then also FailedPrecondition `<path> has mode <mode>, which lets its group or others
// read it: chmod 600 it`, checked on the opened file like the rest. Open errors: NotFound /
// PermissionDenied (InvalidArgument for other reasons) `open <path>: <OS reason>`; a file larger
// than `max_bytes`: OutOfRange.
enum class OwnedRead { kOthersMayRead, kOwnerOnly };
absl::StatusOr<std::string> ReadOwned(const std::string& path,
                                      std::size_t max_bytes = kDefaultMaxInputBytes,
                                      OwnedRead read = OwnedRead::kOthersMayRead);

// FileModeString is the ten-character form of a file's permission bits, "-" then three "rwx"
// triplets with "-" for an absent bit: 0600 is "-rw-------", 0666 "-rw-rw-rw-". Only the nine
// permission bits are shown, whatever else `mode` holds.
std::string FileModeString(mode_t mode);

}  // namespace agentrt
