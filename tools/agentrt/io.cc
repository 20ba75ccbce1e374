#include "tools/agentrt/io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/file_util.h"

namespace agentrt::cli {

absl::StatusOr<std::string> ReadInput(Io& io, std::string_view path) {
  if (path != "-") return agentrt::ReadFile(path);
  std::string bytes;
  char buffer[1 << 16];
  // A stream keeps no reason for a failed read; the process's standard input leaves the C
  // library's errno behind, so the message names it as ReadInput of file_util.h would.
  errno = 0;
  while (io.in.good()) {
    io.in.read(buffer, sizeof(buffer));
    auto n = static_cast<std::size_t>(io.in.gcount());
    if (bytes.size() + n > kDefaultMaxInputBytes) {
      return absl::OutOfRangeError(
          absl::StrCat("read standard input: input is larger than the limit of ",
                       kDefaultMaxInputBytes, " bytes"));
    }
    bytes.append(buffer, n);
  }
  if (io.in.bad()) {
    if (errno != 0) return ErrnoStatus(errno, "read standard input");
    return absl::InvalidArgumentError("read standard input: a read failed");
  }
  return bytes;
}

bool StdinIsTerminal() {
  struct stat in;
  if (::fstat(STDIN_FILENO, &in) != 0 || !S_ISCHR(in.st_mode)) return false;
  struct stat null;
  if (::stat("/dev/null", &null) == 0 && null.st_dev == in.st_dev && null.st_ino == in.st_ino) {
    return false;
  }
  return true;
}

}  // namespace agentrt::cli
