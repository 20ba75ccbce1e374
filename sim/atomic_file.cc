#include "sim/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::sim {
namespace {

absl::Status OsError(std::string_view what, const std::string& path, std::string_view op, int err) {
  std::string message =
      absl::StrCat("write ", ToAbsl(what), " ", path, ": ", ToAbsl(op), ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

// WriteAll returns 0 or the errno of the write that failed.
int WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::string_view bytes,
                                 std::string_view what) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string pattern = (dir / ("." + target.filename().string() + ".XXXXXX.tmp")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  // mkstemps creates the file 0600 with O_EXCL, so nobody else's file is ever written.
  int fd = ::mkostemps(name.data(), 4, O_CLOEXEC);
  if (fd < 0) return OsError(what, path, "create a temporary file", errno);
  std::string temp(name.data());
  auto fail = [&](std::string_view op, int err) {
    ::close(fd);
    ::unlink(temp.c_str());
    return OsError(what, path, op, err);
  };
  if (::fchmod(fd, 0600) != 0) return fail("chmod", errno);
  if (int err = WriteAll(fd, bytes); err != 0) return fail("write", err);
  if (::fsync(fd) != 0) return fail("fsync", errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return OsError(what, path, "close", err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return OsError(what, path, "rename", err);
  }
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    int rc = ::fsync(dir_fd);
    int err = errno;
    ::close(dir_fd);
    if (rc != 0) return OsError(what, path, "fsync the folder", err);
  }
  return absl::OkStatus();
}

}  // namespace agentrt::sim
