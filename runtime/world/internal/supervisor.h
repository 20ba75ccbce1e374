// runtime/world/internal/supervisor.h
//
// The supervisor: a process of ours between this process and each program the launcher starts,
// so that the program and everything it starts end when the launcher closes it, when the
// program exits, and when this process dies, however it dies (real_launcher.h has the contract,
// docs/decisions/0017-a-supervisor-owns-every-descendant.md the reasons).
//
// It is the child of the Spawner's fork and never execs: it is a copy of a multi-threaded
// process, so from the fork to its end it makes only async-signal-safe calls (system calls; no
// allocation, no lock, no stdio). In order, it:
//  1. closes every descriptor but the plan's, so that it holds no other child's pipe or control
//     socket open (each supervisor must see its own parent's end close when that parent dies);
//  2. takes a process group of its own (a terminal's Ctrl-C to this process's group does not
//     reach it), resets every disposition with every signal blocked, asks for SIGTERM as its
//     parent-death signal (and checks the parent did not die before that took effect), becomes
//     a child subreaper (PR_SET_CHILD_SUBREAPER: whatever the program starts and then orphans
//     becomes the supervisor's child, not init's), and reads SIGCHLD and SIGTERM from a
//     signalfd;
//  3. forks the program's process: a process group of its own, SIGKILL when the supervisor
//     dies, the three pipes as stdin, stdout and stderr, the folder, every other descriptor
//     closed at exec, default signal handling and an empty mask, execve. It reports the
//     program's pid (kForked) and closes its copies of the pipes: the program's stdio passes
//     straight between the program and this process, never through the supervisor;
//  4. waits. A kSignal message on the control socket is sent to the program: the supervisor is
//     its parent and the only one to reap it, so the pid it signals is always the program's.
//     Orphans that exit are reaped. Then one of: the program exits; SIGTERM comes (this process
//     died, its Spawner ended, or someone asked); the control socket ends (this process closed
//     it, or died). Each ends the same way:
//  5. every descendant is killed: SIGKILL to the program and its group while both are still the
//     supervisor's to name, then, round after round, to each child the supervisor has (found in
//     /proc by parent pid) and to the group it leads, reaping them, until no child is left. A
//     process is signalled only while it is an unreaped child of the supervisor, so no pid it
//     names can belong to anyone else; and as subreaper it inherits each killed child's
//     children, so the rounds reach every descendant, whatever group or session it moved to;
//  6. it sends kExited with how the program ended, and exits 0.
// A failure before the program runs is written to the report pipe as the ChildStage that failed
// with its errno, and the process that failed exits 127.
//
// What it cannot reach: a descendant that forks faster than the rounds kill (a fork bomb; a
// cgroup's pids.max bounds that, and is the operator's), or a process moved out of its tree
// (ptrace). Without a readable /proc, only the program and its group are killed.
#pragma once

#include <sys/types.h>

#include "runtime/world/internal/spawn.h"

namespace agentrt::world::internal {

// A message on the control socket (SOCK_SEQPACKET: one message is one record, never split or
// merged).
struct ControlMessage {
  enum Kind : int {
    kSignal = 1,  // to the supervisor: send `signal` to the program
    kExited = 2,  // from the supervisor: the program ended (`code` >= 0 when it exited,
                  // `signal` > 0 when a signal ended it) and nothing it started is left
  };
  Kind kind = kSignal;
  int signal = 0;
  int code = -1;
};

// RunSupervisor is the Spawner's child from its fork on; `parent` is this process's pid.
[[noreturn]] void RunSupervisor(const ExecPlan& plan, pid_t parent);

}  // namespace agentrt::world::internal
