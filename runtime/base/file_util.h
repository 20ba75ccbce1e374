// runtime/base/file_util.h
//
// Reading whole files (the command line's `-` for standard input is tools/agentrt/io.h's
// ReadInput, over the streams a command is given). Reads are bounded so a runaway input is
// refused with its size instead of exhausting memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace agentrt {

inline constexpr std::size_t kDefaultMaxInputBytes = std::size_t{256} << 20;  // 256 MiB

// ErrnoStatus is the status for the OS error `err` of `what` ("open /etc/x"): NotFound for
// ENOENT, PermissionDenied for EACCES and EPERM, InvalidArgument otherwise; the message is
// `<what>: <OS reason>`.
absl::Status ErrnoStatus(int err, std::string_view what);

// ReadFile returns the bytes of the file at `path`. Errors: NotFound / PermissionDenied /
// InvalidArgument naming the path and the OS reason; OutOfRange when the file is larger than
// `max_bytes`.
absl::StatusOr<std::string> ReadFile(std::string_view path,
                                     std::size_t max_bytes = kDefaultMaxInputBytes);

}  // namespace agentrt
