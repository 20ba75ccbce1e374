#include "runtime/base/owned_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/file_util.h"

namespace agentrt {
namespace {

// Closes the descriptor on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string FileModeString(mode_t mode) {
  std::string out = "-";
  constexpr char kLetters[] = "rwx";
  for (int bit = 8; bit >= 0; --bit) {
    out.push_back((mode & (mode_t{1} << bit)) != 0 ? kLetters[(8 - bit) % 3] : '-');
  }
  return out;
}

absl::StatusOr<std::string> ReadOwned(const std::string& path, std::size_t max_bytes,
                                      OwnedRead read) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before the
  // regular-file check could refuse it. Reads from a regular file ignore the flag.
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return ErrnoStatus(errno, absl::StrCat("open ", path));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("stat ", path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  std::string mode = FileModeString(st.st_mode);
  if ((st.st_mode & 022) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " has mode ", mode, ", which lets its group or others write it: chmod go-w it"));
  }
  if (read == OwnedRead::kOwnerOnly && (st.st_mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " has mode ", mode, ", which lets its group or others read it: chmod 600 it"));
  }
  if (st.st_uid != ::geteuid()) {
    return absl::FailedPreconditionError(absl::StrCat(path, " (mode ", mode, ") is owned by uid ",
                                                      st.st_uid, ", not by the current user"));
  }
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InvalidArgumentError(absl::StrCat("read ", path, ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return absl::OutOfRangeError(
          absl::StrCat("read ", path, ": larger than the limit of ", max_bytes, " bytes"));
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace agentrt
