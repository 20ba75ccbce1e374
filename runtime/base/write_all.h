// runtime/base/write_all.h
//
// Writing a whole buffer to a file descriptor: short writes are continued and EINTR retried,
// so a caller never mistakes a partial write for a whole one.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace agentrt {

// WriteAll writes every byte of `bytes` to `fd`. Errors: the status of the errno of the write
// that failed (absl::ErrnoToStatus), its message "write: <reason>".
absl::Status WriteAll(int fd, std::string_view bytes);

}  // namespace agentrt
