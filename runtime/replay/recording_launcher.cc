#include "runtime/replay/recording_launcher.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

using internal::NanosOf;
using internal::OutcomeOf;

// Where a process's stderr chunks go while they are recorded: a chunk that arrives before the
// process's start is recorded waits for it, so a cassette never mentions a process before its
// start.
struct StderrRecording {
  StderrRecording(CassetteRecorder& recorder, std::function<void(std::string_view)> sink)
      : recorder(recorder), sink(std::move(sink)) {}

  void Chunk(std::string_view bytes) {
    {
      absl::MutexLock lock(&mu);
      if (process == 0) {
        early.emplace_back(bytes);
      } else {
        RecordLocked(bytes);
      }
    }
    sink(bytes);
  }
  void Started(std::uint32_t number) {
    absl::MutexLock lock(&mu);
    process = number;
    for (const std::string& bytes : early) RecordLocked(bytes);
    early.clear();
  }
  void RecordLocked(std::string_view bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    v1::Exchange exchange;
    exchange.mutable_stdio()->set_process(process);
    exchange.mutable_stdio()->set_stderr_chunk(std::string(bytes));
    recorder.Record(exchange).IgnoreError();  // kept by the recorder
  }

  CassetteRecorder& recorder;
  const std::function<void(std::string_view)> sink;
  absl::Mutex mu;
  std::uint32_t process ABSL_GUARDED_BY(mu) = 0;
  std::vector<std::string> early ABSL_GUARDED_BY(mu);
};

// The inner process closes itself when this is destroyed; a replay's process does nothing
// then, so nothing is recorded. What the sink still gets until then is recorded.
class RecordingProcess final : public world::ProcessWrapper {
 public:
  RecordingProcess(std::unique_ptr<world::Process> inner, CassetteRecorder& recorder,
                   std::uint32_t number, std::shared_ptr<StderrRecording> stderr_recording)
      : ProcessWrapper(std::move(inner)),
        recorder_(recorder),
        number_(number),
        stderr_recording_(std::move(stderr_recording)) {}

  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    absl::Status status = ProcessWrapper::Write(bytes, deadline);
    v1::Exchange e = Stdio();
    v1::StdinWrite* write = e.mutable_stdio()->mutable_write();
    write->set_data(std::string(bytes));
    write->set_deadline(NanosOf(deadline));
    *write->mutable_result() = OutcomeOf(status);
    return Recorded(e, status);
  }

  absl::Status CloseStdin() override {
    absl::Status status = ProcessWrapper::CloseStdin();
    v1::Exchange e = Stdio();
    *e.mutable_stdio()->mutable_close_stdin() = OutcomeOf(status);
    return Recorded(e, status);
  }

  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    absl::StatusOr<std::string> bytes = ProcessWrapper::Read(deadline, max_bytes);
    v1::Exchange e = Stdio();
    v1::StdoutRead* read = e.mutable_stdio()->mutable_read();
    read->set_deadline(NanosOf(deadline));
    read->set_max_bytes(max_bytes);
    if (bytes.ok()) {
      read->set_data(*bytes);
    } else {
      *read->mutable_error() = OutcomeOf(bytes.status());
    }
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return bytes;
  }

  absl::Status Signal(int signal) override {
    absl::Status status = ProcessWrapper::Signal(signal);
    v1::Exchange e = Exit();
    e.mutable_exit()->mutable_signal()->set_signal(signal);
    *e.mutable_exit()->mutable_signal()->mutable_result() = OutcomeOf(status);
    return Recorded(e, status);
  }

  absl::StatusOr<world::ExitStatus> Wait(absl::Time deadline) override {
    absl::StatusOr<world::ExitStatus> status = ProcessWrapper::Wait(deadline);
    v1::Exchange e = Exit();
    v1::WaitResult* wait = e.mutable_exit()->mutable_wait();
    wait->set_deadline(NanosOf(deadline));
    if (status.ok()) {
      *wait->mutable_status() = internal::ExitOf(*status);
    } else {
      *wait->mutable_error() = OutcomeOf(status.status());
    }
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return status;
  }

  world::ExitStatus Close() override {
    world::ExitStatus status = ProcessWrapper::Close();
    v1::Exchange e = Exit();
    *e.mutable_exit()->mutable_close() = internal::ExitOf(status);
    recorder_.Record(e).IgnoreError();  // kept by the recorder
    return status;
  }

  std::string StderrTail(absl::Time deadline) override {
    std::string tail = ProcessWrapper::StderrTail(deadline);
    v1::Exchange e = Stdio();
    e.mutable_stdio()->mutable_stderr_tail()->set_deadline(NanosOf(deadline));
    e.mutable_stdio()->mutable_stderr_tail()->set_tail(tail);
    recorder_.Record(e).IgnoreError();  // kept by the recorder
    return tail;
  }

 private:
  v1::Exchange Stdio() const { return internal::StdioExchange(number_); }
  v1::Exchange Exit() const { return internal::ExitExchange(number_); }
  // The call's own status, unless recording it failed: a run that goes on with a hole in its
  // cassette could never be replayed.
  absl::Status Recorded(const v1::Exchange& e, const absl::Status& status) {
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return status;
  }

  CassetteRecorder& recorder_;
  const std::uint32_t number_;
  std::shared_ptr<StderrRecording> stderr_recording_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::Process>> RecordingLauncher::Start(
    const world::LaunchSpec& spec) {
  world::LaunchSpec inner_spec = spec;
  std::shared_ptr<StderrRecording> stderr_recording;
  if (spec.stderr_sink) {
    stderr_recording = std::make_shared<StderrRecording>(recorder_, spec.stderr_sink);
    inner_spec.stderr_sink = [stderr_recording](std::string_view bytes) {
      stderr_recording->Chunk(bytes);
    };
  }
  absl::StatusOr<std::unique_ptr<world::Process>> started = LauncherWrapper::Start(inner_spec);
  v1::Exchange e;
  v1::ProcessLaunch* launch = e.mutable_launch();
  for (const std::string& arg : spec.argv) launch->add_argv(arg);
  for (const std::string& var : spec.env) launch->add_env(var);
  launch->set_dir(spec.dir);
  launch->set_stderr_sink(static_cast<bool>(spec.stderr_sink));
  if (!started.ok()) {
    *launch->mutable_error() = OutcomeOf(started.status());
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return started.status();
  }
  std::uint32_t number = recorder_.Next(CassetteRecorder::Numbered::kProcess);
  launch->set_process(number);
  launch->set_pid((*started)->pid());
  if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
  if (stderr_recording != nullptr) stderr_recording->Started(number);
  return std::unique_ptr<world::Process>(std::make_unique<RecordingProcess>(
      *std::move(started), recorder_, number, std::move(stderr_recording)));
}

}  // namespace agentrt::replay
