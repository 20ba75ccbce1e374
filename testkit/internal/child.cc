#include "testkit/internal/child.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace agentrt::testkit::internal {

std::string ChildEnd::Describe() const {
  if (exited) return absl::StrCat("exited with code ", code);
  return absl::StrCat("killed by signal ", signal, " (", strsignal(signal), ")");
}

absl::StatusOr<ChildEnd> RunChild(const std::function<int(int fd)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("testkit: cannot make a pipe: ", strerror(errno)));
  }
  // Whatever the parent buffered must not be written twice by the child.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::InternalError(absl::StrCat("testkit: cannot fork: ", strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    int code = kChildThrew;
    try {
      code = body(fds[1]);
    } catch (...) {
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  ChildEnd end;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    end.output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("testkit: cannot wait for the child: ", strerror(errno)));
    }
  }
  if (WIFEXITED(status)) {
    end.exited = true;
    end.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
  }
  return end;
}

}  // namespace agentrt::testkit::internal
