#include "runtime/store/internal/file_security.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace agentrt::store {
namespace {

// Opens `file` itself, never what a symbolic link there points to (ELOOP), for reading only,
// without blocking on a FIFO or taking a terminal: every check below is of the file that is
// there, through this descriptor, so nothing can be swapped in between a check and its use.
int OpenItself(const std::string& file) {
  return ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

}  // namespace

absl::Status CreateIfMissing(const std::string& path) {
  // O_EXCL fails on any existing name, a symbolic link (even a dangling one) included: what a
  // link points to is never created; SecureFiles then refuses the link by name.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return absl::OkStatus();
  }
  if (errno == EEXIST) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("database ", path, ": cannot create: ", std::strerror(errno)));
}

absl::Status SecureFiles(const std::string& path, bool writer) {
  int db_fd = OpenItself(path);
  if (db_fd < 0) {
    if (errno == ELOOP) {
      return absl::PermissionDeniedError(
          absl::StrCat("database ", path, " is a symbolic link; name the database file itself"));
    }
    if (errno == ENOENT)
      return absl::NotFoundError(absl::StrCat("database ", path, " does not exist"));
    return absl::PermissionDeniedError(absl::StrCat("database ", path, ": ", std::strerror(errno)));
  }
  absl::Cleanup close_db = [db_fd] { ::close(db_fd); };
  struct stat db;
  if (::fstat(db_fd, &db) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("database ", path, ": ", std::strerror(errno)));
  }
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    const bool sidecar = file != path;
    int fd = sidecar ? OpenItself(file) : db_fd;
    if (fd < 0) {
      if (errno == ENOENT) continue;
      if (errno == ELOOP) {
        return absl::PermissionDeniedError(absl::StrCat(
            file,
            " is a symbolic link, not a regular file; remove it before opening the database"));
      }
      return absl::PermissionDeniedError(absl::StrCat(file, ": ", std::strerror(errno)));
    }
    absl::Cleanup close_sidecar = [fd, sidecar] {
      if (sidecar) ::close(fd);
    };
    struct stat st = db;
    if (sidecar && ::fstat(fd, &st) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(file, ": ", std::strerror(errno)));
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
      if (::fchmod(fd, 0600) != 0) {
        return absl::PermissionDeniedError(
            absl::StrCat(file, ": cannot tighten its mode to 0600: ", std::strerror(errno)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace agentrt::store
