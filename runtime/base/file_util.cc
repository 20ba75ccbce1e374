#include "runtime/base/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt {
absl::Status ErrnoStatus(int err, std::string_view what) {
  std::string message = absl::StrCat(ToAbsl(what), ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InvalidArgumentError(message);
  }
}

namespace {

absl::StatusOr<std::string> ReadAll(int fd, std::string_view name, std::size_t max_bytes) {
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, absl::StrCat("read ", ToAbsl(name)));
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return absl::OutOfRangeError(absl::StrCat(
          "read ", ToAbsl(name), ": input is larger than the limit of ", max_bytes, " bytes"));
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> ReadFile(std::string_view path, std::size_t max_bytes) {
  std::string name(path);
  int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("open ", name));
  absl::StatusOr<std::string> bytes = ReadAll(fd, name, max_bytes);
  ::close(fd);
  return bytes;
}

}  // namespace agentrt
