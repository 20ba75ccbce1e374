// runtime/world/internal/spawn.h
//
// Forking and exec'ing a child from a multi-threaded program. Everything the child needs is
// prepared before the fork (ExecPlan: C strings, pointer arrays, descriptors), because between
// fork and exec the child may only make async-signal-safe calls: another thread of the parent
// may have held the allocator's or any other lock at the moment of the fork.
//
// The child, in order: its own process group; SIGKILL when its parent thread ends
// (PR_SET_PDEATHSIG, then the check that the parent did not end before that took effect); the
// three pipes as stdin, stdout and stderr; the folder; every other descriptor closed at exec
// (close_range, so even a descriptor someone else opened without O_CLOEXEC does not leak); every
// signal's disposition back to the default and an empty signal mask; execve. A failure on the
// way is written as a ChildFailure to the report pipe (close-on-exec: the parent reads end of
// file when exec succeeded) and the child exits with 127.
//
// All forks happen on the Spawner's own thread, never the caller's: Linux sends the parent-death
// signal when the *thread* that forked ends, so forking from a caller's short-lived thread would
// kill the child when that thread returned. A child's parent-death signal therefore fires when
// this process dies or when the Spawner is destroyed, whichever comes first.
#pragma once

#include <sys/types.h>

#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace agentrt::world::internal {

struct ExecPlan {
  const char* path = nullptr;   // what execve runs
  char* const* argv = nullptr;  // null-terminated
  char* const* envp = nullptr;  // null-terminated; exactly the child's environment
  const char* dir = nullptr;    // nullptr: the parent's folder
  // The child's ends of its three pipes, and the report pipe's write end: all >= 3 and
  // close-on-exec, so the dup2 onto 0, 1, 2 never clobbers one of them.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int report_fd = -1;
  // The highest descriptor to mark close-on-exec one by one if close_range is missing.
  int max_fd = 1024;
};

// The step at which a child failed before its program started.
enum class ChildStage : int {
  kGroup = 1,
  kDeathSignal,
  kStdio,
  kFolder,
  kExec,
};

// What a failed child writes to the report pipe (one write, well under PIPE_BUF).
struct ChildFailure {
  ChildStage stage;
  int error;  // errno
};

class Spawner {
 public:
  Spawner();   // starts the thread
  ~Spawner();  // ends it: children still running get their parent-death signal (SIGKILL)
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Fork forks on the Spawner's thread; the child follows `plan` and never returns here.
  // Returns the child's pid. Errors: the fork's errno (ResourceExhausted for EAGAIN, ...).
  // Thread-safe: calls are taken one at a time.
  absl::StatusOr<pid_t> Fork(const ExecPlan& plan);

 private:
  void Loop();

  absl::Mutex one_call_;  // held for a whole Fork
  absl::Mutex mu_;
  const ExecPlan* plan_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool forked_ ABSL_GUARDED_BY(mu_) = false;
  pid_t pid_ ABSL_GUARDED_BY(mu_) = -1;
  int error_ ABSL_GUARDED_BY(mu_) = 0;
  bool quit_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace agentrt::world::internal
