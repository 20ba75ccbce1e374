#include "runtime/world/internal/supervisor.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace agentrt::world::internal {
namespace {

// From the fork on: async-signal-safe calls only, no allocation, no locks, no return.

// How many rounds in a row may find no child to kill while children remain (one the walk of
// /proc does not show) before the supervisor gives up on them.
constexpr int kMaxEmptyRounds = 100;

void Report(int report_fd, const ChildReport& report) {
  ssize_t ignored = ::write(report_fd, &report, sizeof report);
  (void)ignored;
}

[[noreturn]] void Fail(int report_fd, ChildStage stage) {
  Report(report_fd, ChildReport{.stage = stage, .error = errno});
  ::_exit(127);
}

// glibc's fork runs the atfork handlers, which may take locks of the copied process; _Fork
// (glibc 2.34) does not, and is async-signal-safe.
pid_t ForkHere() {
#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 34)
  return ::_Fork();
#endif
#endif
  return ::fork();
}

// Every signal's disposition back to the default: ignored signals stay ignored across exec
// (and an ignored SIGCHLD would reap children behind the supervisor's back); handlers would not
// survive exec, but are reset all alike.
void DefaultDispositions() {
  struct sigaction by_default = {};
  by_default.sa_handler = SIG_DFL;
  for (int signal = 1; signal < _NSIG; ++signal) {
    if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &by_default, nullptr);
  }
}

void CloseRange(unsigned first, unsigned last, int max_fd) {
  if (first > last || ::close_range(first, last, 0) == 0) return;
  for (unsigned fd = first; fd <= last && fd <= static_cast<unsigned>(max_fd); ++fd) ::close(fd);
}

// Closes every descriptor but the plan's five.
void CloseAllButThePlans(const ExecPlan& plan) {
  unsigned keep[] = {static_cast<unsigned>(plan.stdin_fd), static_cast<unsigned>(plan.stdout_fd),
                     static_cast<unsigned>(plan.stderr_fd), static_cast<unsigned>(plan.report_fd),
                     static_cast<unsigned>(plan.control_fd)};
  constexpr int kKeep = sizeof keep / sizeof keep[0];
  for (int i = 1; i < kKeep; ++i) {
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) {
      unsigned t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  unsigned first = 0;
  for (unsigned fd : keep) {
    if (fd > first) CloseRange(first, fd - 1, plan.max_fd);
    first = fd + 1;
  }
  CloseRange(first, ~0u, plan.max_fd);
}

// The program's process, from the supervisor's fork to execve.
[[noreturn]] void ExecProgram(const ExecPlan& plan, pid_t supervisor) {
  if (::setpgid(0, 0) != 0) Fail(plan.report_fd, ChildStage::kGroup);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) Fail(plan.report_fd, ChildStage::kDeathSignal);
  // The supervisor may have died between the fork and the prctl; no signal would come then.
  if (::getppid() != supervisor) ::_exit(127);
  if (::dup2(plan.stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan.stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderr_fd, STDERR_FILENO) < 0) {
    Fail(plan.report_fd, ChildStage::kStdio);
  }
  if (plan.dir != nullptr && ::chdir(plan.dir) != 0) Fail(plan.report_fd, ChildStage::kFolder);
  // Close-on-exec rather than closed: the report pipe must stay open until the exec succeeds.
  if (::close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd <= plan.max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  DefaultDispositions();
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.path, plan.argv, plan.envp);
  Fail(plan.report_fd, ChildStage::kExec);
}

// The fields of /proc/PID/stat the supervisor reads.
struct ProcStat {
  pid_t ppid = 0;
  pid_t pgrp = 0;
};

// Parses a decimal pid; 0 for anything else (".", "self", a number too long).
pid_t ParsePid(const char* text) {
  pid_t pid = 0;
  int digits = 0;
  for (; *text != '\0'; ++text, ++digits) {
    if (*text < '0' || *text > '9' || digits >= 9) return 0;
    pid = pid * 10 + (*text - '0');
  }
  return pid;
}

// Reads a number from `at` up to `end`, skipping a leading space; advances `at`.
pid_t ParseField(const char*& at, const char* end) {
  while (at < end && *at == ' ') ++at;
  bool negative = at < end && *at == '-';
  if (negative) ++at;
  pid_t value = 0;
  for (; at < end && *at >= '0' && *at <= '9'; ++at) value = value * 10 + (*at - '0');
  return negative ? -value : value;
}

// Reads the parent and group of the process named `name` in the open /proc; false when it is
// gone or its line cannot be read.
bool ReadStat(int proc, const char* name, ProcStat& stat) {
  char path[32];
  std::size_t n = 0;
  for (; name[n] != '\0' && n < 16; ++n) path[n] = name[n];
  const char suffix[] = "/stat";
  for (std::size_t i = 0; i < sizeof suffix; ++i) path[n + i] = suffix[i];
  int fd = ::openat(proc, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char line[512];
  ssize_t got = ::read(fd, line, sizeof line);
  ::close(fd);
  if (got <= 0) return false;
  // "PID (COMM) STATE PPID PGRP ...": COMM may hold ')' and spaces, so it ends at the last ')'.
  const char* end = line + got;
  const char* close = nullptr;
  for (const char* p = line; p < end; ++p) {
    if (*p == ')') close = p;
  }
  if (close == nullptr || end - close < 4) return false;
  const char* at = close + 4;  // past ") S"
  stat.ppid = ParseField(at, end);
  stat.pgrp = ParseField(at, end);
  return true;
}

// Sends SIGKILL to each child of `self` (a process whose parent it is, as /proc says) and to
// the group such a child leads. Each is an unreaped child of `self`, so its pid, and the id of a
// group it leads, are the supervisor's to name. Returns how many children it found, or -1 when
// /proc cannot be read.
int KillChildren(pid_t self) {
  int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return -1;
  alignas(dirent64) char entries[4096];
  int found = 0;
  for (;;) {
    ssize_t n = ::getdents64(proc, entries, sizeof entries);
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(entries + at);
      at += entry->d_reclen;
      pid_t pid = ParsePid(entry->d_name);
      ProcStat stat;
      if (pid <= 0 || !ReadStat(proc, entry->d_name, stat) || stat.ppid != self) continue;
      if (stat.pgrp == pid) ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ++found;
    }
  }
  ::close(proc);
  return found;
}

