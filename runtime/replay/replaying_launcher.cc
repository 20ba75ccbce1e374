#include "runtime/replay/replaying_launcher.h"

#include <string>

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

using internal::NanosOf;
using internal::StatusOf;

class ReplayingProcess final : public world::Process {
 public:
  ReplayingProcess(ReplayCursor& cursor, std::uint32_t number, std::int64_t pid)
      : cursor_(cursor), number_(number), pid_(pid) {}

  std::int64_t pid() const override { return pid_; }

  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    v1::Exchange requested = Stdio();
    requested.mutable_stdio()->mutable_write()->set_data(std::string(bytes));
    requested.mutable_stdio()->mutable_write()->set_deadline(NanosOf(deadline));
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    return StatusOf((*served)->stdio().write().result());
  }

  absl::Status CloseStdin() override {
    v1::Exchange requested = Stdio();
    requested.mutable_stdio()->mutable_close_stdin();
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    return StatusOf((*served)->stdio().close_stdin());
  }

  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    v1::Exchange requested = Stdio();
    requested.mutable_stdio()->mutable_read()->set_deadline(NanosOf(deadline));
    requested.mutable_stdio()->mutable_read()->set_max_bytes(max_bytes);
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    const v1::StdoutRead& read = (*served)->stdio().read();
    if (read.has_error()) return StatusOf(read.error());
    return read.data();
  }

  absl::Status Signal(int signal) override {
    v1::Exchange requested = Exit();
    requested.mutable_exit()->mutable_signal()->set_signal(signal);
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    return StatusOf((*served)->exit().signal().result());
  }

  absl::StatusOr<world::ExitStatus> Wait(absl::Time deadline) override {
    v1::Exchange requested = Exit();
    requested.mutable_exit()->mutable_wait()->set_deadline(NanosOf(deadline));
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    const v1::WaitResult& wait = (*served)->exit().wait();
    if (wait.has_error()) return StatusOf(wait.error());
    return internal::ExitStatusOf(wait.status());
  }

  world::ExitStatus Close() override {
    v1::Exchange requested = Exit();
    requested.mutable_exit()->mutable_close();
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return world::ExitStatus{};
    return internal::ExitStatusOf((*served)->exit().close());
  }

  std::string StderrTail(absl::Time deadline) override {
    v1::Exchange requested = Stdio();
    requested.mutable_stdio()->mutable_stderr_tail()->set_deadline(NanosOf(deadline));
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    return served.ok() ? (*served)->stdio().stderr_tail().tail() : "";
  }

 private:
  v1::Exchange Stdio() const { return internal::StdioExchange(number_); }
  v1::Exchange Exit() const { return internal::ExitExchange(number_); }

  ReplayCursor& cursor_;
  const std::uint32_t number_;
  const std::int64_t pid_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::Process>> ReplayingLauncher::Start(
    const world::LaunchSpec& spec) {
  v1::Exchange requested;
  v1::ProcessLaunch* launch = requested.mutable_launch();
  for (const std::string& arg : spec.argv) launch->add_argv(arg);
  for (const std::string& var : spec.env) launch->add_env(var);
  launch->set_dir(spec.dir);
  launch->set_stderr_sink(static_cast<bool>(spec.stderr_sink));
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/true);
  if (!served.ok()) return served.status();
  const v1::ProcessLaunch& recorded = (*served)->launch();
  if (recorded.has_error()) return StatusOf(recorded.error());
  if (spec.stderr_sink) cursor_.SetStderrSink(recorded.process(), spec.stderr_sink);
  return std::unique_ptr<world::Process>(
      std::make_unique<ReplayingProcess>(cursor_, recorded.process(), recorded.pid()));
}

}  // namespace agentrt::replay
