// testkit/internal/child.h
//
// Running a piece of the kit in a forked child process: the child runs `body` with the write
// end of a pipe and leaves with _exit (no atexit handlers, no flushing of the parent's
// buffers, no test framework teardown); the parent collects everything written to the pipe
// and how the child ended. Test-only: the kit forks to crash a run for real, or to survive a
// tool that crashes.
//
// Fork with care: the child is a copy of a process that may hold other threads' locks. The
// kit forks only while it has no store open and no driver running.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace agentrt::testkit::internal {

struct ChildEnd {
  bool exited = false;  // by _exit/exit; otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  std::string output;  // everything the child wrote to its pipe

  std::string Describe() const;  // "exited with code 3", "killed by signal 11 (Segmentation...)"
};

// The code a body's uncaught exception ends the child with.
inline constexpr int kChildThrew = 120;

// RunChild forks; the child calls body(fd) and _exits with its return value. Errors: the pipe
// or the fork failed.
absl::StatusOr<ChildEnd> RunChild(const std::function<int(int fd)>& body);

}  // namespace agentrt::testkit::internal
