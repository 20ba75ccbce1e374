#include "runtime/store/internal/file_security.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace agentrt::store {

absl::Status CreateIfMissing(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return absl::OkStatus();
  }
  if (errno == EEXIST) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("database ", path, ": cannot create: ", std::strerror(errno)));
}

absl::Status SecureFiles(const std::string& path, bool writer) {
  struct stat db;
  if (::stat(path.c_str(), &db) != 0) {
    return absl::NotFoundError(absl::StrCat("database ", path, ": ", std::strerror(errno)));
  }
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    struct stat st;
    if (::lstat(file.c_str(), &st) != 0) {
      if (errno == ENOENT && file != path) continue;
      return absl::PermissionDeniedError(absl::StrCat(file, ": ", std::strerror(errno)));
    }
    if (file != path && !S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(
          absl::StrCat(file, " is not a regular file; remove it before opening the database"));
    }
    if (file == path && !S_ISREG(db.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(file, " is not a regular file"));
    }
    if (file != path && st.st_uid != db.st_uid) {
      return absl::PermissionDeniedError(
          absl::StrCat(file, " belongs to another user than the database; remove it or chown it"));
    }
    mode_t mode = (file == path ? db.st_mode : st.st_mode) & 0777;
    if ((mode & 022) != 0) {
      return absl::PermissionDeniedError(absl::StrFormat(
          "%s has mode %04o, writable by group or others, so anyone could rewrite the audit "
          "log; run: chmod 600 %s",
          file, mode, file));
    }
    if (writer && (mode & 077) != 0 && st.st_uid == ::geteuid()) {
      if (::chmod(file.c_str(), 0600) != 0) {
        return absl::PermissionDeniedError(
            absl::StrCat(file, ": cannot tighten its mode to 0600: ", std::strerror(errno)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace agentrt::store
