#include "tests/support/tap_launcher.h"

#include <utility>

namespace agentrt::test_support {
namespace {

class TappedProcess final : public world::Process {
 public:
  TappedProcess(std::unique_ptr<world::Process> inner, std::shared_ptr<TapLauncher::State> state,
                std::size_t index)
      : inner_(std::move(inner)), state_(std::move(state)), index_(index) {}

  std::int64_t pid() const override { return inner_->pid(); }
  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    absl::Status written = inner_->Write(bytes, deadline);
    if (written.ok()) {
      absl::MutexLock lock(&state_->mu);
      state_->processes[index_].written.append(bytes);
    }
    return written;
  }
  absl::Status CloseStdin() override { return inner_->CloseStdin(); }
  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    absl::StatusOr<std::string> chunk = inner_->Read(deadline, max_bytes);
    if (chunk.ok()) {
      absl::MutexLock lock(&state_->mu);
      state_->processes[index_].read.append(*chunk);
    }
    return chunk;
  }
  absl::Status Signal(int signal) override { return inner_->Signal(signal); }
  absl::StatusOr<world::ExitStatus> Wait(absl::Time deadline) override {
    return inner_->Wait(deadline);
  }
  world::ExitStatus Close() override { return inner_->Close(); }
  std::string StderrTail(absl::Time deadline) override { return inner_->StderrTail(deadline); }

 private:
  const std::unique_ptr<world::Process> inner_;
  const std::shared_ptr<TapLauncher::State> state_;
  const std::size_t index_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::Process>> TapLauncher::Start(const world::LaunchSpec& spec) {
  absl::StatusOr<std::unique_ptr<world::Process>> started = inner_.Start(spec);
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
