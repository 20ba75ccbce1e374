// runtime/world/internal/spawn.h
//
// Forking a child from a multi-threaded program. Everything the child needs is prepared before
// the fork (ExecPlan: C strings, pointer arrays, descriptors), because between fork and exec a
// child may only make async-signal-safe calls: another thread of the parent may have held the
// allocator's or any other lock at the moment of the fork.
//
// The child of the fork is not the program: it is the program's supervisor (supervisor.h),
// which starts the program as its own child and owns everything the program starts. What the
// fork's child does and reports is supervisor.h's; this file is about the fork itself.
//
// All forks happen on the Spawner's own thread, never the caller's: Linux sends the parent-death
// signal when the *thread* that forked ends, so forking from a caller's short-lived thread would
// end the supervisor, and with it the program, when that thread returned. A supervisor's
// parent-death signal therefore comes when this process dies or when the Spawner is destroyed,
// whichever comes first.
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
  // The program's ends of its three pipes, the report pipe's write end and the supervisor's end
  // of the control socket: all >= 3 and close-on-exec, so the dup2 onto 0, 1, 2 never clobbers
  // one of them.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int report_fd = -1;
  int control_fd = -1;
  // The highest descriptor to close (or mark close-on-exec) one by one if close_range is
  // missing.
  int max_fd = 1024;
};

// A step on the way to the program: kForked is the supervisor's news that the program's process
// exists; every other step is one that failed.
enum class ChildStage : int {
  kForked = 0,
  kGroup,        // setpgid (the supervisor's group or the program's)
  kDeathSignal,  // PR_SET_PDEATHSIG
  kSupervisor,   // the supervisor's own setup: subreaper, signals
  kFork,         // the supervisor's fork of the program
  kStdio,        // the program's dup2 onto 0, 1, 2
  kFolder,       // the program's chdir
  kExec,         // the program's execve
};

// What the supervisor and the program's process write to the report pipe, one record a write
// (well under PIPE_BUF, so records never interleave). The parent reads records until end of
// file, which comes once the supervisor has closed its copy and the program's exec succeeded.
struct ChildReport {
  ChildStage stage = ChildStage::kForked;
  int error = 0;  // errno, for a failed step
  pid_t pid = 0;  // kForked: the program's pid
};

class Spawner {
 public:
  Spawner();   // starts the thread
  ~Spawner();  // ends it: supervisors still running get their parent-death signal
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;

  // Fork forks on the Spawner's thread; the child supervises `plan` (supervisor.h) and never
  // returns here. Returns the supervisor's pid. Errors: the fork's errno (ResourceExhausted for
  // EAGAIN, ...). Thread-safe: calls are taken one at a time.
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
