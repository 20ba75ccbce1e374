#include "runtime/world/internal/spawn.h"

#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "runtime/world/internal/quiet_thread.h"
#include "runtime/world/internal/supervisor.h"

namespace agentrt::world::internal {

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
    if (pid == 0) RunSupervisor(*plan_, parent);
    error_ = pid < 0 ? errno : 0;
    pid_ = pid;
    plan_ = nullptr;
    forked_ = true;
  }
}

}  // namespace agentrt::world::internal
