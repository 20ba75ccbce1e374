#include "runtime/base/write_all.h"

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace agentrt {

absl::Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "write");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace agentrt
