#include "runtime/world/real_launcher.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/world/internal/look_path.h"
#include "runtime/world/internal/real_process.h"
#include "runtime/world/internal/spawn.h"
#include "runtime/world/internal/unique_fd.h"

namespace agentrt::world {
namespace {

using internal::UniqueFd;

std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", absl::CHexEscape(ToAbsl(text)), "\"");
}

absl::Status CheckSpec(const LaunchSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("launch: argv is empty");
  for (const std::string& arg : spec.argv) {
    if (arg.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch: argument ", Quoted(arg), " contains a NUL byte"));
    }
  }
  for (const std::string& entry : spec.env) {
    std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch: env entry ", Quoted(entry), " is not NAME=value"));
    }
    if (entry.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch: env entry ", Quoted(entry), " contains a NUL byte"));
    }
  }
  if (spec.dir.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch: folder ", Quoted(spec.dir), " contains a NUL byte"));
  }
  return absl::OkStatus();
}

// The null-terminated array of C strings execve takes; `strings` must outlive it.
std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Keeps `fd` above 0, 1 and 2: when this process has closed one of its own, a new descriptor
// can take that number, and the child's dup2 onto 0, 1 and 2 would clobber it.
absl::Status AboveStdio(UniqueFd& fd) {
  if (fd.get() > STDERR_FILENO) return absl::OkStatus();
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) return absl::ErrnoToStatus(errno, "launch: fcntl");
  fd.Reset(moved);
  return absl::OkStatus();
}

absl::Status MakePipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "launch: pipe");
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  AGENTRT_RETURN_IF_ERROR(AboveStdio(read_end));
  return AboveStdio(write_end);
}

// The parent's end only: the child's end of the same pipe is a file description of its own and
// stays blocking, as programs expect of their stdio.
absl::Status SetNonBlocking(const UniqueFd& fd) {
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    return absl::ErrnoToStatus(errno, "launch: fcntl");
  }
  return absl::OkStatus();
}

// The control socket between this process and a supervisor (supervisor.h): one message a
// record. This process's end is non-blocking; the supervisor's stays blocking.
absl::Status MakeControlSocket(UniqueFd& ours, UniqueFd& supervisors) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::ErrnoToStatus(errno, "launch: socketpair");
  }
  ours.Reset(fds[0]);
  supervisors.Reset(fds[1]);
  AGENTRT_RETURN_IF_ERROR(AboveStdio(ours));
  AGENTRT_RETURN_IF_ERROR(AboveStdio(supervisors));
  return SetNonBlocking(ours);
}

// Waits for a supervisor that is ending on its own (its program failed to start).
void Reap(pid_t supervisor) {
  while (::waitpid(supervisor, nullptr, 0) < 0 && errno == EINTR) {
  }
}

absl::Status MakeEventFd(UniqueFd& fd) {
  fd.Reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, "launch: eventfd");
  return absl::OkStatus();
}

int HighestFd() {
  rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65535;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 65536) - 1);
}

// What the supervisor and the program's process reported through the report pipe, read to its
// end of file (spawn.h): the program's pid, and a failure if a step failed.
struct Reports {
  std::optional<pid_t> program;
  std::optional<internal::ChildReport> failure;
};

Reports ReadReports(const UniqueFd& report) {
  Reports reports;
  for (;;) {
    internal::ChildReport record;
    char* at = reinterpret_cast<char*>(&record);
    std::size_t got = 0;
    while (got < sizeof record) {
      ssize_t n = ::read(report.get(), at + got, sizeof record - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got < sizeof record) return reports;
    if (record.stage == internal::ChildStage::kForked) {
      reports.program = record.pid;
    } else {
      reports.failure = record;
    }
  }
}

absl::Status FailureStatus(const internal::ChildReport& failure, const LaunchSpec& spec) {
  std::string program = absl::StrCat("launch: program ", Quoted(spec.argv[0]));
  switch (failure.stage) {
    case internal::ChildStage::kForked:
      break;
    case internal::ChildStage::kGroup:
      return absl::ErrnoToStatus(failure.error, absl::StrCat(program, ": setpgid"));
    case internal::ChildStage::kDeathSignal:
      return absl::ErrnoToStatus(failure.error, absl::StrCat(program, ": prctl"));
    case internal::ChildStage::kSupervisor:
      return absl::ErrnoToStatus(failure.error, absl::StrCat(program, ": supervisor"));
    case internal::ChildStage::kFork:
      return absl::ErrnoToStatus(failure.error, absl::StrCat(program, ": fork"));
    case internal::ChildStage::kStdio:
      return absl::ErrnoToStatus(failure.error, absl::StrCat(program, ": dup2"));
    case internal::ChildStage::kFolder:
      return absl::ErrnoToStatus(failure.error,
                                 absl::StrCat(program, ": folder ", Quoted(spec.dir)));
    case internal::ChildStage::kExec:
      return absl::ErrnoToStatus(failure.error, program);
  }
  return absl::InternalError(absl::StrCat(program, ": unknown failure report"));
}

}  // namespace

