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
  // O_EXCL fails on any existing name, a symbolic link (even a dangling one) included: what a
  // link points to is never created; SecureFiles then refuses the link by name. The name did not
  // exist, so this process held no lock on it that closing the descriptor could drop.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return absl::OkStatus();
  }
  if (errno == EEXIST) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("database ", path, ": cannot create: ", std::strerror(errno)));
}

// Every check is by name (lstat, chmod), never through a descriptor of our own: closing any
// descriptor of a file drops every POSIX lock this process holds on it, SQLite's included, and
// SQLite's locks on the database and its -shm are what keep two processes (or two stores of
// one process) from writing over each other's commits. A link swapped in after these checks is
// refused by SQLite itself, which opens every file with O_NOFOLLOW (SQLITE_OPEN_NOFOLLOW).
absl::Status SecureFiles(const std::string& path, bool writer) {
  struct stat db;
  if (::lstat(path.c_str(), &db) != 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(absl::StrCat("database ", path, " does not exist"));
    }
    return absl::PermissionDeniedError(absl::StrCat("database ", path, ": ", std::strerror(errno)));
  }
  if (S_ISLNK(db.st_mode)) {
    return absl::PermissionDeniedError(
        absl::StrCat("database ", path, " is a symbolic link; name the database file itself"));
  }
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    const bool sidecar = file != path;
    struct stat st = db;
    if (sidecar && ::lstat(file.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return absl::PermissionDeniedError(absl::StrCat(file, ": ", std::strerror(errno)));
    }
    if (sidecar && S_ISLNK(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(
          file, " is a symbolic link, not a regular file; remove it before opening the database"));
    }
    if (sidecar && !S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(
          absl::StrCat(file, " is not a regular file; remove it before opening the database"));
    }
    if (!sidecar && !S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(file, " is not a regular file"));
    }
    if (sidecar && st.st_uid != db.st_uid) {
      return absl::PermissionDeniedError(
          absl::StrCat(file, " belongs to another user than the database; remove it or chown it"));
    }
    mode_t mode = st.st_mode & 0777;
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
