#include "runtime/base/atomic_file.h"

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
#include "runtime/base/write_all.h"

namespace agentrt {
namespace {

absl::StatusCode CodeFor(int err) {
  if (err == ENOENT) return absl::StatusCode::kNotFound;
  if (err == EACCES || err == EPERM) return absl::StatusCode::kPermissionDenied;
  return absl::StatusCode::kUnavailable;
}

absl::Status OsError(std::string_view what, const std::string& path, std::string_view op, int err) {
  return absl::Status(CodeFor(err), absl::StrCat("write ", ToAbsl(what), " ", path, ": ",
                                                 ToAbsl(op), ": ", std::strerror(err)));
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
  auto discard = [&] {
    ::close(fd);
    ::unlink(temp.c_str());
  };
  if (::fchmod(fd, 0600) != 0) {
    int err = errno;
    discard();
    return OsError(what, path, "chmod", err);
  }
  if (absl::Status written = WriteAll(fd, bytes); !written.ok()) {
    discard();
    return absl::Status(written.code(),
                        absl::StrCat("write ", ToAbsl(what), " ", path, ": ", written.message()));
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    discard();
    return OsError(what, path, "fsync", err);
  }
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

}  // namespace agentrt
