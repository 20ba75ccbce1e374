#include "runtime/world/internal/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "runtime/world/internal/quiet_thread.h"

namespace agentrt::world::internal {
namespace {

// Between fork and exec: async-signal-safe calls only, no allocation, no locks, no return.

[[noreturn]] void Fail(const ExecPlan& plan, ChildStage stage) {
  ChildFailure failure{stage, errno};
  ssize_t ignored = ::write(plan.report_fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

[[noreturn]] void RunChild(const ExecPlan& plan, pid_t parent) {
  if (::setpgid(0, 0) != 0) Fail(plan, ChildStage::kGroup);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) Fail(plan, ChildStage::kDeathSignal);
  // The parent may have died between the fork and the prctl; no signal would come then.
  if (::getppid() != parent) ::_exit(127);
  if (::dup2(plan.stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan.stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderr_fd, STDERR_FILENO) < 0) {
    Fail(plan, ChildStage::kStdio);
  }
  if (plan.dir != nullptr && ::chdir(plan.dir) != 0) Fail(plan, ChildStage::kFolder);
  // Close-on-exec rather than closed: the report pipe must stay open until the exec succeeds.
  if (::close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd <= plan.max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  // Ignored signals stay ignored across exec; handlers would not, but reset them all alike.
  struct sigaction by_default = {};
  by_default.sa_handler = SIG_DFL;
  for (int signal = 1; signal < _NSIG; ++signal) {
    if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &by_default, nullptr);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.path, plan.argv, plan.envp);
  Fail(plan, ChildStage::kExec);
}

}  // namespace

Spawner::Spawner() {
  thread_ = QuietThread([this] { Loop(); });
}

Spawner::~Spawner() {
  {
    absl::MutexLock lock(&mu_);
    quit_ = true;
  }
  thread_.join();
}

absl::StatusOr<pid_t> Spawner::Fork(const ExecPlan& plan) {
  absl::MutexLock one_call(&one_call_);
  absl::MutexLock lock(&mu_);
  plan_ = &plan;
  forked_ = false;
  mu_.Await(absl::Condition(&forked_));
  if (pid_ < 0) return absl::ErrnoToStatus(error_, "fork");
  return pid_;
}

void Spawner::Loop() {
  absl::MutexLock lock(&mu_);
  auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return plan_ != nullptr || quit_; };
  for (;;) {
    mu_.Await(absl::Condition(&work));
    if (plan_ == nullptr) return;
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0) RunChild(*plan_, parent);
    error_ = pid < 0 ? errno : 0;
    pid_ = pid;
    plan_ = nullptr;
    forked_ = true;
  }
}

}  // namespace agentrt::world::internal
