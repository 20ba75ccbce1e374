#include "tests/support/tap_launcher.h"

#include <utility>

namespace agentrt::test_support {
namespace {

class TappedProcess final : public world::ProcessWrapper {
 public:
  TappedProcess(std::unique_ptr<world::Process> inner, std::shared_ptr<TapLauncher::State> state,
                std::size_t index)
      : ProcessWrapper(std::move(inner)), state_(std::move(state)), index_(index) {}

  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    absl::Status written = ProcessWrapper::Write(bytes, deadline);
    if (written.ok()) {
      absl::MutexLock lock(&state_->mu);
      state_->processes[index_].written.append(bytes);
    }
    return written;
  }
  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    absl::StatusOr<std::string> chunk = ProcessWrapper::Read(deadline, max_bytes);
    if (chunk.ok()) {
      absl::MutexLock lock(&state_->mu);
      state_->processes[index_].read.append(*chunk);
    }
    return chunk;
  }

 private:
  const std::shared_ptr<TapLauncher::State> state_;
  const std::size_t index_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::Process>> TapLauncher::Start(const world::LaunchSpec& spec) {
  absl::StatusOr<std::unique_ptr<world::Process>> started = LauncherWrapper::Start(spec);
  if (!started.ok()) return started.status();
  std::size_t index;
  {
    absl::MutexLock lock(&state_->mu);
    index = state_->processes.size();
    state_->processes.push_back(Tapped{.pid = (*started)->pid(), .argv = spec.argv});
  }
  return std::make_unique<TappedProcess>(*std::move(started), state_, index);
}

std::vector<Tapped> TapLauncher::processes() const {
  absl::MutexLock lock(&state_->mu);
  return state_->processes;
}

Tapped TapLauncher::last() const {
  absl::MutexLock lock(&state_->mu);
  return state_->processes.empty() ? Tapped{} : state_->processes.back();
}

}  // namespace agentrt::test_support
