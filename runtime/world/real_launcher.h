// runtime/world/real_launcher.h
//
// The real world's Launcher (launcher.h): child processes of this one, on Linux, talking over
// pipes. Constructed by composition roots only (tools/agentrt, a product's main, tests).
//
// What a child gets:
//  - exactly the environment of its LaunchSpec (child_env.h builds the minimal one an MCP
//    server gets), its folder, and stdin, stdout and stderr as pipes; no other descriptor of
//    this process (they are closed at its exec, including ones opened without O_CLOEXEC);
//  - default signal dispositions and an empty signal mask, whatever this process has set;
//  - a process group of its own;
//  - a supervisor (internal/supervisor.h, docs/decisions/0017): a process of ours, the child's
//    parent, which owns everything the child starts. As a child subreaper it inherits every
//    descendant that is orphaned, whatever group or session it moved to, and it kills and reaps
//    them all (after the child itself) when any of these comes:
//      * the child exits: the exit is reported only once nothing it started is left;
//      * Close (at the end of its escalation);
//      * this process dies, however (SIGKILL included), or the RealLauncher is destroyed: the
//        supervisor's parent-death signal, or the end of its control socket.
//    pid() is the child's own; Signal is relayed by the supervisor, which alone reaps the child,
//    so a signal never reaches a pid that was reused. The exit status and the stderr tail are
//    the child's.
//    The parent-death signal follows the *thread* that forked, so every fork happens on one
//    thread the launcher owns for its whole life. Destroy the launcher after its processes
//    (Close them first for a graceful end).
//    What no supervisor reaches: a descendant that forks faster than it kills, or one taken out
//    of its tree (ptrace); without a readable /proc, only the child and its group are ended.
//    Run agentrt in a cgroup of its own when that bound matters.
//
// Waits (Read, Write, Wait, StderrTail, Close's grace periods) are on the injected Clock: with a
// ManualClock, a Close whose child does not exit at end of stdin waits for the clock to be
// moved. The clock must outlive the launcher and every process.
//
// A spec's stderr sink is called on a thread of the process's own; it must not Close that
// process (Close joins the thread).
//
// This process must not reap its children itself: no SIGCHLD set to SIG_IGN, no waitpid(-1)
// elsewhere. A supervisor reaped behind the launcher's back leaves the exit unknown (code -1)
// unless it had already reported it.
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
