#include "sim/sim_launcher.h"

#include <csignal>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace agentrt::sim {
namespace {

struct Output {
  absl::Time at;
  std::string bytes;
};

class SimProcess final : public world::Process {
 public:
  SimProcess(world::ManualClock& clock, FakeServer& server, std::int64_t pid,
             std::shared_ptr<bool> dead, std::function<void(std::string_view)> stderr_sink)
      : clock_(clock),
        server_(server),
        pid_(pid),
        dead_(std::move(dead)),
        stderr_sink_(std::move(stderr_sink)) {
    Deliver(server_.Start());
  }

  std::int64_t pid() const override { return pid_; }

  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    if (closed_ || *dead_) return absl::CancelledError("the process was closed");
    if (stdin_closed_) return absl::FailedPreconditionError("stdin is closed");
    if (exit_) return absl::UnavailableError("the process exited");
    inbox_.append(bytes);
    std::size_t newline;
    while (!exit_ && (newline = inbox_.find('\n')) != std::string::npos) {
      std::string line = inbox_.substr(0, newline);
      inbox_.erase(0, newline + 1);
      Deliver(server_.Handle(line));
    }
    return absl::OkStatus();
  }

  absl::Status CloseStdin() override {
    stdin_closed_ = true;
    // A server that reads end of file on stdin exits, as MCP servers do.
    if (!exit_) EndAt(Now(), world::ExitStatus{0, 0});
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    if (closed_ || *dead_) return absl::CancelledError("the process was closed");
    if (!outbox_.empty() && outbox_.front().at <= deadline) {
      MoveClockTo(clock_, outbox_.front().at);
      Output& front = outbox_.front();
      std::string bytes = front.bytes.substr(0, std::max<std::size_t>(max_bytes, 1));
      front.bytes.erase(0, bytes.size());
      if (front.bytes.empty()) outbox_.pop_front();
      return bytes;
    }
    if (outbox_.empty() && exit_ && exit_->first <= deadline) {
      MoveClockTo(clock_, exit_->first);
      return std::string();
    }
    return Until(deadline);
  }

  absl::Status Signal(int signal) override {
    if (waited_) return absl::FailedPreconditionError("the process was already waited for");
    if (!exit_) EndAt(Now(), world::ExitStatus{-1, signal});
    return absl::OkStatus();
  }

  absl::StatusOr<world::ExitStatus> Wait(absl::Time deadline) override {
    if (closed_) return absl::CancelledError("the process was closed");
    if (exit_ && exit_->first <= deadline) {
      MoveClockTo(clock_, exit_->first);
      waited_ = true;
      return exit_->second;
    }
    absl::Status status = Until(deadline).status();
    return status;
  }

  world::ExitStatus Close() override {
    if (!exit_)
      EndAt(Now(), stdin_closed_ ? world::ExitStatus{0, 0} : world::ExitStatus{-1, SIGTERM});
    closed_ = true;
    outbox_.clear();
    return exit_->second;
  }

  std::string StderrTail(absl::Time) override {
    if (stderr_sink_) return "";
    return stderr_.size() > world::kStderrTailBytes
               ? stderr_.substr(stderr_.size() - world::kStderrTailBytes)
               : stderr_;
  }

 private:
  absl::Time Now() const { return clock_.Now(); }

  // Nothing comes by `deadline`: the clock goes there and the wait fails as a real one would.
  absl::StatusOr<std::string> Until(absl::Time deadline) {
    if (deadline == absl::InfiniteFuture()) {
      return absl::UnavailableError(
          absl::StrCat("simulated server \"", server_.config().name(),
                       "\" will never answer and the wait has no deadline"));
    }
    MoveClockTo(clock_, deadline);
    return absl::DeadlineExceededError("no output by the deadline");
  }

  void EndAt(absl::Time at, world::ExitStatus status) { exit_.emplace(at, status); }

  void Deliver(const Reply& reply) {
    if (reply.clock_jump > absl::ZeroDuration()) MoveClockTo(clock_, Now() + reply.clock_jump);
    absl::Time at = std::max(Now() + reply.delay, last_at_);
    last_at_ = at;
    if (!reply.stderr.empty()) {
      if (stderr_sink_) {
        stderr_sink_(reply.stderr);
      } else {
        stderr_ += reply.stderr;
      }
    }
    for (std::size_t i = 0; i < reply.lines.size(); ++i) {
      for (std::string& piece : reply.Pieces(i, reply.lines[i] + "\n")) {
        outbox_.push_back({at, std::move(piece)});
      }
    }
    switch (reply.end) {
      case Reply::End::kOpen:
        break;
      case Reply::End::kCrash:
        EndAt(at, world::ExitStatus{-1, SIGKILL});
        break;
      case Reply::End::kExit:
        EndAt(at, world::ExitStatus{reply.exit_code, 0});
        break;
    }
  }

  world::ManualClock& clock_;
  FakeServer& server_;
  const std::int64_t pid_;
  std::shared_ptr<bool> dead_;
  std::function<void(std::string_view)> stderr_sink_;
  std::string inbox_;
  std::deque<Output> outbox_;
  absl::Time last_at_ = absl::InfinitePast();
  std::string stderr_;
  std::optional<std::pair<absl::Time, world::ExitStatus>> exit_;
  bool stdin_closed_ = false;
  bool waited_ = false;
  bool closed_ = false;
};

}  // namespace

void MoveClockTo(world::ManualClock& clock, absl::Time at) {
  if (at > clock.Now()) clock.Set(at);
}

SimLauncher::SimLauncher(world::ManualClock& clock, std::map<std::string, FakeServer*> servers)
    : clock_(clock), servers_(std::move(servers)) {}

SimLauncher::~SimLauncher() = default;

absl::StatusOr<std::unique_ptr<world::Process>> SimLauncher::Start(const world::LaunchSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("empty argv");
  if (*dead_) return absl::UnavailableError("the simulated runtime is dead");
  if (spec.argv.size() != 2 || spec.argv[0] != "sim-server") {
    return absl::NotFoundError(absl::StrCat("program ", spec.argv[0], " not found"));
  }
  auto it = servers_.find(spec.argv[1]);
  if (it == servers_.end()) {
    return absl::NotFoundError(absl::StrCat("no simulated server \"", spec.argv[1], "\""));
  }
  return std::make_unique<SimProcess>(clock_, *it->second, next_pid_++, dead_, spec.stderr_sink);
}

}  // namespace agentrt::sim
