#include "runtime/export/cursor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::exporter {
namespace {

// A cursor file holds at most 19 digits and a newline; anything much longer is not one.
constexpr std::size_t kMaxCursorBytes = 64;

absl::Status OsError(const std::string& file, std::string_view what) {
  int err = errno;
  return absl::Status(
      absl::ErrnoToStatusCode(err),
      absl::StrCat("cursor file ", file, ": cannot ", ToAbsl(what), ": ", std::strerror(err)));
}

absl::Status CheckSeq(std::int64_t seq) {
  if (seq < 0) return absl::InvalidArgumentError(absl::StrCat("a cursor seq is >= 0, not ", seq));
  return absl::OkStatus();
}

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

}  // namespace

absl::StatusOr<std::int64_t> FileCursor::Load() {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    return OsError(path_, "open it");
  }
  std::string content;
  char buffer[kMaxCursorBytes + 1];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status error = OsError(path_, "read it");
      ::close(fd);
      return error;
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > kMaxCursorBytes) break;
  }
  ::close(fd);
  std::string_view digits = content;
  if (!digits.empty() && digits.back() == '\n') digits.remove_suffix(1);
  std::int64_t seq = 0;
  bool all_digits = !digits.empty() && content.size() <= kMaxCursorBytes;
  for (char c : digits)
    all_digits = all_digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
  if (!digits.empty() && digits[0] == '-' && absl::SimpleAtoi(ToAbsl(digits), &seq) && seq < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cursor file ", path_, " holds ", seq, ", and a seq is never negative"));
  }
  if (!all_digits || !absl::SimpleAtoi(ToAbsl(digits), &seq)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cursor file ", path_, " holds \"", json::Sanitize(content.substr(0, kMaxCursorBytes)),
        "\", not a seq (decimal digits and a newline)"));
  }
  return seq;
}

absl::Status FileCursor::Save(std::int64_t seq) {
  if (absl::Status valid = CheckSeq(seq); !valid.ok()) return valid;
  // The temporary lives in the same directory, so the rename never crosses file systems and
  // replaces the cursor in one step.
  std::string temp = path_ + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return OsError(temp, "create it");
  absl::Status written = WriteAll(fd, absl::StrCat(seq, "\n"));
  if (written.ok() && ::fsync(fd) != 0) written = absl::ErrnoToStatus(errno, "fsync");
  // A temporary left by a run under another umask, or created before, is tightened too.
  if (written.ok() && ::fchmod(fd, 0600) != 0) written = absl::ErrnoToStatus(errno, "chmod 0600");
  ::close(fd);
  if (!written.ok()) {
    return absl::Status(written.code(),
                        absl::StrCat("cursor file ", temp, ": ", written.message()));
  }
  if (::rename(temp.c_str(), path_.c_str()) != 0)
    return OsError(path_, "rename its temporary over it");
  // The rename is durable once the directory is synced.
  std::string dir = std::filesystem::path(path_).parent_path().string();
  int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::int64_t> MemCursor::Load() { return seq_; }

absl::Status MemCursor::Save(std::int64_t seq) {
  if (absl::Status valid = CheckSeq(seq); !valid.ok()) return valid;
  seq_ = seq;
  return absl::OkStatus();
}

}  // namespace agentrt::exporter
