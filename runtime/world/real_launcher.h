// runtime/world/real_launcher.h
//
// The real world's Launcher (launcher.h): child processes of this one, on Linux, talking over
// pipes. Constructed by composition roots only (tools/agentrt, a product's main, tests).
//
// What a child gets:
//  - exactly the environment of its LaunchSpec (child_env.h builds the minimal one an MCP
//    server gets), its folder, and stdin, stdout and stderr as pipes; no other descriptor of
//    this process (they are closed at its exec, including ones opened without O_CLOEXEC);
//  - a process group of its own, which Close ends with SIGKILL after the child itself, so its
//    descendants go with it (unless they left the group: setsid, setpgid);
//  - SIGKILL from the kernel when this process dies (PR_SET_PDEATHSIG). Linux sends it when the
//    *thread* that forked the child ends, not the process, so every fork happens on one thread
//    the launcher owns for its whole life: a child is also killed when its RealLauncher is
//    destroyed. Destroy the launcher after its processes (Close them first for a graceful end).
//    The child's own descendants are not covered: if this process is SIGKILLed they live on
//    until they notice (a server's stdin reaching end of file).
//  - default signal dispositions and an empty signal mask, whatever this process has set.
//
// Waits (Read, Write, Wait, StderrTail, Close's grace periods) are on the injected Clock: with a
// ManualClock, a Close whose child does not exit at end of stdin waits for the clock to be
// moved. The clock must outlive the launcher and every process.
//
// A spec's stderr sink is called on a thread of the process's own; it must not Close that
// process (Close joins the thread).
//
// This process must not reap the children itself: no SIGCHLD set to SIG_IGN, no waitpid(-1)
// elsewhere. A child reaped behind the launcher's back has an unknown exit (code -1) and its
// group is not signalled, since its pid may already belong to another process.
//
// Thread-safe.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/launcher.h"

namespace agentrt::world {

namespace internal {
class Spawner;  // internal/spawn.h
}  // namespace internal

struct RealLauncherOptions {
  absl::Duration stdin_grace = absl::Seconds(2);  // Close: after closing stdin, before SIGTERM
  absl::Duration term_grace = absl::Seconds(2);   // after SIGTERM, before SIGKILL
};

class RealLauncher final : public Launcher {
 public:
  explicit RealLauncher(const Clock& clock, RealLauncherOptions options = {});
  ~RealLauncher() override;
  RealLauncher(const RealLauncher&) = delete;
  RealLauncher& operator=(const RealLauncher&) = delete;

  // Start returns once the child's program is running (its exec succeeded). Errors, besides
  // launcher.h's: the operating system's error naming the program when exec failed
  // (PermissionDenied for a file that is not executable, ...) or naming the folder when the
  // child could not enter it (NotFound, ...); InvalidArgument for a NUL byte in an argument, an
  // env entry or the folder.
  absl::StatusOr<std::unique_ptr<Process>> Start(const LaunchSpec& spec) override;

 private:
  const Clock& clock_;
  const RealLauncherOptions options_;
  std::unique_ptr<internal::Spawner> spawner_;
};

}  // namespace agentrt::world