// Kills and reaps every descendant, round after round (supervisor.h, step 5). Sets `status` to
// the program's wait status when it reaps the program.
void KillEverything(pid_t self, pid_t program, int& status) {
  // Still unreaped: the program's pid and its group's id are still the supervisor's to name.
  ::kill(-program, SIGKILL);
  ::kill(program, SIGKILL);
  int empty_rounds = 0;
  for (;;) {
    int found = KillChildren(self);
    if (found < 0) break;
    // A round that found children waits for one of them to end; one that found none (a child
    // orphaned after the walk) walks again at once.
    int st = 0;
    pid_t reaped = ::waitpid(-1, &st, found > 0 ? 0 : WNOHANG);
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped < 0) return;  // no child left
    if (reaped == program) status = st;
    empty_rounds = found > 0 || reaped > 0 ? 0 : empty_rounds + 1;
    if (empty_rounds > kMaxEmptyRounds) break;
  }
  // Without /proc (or with children it does not show): the program at least, and whatever
  // already ended.
  int st = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(program, &st, 0)) < 0 && errno == EINTR) {
  }
  if (reaped == program) status = st;
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

[[noreturn]] void EndEverything(pid_t self, pid_t program, int control) {
  int status = -1;
  KillEverything(self, program, status);
  ControlMessage exited{.kind = ControlMessage::kExited};
  if (status != -1 && WIFEXITED(status)) exited.code = WEXITSTATUS(status);
  if (status != -1 && WIFSIGNALED(status)) exited.signal = WTERMSIG(status);
  ::send(control, &exited, sizeof exited, MSG_NOSIGNAL | MSG_DONTWAIT);
  ::_exit(0);
}

// Reaps the orphans that exited; true once the program has exited. The program is left a
// zombie, so that its pid and its group's id stay the supervisor's until EndEverything.
bool ProgramExited(pid_t program) {
  for (;;) {
    siginfo_t info = {};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
      return false;
    }
    if (info.si_pid == program) return true;
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

[[noreturn]] void Supervise(pid_t self, pid_t program, int control, int signals) {
  for (;;) {
    pollfd fds[2] = {{control, POLLIN, 0}, {signals, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;  // EINTR: nothing to do
    if (fds[1].revents != 0) {
      bool asked_to_end = false;
      signalfd_siginfo info;
      while (::read(signals, &info, sizeof info) == sizeof info) {
        asked_to_end = asked_to_end || info.ssi_signo == SIGTERM;
      }
      if (asked_to_end || ProgramExited(program)) EndEverything(self, program, control);
    }
    if (fds[0].revents != 0) {
      ControlMessage message;
      ssize_t n = ::recv(control, &message, sizeof message, MSG_DONTWAIT);
      if (n == static_cast<ssize_t>(sizeof message) && message.kind == ControlMessage::kSignal) {
        ::kill(program, message.signal);
      } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        EndEverything(self, program, control);  // the launcher's end closed
      }
    }
  }
}

}  // namespace

void RunSupervisor(const ExecPlan& plan, pid_t parent) {
  CloseAllButThePlans(plan);
  if (::setpgid(0, 0) != 0) Fail(plan.report_fd, ChildStage::kGroup);
  // The Spawner's thread blocked every asynchronous signal before the fork; now all of them,
  // for the supervisor's whole life: it reads the two it acts on from a signalfd.
  sigset_t all;
  ::sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  DefaultDispositions();
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) Fail(plan.report_fd, ChildStage::kDeathSignal);
  // The parent may have died between the fork and the prctl; no signal would come then.
  if (::getppid() != parent) ::_exit(127);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) Fail(plan.report_fd, ChildStage::kSupervisor);
  sigset_t wanted;
  ::sigemptyset(&wanted);
  ::sigaddset(&wanted, SIGCHLD);
  ::sigaddset(&wanted, SIGTERM);
  int signals = ::signalfd(-1, &wanted, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signals < 0) Fail(plan.report_fd, ChildStage::kSupervisor);

  const pid_t self = ::getpid();
  pid_t program = ForkHere();
  if (program == 0) ExecProgram(plan, self);
  if (program < 0) Fail(plan.report_fd, ChildStage::kFork);
  Report(plan.report_fd, ChildReport{.stage = ChildStage::kForked, .pid = program});
  // The program holds its own copies: the parent reads end of file on the report pipe once the
  // program's exec succeeded, and the pipes end when the program (and what it started) ends.
  ::close(plan.report_fd);
  ::close(plan.stdin_fd);
  ::close(plan.stdout_fd);
  ::close(plan.stderr_fd);
  Supervise(self, program, plan.control_fd, signals);
}

}  // namespace agentrt::world::internal
