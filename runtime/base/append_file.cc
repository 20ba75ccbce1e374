#include "runtime/base/append_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/base/write_all.h"

namespace agentrt {
namespace {

absl::Status OsError(std::string_view what, const std::string& path, std::string_view op, int err) {
  absl::StatusCode code = absl::StatusCode::kUnavailable;
  if (err == ENOENT) code = absl::StatusCode::kNotFound;
  if (err == EACCES || err == EPERM) code = absl::StatusCode::kPermissionDenied;
  if (err == EEXIST) code = absl::StatusCode::kAlreadyExists;
  return absl::Status(
      code, absl::StrCat(ToAbsl(what), " ", path, ": ", ToAbsl(op), ": ", std::strerror(err)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<AppendFile>> AppendFile::Create(const std::string& path,
                                                               std::string_view what) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return OsError(what, path, "create", errno);
  std::unique_ptr<AppendFile> file(new AppendFile(fd, path, std::string(what)));
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return OsError(what, path, "open the folder", errno);
  int rc = ::fsync(dir_fd);
  int err = errno;
  ::close(dir_fd);
  if (rc != 0) return OsError(what, path, "fsync the folder", err);
  return file;
}

absl::StatusOr<std::unique_ptr<AppendFile>> AppendFile::OpenExisting(const std::string& path,
                                                                     std::string_view what) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return OsError(what, path, "open", errno);
  return std::unique_ptr<AppendFile>(new AppendFile(fd, path, std::string(what)));
}

AppendFile::~AppendFile() { ::close(fd_); }

absl::Status AppendFile::Append(std::string_view bytes) {
  if (absl::Status written = WriteAll(fd_, bytes); !written.ok()) {
    return absl::Status(written.code(),
                        absl::StrCat(ToAbsl(what_), " ", path_, ": ", written.message()));
  }
  return absl::OkStatus();
}

absl::Status AppendFile::Sync() {
  if (::fdatasync(fd_) != 0) return OsError(what_, path_, "fdatasync", errno);
  return absl::OkStatus();
}

}  // namespace agentrt