RealLauncher::RealLauncher(const Clock& clock, RealLauncherOptions options)
    : clock_(clock), options_(options), spawner_(std::make_unique<internal::Spawner>()) {}

RealLauncher::~RealLauncher() = default;

absl::StatusOr<std::unique_ptr<Process>> RealLauncher::Start(const LaunchSpec& spec) {
  AGENTRT_RETURN_IF_ERROR(CheckSpec(spec));
  const char* path_env = std::getenv("PATH");
  absl::StatusOr<std::string> path =
      internal::LookPath(spec.argv[0], path_env == nullptr ? "" : path_env);
  if (!path.ok()) {
    return absl::Status(path.status().code(), absl::StrCat("launch: ", path.status().message()));
  }

  // Everything the child touches is made here, before the fork (spawn.h says why).
  internal::ProcessFds fds;
  UniqueFd child_in, child_out, child_err, report_r, report_w, control;
  AGENTRT_RETURN_IF_ERROR(MakePipe(child_in, fds.stdin_w));
  AGENTRT_RETURN_IF_ERROR(MakePipe(fds.stdout_r, child_out));
  AGENTRT_RETURN_IF_ERROR(MakePipe(fds.stderr_r, child_err));
  AGENTRT_RETURN_IF_ERROR(MakePipe(report_r, report_w));
  AGENTRT_RETURN_IF_ERROR(SetNonBlocking(fds.stdin_w));
  AGENTRT_RETURN_IF_ERROR(SetNonBlocking(fds.stdout_r));
  AGENTRT_RETURN_IF_ERROR(SetNonBlocking(fds.stderr_r));
  AGENTRT_RETURN_IF_ERROR(MakeControlSocket(fds.control, control));
  AGENTRT_RETURN_IF_ERROR(MakeEventFd(fds.stop));
  AGENTRT_RETURN_IF_ERROR(MakeEventFd(fds.exited));
  AGENTRT_RETURN_IF_ERROR(MakeEventFd(fds.write_cancel));
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);
  internal::ExecPlan plan;
  plan.path = path->c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.dir = spec.dir.empty() ? nullptr : spec.dir.c_str();
  plan.stdin_fd = child_in.get();
  plan.stdout_fd = child_out.get();
  plan.stderr_fd = child_err.get();
  plan.report_fd = report_w.get();
  plan.control_fd = control.get();
  plan.max_fd = HighestFd();

  absl::StatusOr<pid_t> supervisor = spawner_->Fork(plan);
  // The supervisor has its own copies now: without these closed, the program would never read
  // end of file on stdin, this process never on its stdout, stderr or report, and the
  // supervisor would not see this process's end of the control socket close when it dies.
  child_in.Reset();
  child_out.Reset();
  child_err.Reset();
  report_w.Reset();
  control.Reset();
  if (!supervisor.ok()) {
    return absl::Status(supervisor.status().code(),
                        absl::StrCat("launch: program ", Quoted(spec.argv[0]), ": ",
                                     supervisor.status().message()));
  }
  Reports reports = ReadReports(report_r);
  if (reports.failure.has_value() || !reports.program.has_value()) {
    Reap(*supervisor);
    if (reports.failure.has_value()) return FailureStatus(*reports.failure, spec);
    return absl::InternalError(absl::StrCat("launch: program ", Quoted(spec.argv[0]),
                                            ": the supervisor ended before starting it"));
  }
  return std::make_unique<internal::RealProcess>(clock_, options_, *supervisor, *reports.program,
                                                 std::move(fds), spec.stderr_sink);
}

}  // namespace agentrt::world
