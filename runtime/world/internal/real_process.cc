#include "runtime/world/internal/real_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/world/internal/quiet_thread.h"
#include "runtime/world/internal/supervisor.h"

namespace agentrt::world::internal {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

// Raises an eventfd: it stays readable until someone reads it.
void Raise(int eventfd) { ::eventfd_write(eventfd, 1); }

// One pump's pipe. Next waits for bytes (and returns how many) or the stream's end (0): end of
// file, a read error, or — once the child has exited — an empty pipe, or kDrainAfterExitBytes
// read since the exit. So a descendant holding the write end open cannot keep a stream (or
// Close, which joins the pumps) waiting.
class PipeSource {
 public:
  PipeSource(int fd, int exited) : fd_(fd), exited_(exited) {}

  std::size_t Next(char* buffer, std::size_t size) {
    for (;;) {
      if (!child_gone_) {
        pollfd fds[2] = {{fd_, POLLIN, 0}, {exited_, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
          if (errno == EINTR) continue;
          return 0;
        }
        child_gone_ = fds[1].revents != 0;
      }
      if (child_gone_) {
        if (after_exit_ >= kDrainAfterExitBytes) return 0;
        size = std::min(size, kDrainAfterExitBytes - after_exit_);
      }
      ssize_t n = ::read(fd_, buffer, size);
      if (n > 0) {
        if (child_gone_) after_exit_ += static_cast<std::size_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN && !child_gone_) continue;
      return 0;
    }
  }

 private:
  const int fd_;
  const int exited_;
  bool child_gone_ = false;
  std::size_t after_exit_ = 0;
};

// Writes all of `bytes` to the non-blocking `fd`, waiting for room with poll; gives up when
// `stop` (Close) or `cancel` (the Write's deadline) is raised.
absl::Status WriteAllOrGiveUp(int fd, std::string_view bytes, int stop, int cancel) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n >= 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    // This thread blocks SIGPIPE (quiet_thread.h), so a closed pipe is this error, not a signal.
    if (errno == EPIPE) return absl::UnavailableError("stdin: the child closed it (it exited)");
    if (errno != EAGAIN) return absl::ErrnoToStatus(errno, "stdin: write");
    pollfd fds[3] = {{fd, POLLOUT, 0}, {stop, POLLIN, 0}, {cancel, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) return absl::ErrnoToStatus(errno, "stdin: poll");
    if (fds[1].revents != 0) return absl::CancelledError("stdin: the process was closed");
    if (fds[2].revents != 0) return absl::DeadlineExceededError("stdin: write passed its deadline");
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<ExitStatus> ReadExited(int control) {
  ControlMessage message;
  bool reset = false;
  for (;;) {
    ssize_t n = ::recv(control, &message, sizeof message, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    // A supervisor that ends with a message of ours unread (a signal asked for as it ended)
    // resets the socket: the kernel reports that once, before the message it sent is read.
    if (n < 0 && errno == ECONNRESET && !reset) {
      reset = true;
      continue;
    }
    if (n != static_cast<ssize_t>(sizeof message)) return std::nullopt;
    if (message.kind == ControlMessage::kExited) {
      return ExitStatus{.code = message.code, .signal = message.signal};
    }
  }
}

namespace {

ExitStatus FromSiginfo(const siginfo_t& info) {
  ExitStatus status;
  if (info.si_code == CLD_EXITED) {
    status.code = info.si_status;
  } else {
    status.signal = info.si_status;
  }
  return status;
}

}  // namespace

RealProcess::RealProcess(const Clock& clock, RealLauncherOptions options, pid_t supervisor,
                         pid_t pid, ProcessFds fds,
                         std::function<void(std::string_view)> stderr_sink)
    : clock_(clock),
      options_(options),
      supervisor_(supervisor),
      pid_(pid),
      stderr_sink_(std::move(stderr_sink)),
      fds_(std::move(fds)) {
  const int exited = fds_.exited.get();
  reaper_ = QuietThread([this, control = fds_.control.get(), exited] { Reap(control, exited); });
  stdout_pump_ = QuietThread([this, fd = fds_.stdout_r.get(), exited] { PumpStdout(fd, exited); });
  stderr_pump_ = QuietThread([this, fd = fds_.stderr_r.get(), exited] { PumpStderr(fd, exited); });
  writer_ = QuietThread([this, stop = fds_.stop.get(), cancel = fds_.write_cancel.get()] {
    WriteLoop(stop, cancel);
  });
}

RealProcess::~RealProcess() { Close(); }

void RealProcess::Reap(int control, int exited) {
  siginfo_t info = {};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(supervisor_), &info, WEXITED | WNOWAIT);
  } while (rc != 0 && errno == EINTR);
  // The supervisor sends how the program ended before it exits. Without that message it was
  // killed itself (the program got its parent-death signal): its own end is all there is.
  std::optional<ExitStatus> program = ReadExited(control);
  {
    absl::MutexLock lock(&mu_);
    // rc != 0: someone else reaped the supervisor (see real_launcher.h); the exit is unknown.
    exit_ = program.has_value() ? *program : rc == 0 ? FromSiginfo(info) : ExitStatus{};
    closed_first_ = closing_;
    reapable_ = rc == 0;
    Changed();
  }
  Wake();
  Raise(exited);
}

void RealProcess::PumpStdout(int fd, int exited) {
  PipeSource source(fd, exited);
  std::vector<char> chunk(kChunkBytes);
  for (;;) {
    std::size_t room;
    {
      absl::MutexLock lock(&mu_);
      auto can_take = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return closing_ || out_.size() - out_pos_ < kStdoutBufferBytes;
      };
      mu_.Await(absl::Condition(&can_take));
      // While closing, what the child still writes is read and dropped, so a child busy writing
      // is not stuck on a full pipe instead of exiting at the end of its stdin.
      room = closing_ ? chunk.size()
                      : std::min(chunk.size(), kStdoutBufferBytes - (out_.size() - out_pos_));
    }
    std::size_t n = source.Next(chunk.data(), room);
    {
      absl::MutexLock lock(&mu_);
      if (n == 0) out_ended_ = true;
      if (n > 0 && !closing_) out_.append(chunk.data(), n);
      Changed();
    }
    Wake();
    if (n == 0) return;
  }
}

void RealProcess::PumpStderr(int fd, int exited) {
  PipeSource source(fd, exited);
  std::vector<char> chunk(kChunkBytes);
  for (;;) {
    std::size_t n = source.Next(chunk.data(), chunk.size());
    if (n == 0) break;
    std::string_view bytes(chunk.data(), n);
    if (stderr_sink_) {
      stderr_sink_(bytes);  // only this thread calls it: one call at a time
      continue;
    }
    absl::MutexLock lock(&mu_);
    err_tail_.append(bytes);
    if (err_tail_.size() > kStderrTailBytes) {
      err_tail_.erase(0, err_tail_.size() - kStderrTailBytes);
    }
  }
  {
    absl::MutexLock lock(&mu_);
    err_ended_ = true;
    Changed();
  }
  Wake();
}

void RealProcess::WriteLoop(int stop, int cancel) {
  absl::MutexLock lock(&mu_);
  auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return pending_ != nullptr || writer_quit_;
  };
  for (;;) {
    mu_.Await(absl::Condition(&work));
    if (pending_ == nullptr) return;
    WriteJob* job = std::exchange(pending_, nullptr);
    mu_.Unlock();
    absl::Status result = WriteAllOrGiveUp(job->fd, job->bytes, stop, cancel);
    mu_.Lock();
    // A Write raises `cancel` only under mu_ and only while its job is unfinished: read it here,
    // under mu_, so a cancel that came too late for this job cannot end the next one.
    eventfd_t ignored;
    ::eventfd_read(cancel, &ignored);
    job->result = std::move(result);
    job->done = true;
    Changed();
    mu_.Unlock();
    Wake();
    mu_.Lock();
  }
}

absl::Status RealProcess::Write(std::string_view bytes, absl::Time deadline) {
  absl::MutexLock write_lock(&write_mu_);
  absl::MutexLock lock(&mu_);
  if (closing_) return absl::CancelledError("stdin: the process was closed");
  if (stdin_closed_) return absl::FailedPreconditionError("stdin: already closed");
  if (!stdin_broken_.ok()) return stdin_broken_;
  if (bytes.empty()) return absl::OkStatus();
  WriteJob job{bytes, fds_.stdin_w.get()};
  pending_ = &job;
  if (!waiters_.Await(mu_, clock_, deadline, [&] { return job.done; })) {
    if (pending_ == &job) {
      pending_ = nullptr;  // the writer never started it
      job.result = absl::DeadlineExceededError("stdin: write passed its deadline");
    } else {
      // The writer uses `bytes` until it finishes: stop it before they go back to the caller.
      Raise(fds_.write_cancel.get());
      mu_.Await(absl::Condition(&job.done));
    }
  }
  if (absl::IsDeadlineExceeded(job.result)) {
    stdin_broken_ = absl::FailedPreconditionError(
        "stdin: an earlier write passed its deadline; the stream is no longer usable");
  } else if (absl::IsUnavailable(job.result)) {
    stdin_broken_ = job.result;
  }
  if (!job.result.ok() && closing_) return absl::CancelledError("stdin: the process was closed");
  return job.result;
}

absl::Status RealProcess::CloseStdin() {
  absl::MutexLock write_lock(&write_mu_);
  CloseStdinNow();
  return absl::OkStatus();
}

void RealProcess::CloseStdinNow() {
  if (stdin_closed_) return;
  fds_.stdin_w.Reset();
  stdin_closed_ = true;
}

absl::StatusOr<std::string> RealProcess::Read(absl::Time deadline, std::size_t max_bytes) {
  if (max_bytes == 0) return absl::InvalidArgumentError("stdout: read of 0 bytes");
  absl::MutexLock lock(&mu_);
  waiters_.Await(mu_, clock_, deadline, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return closing_ || out_pos_ < out_.size() || out_ended_;
  });
  if (closing_) return absl::CancelledError("stdout: the process was closed");
  if (out_pos_ < out_.size()) {
    std::size_t n = std::min(max_bytes, out_.size() - out_pos_);
    std::string bytes = out_.substr(out_pos_, n);
    out_pos_ += n;
    if (out_pos_ == out_.size()) {
      out_.clear();
      out_pos_ = 0;
    } else if (out_pos_ >= kStdoutBufferBytes / 2) {
      out_.erase(0, out_pos_);
      out_pos_ = 0;
    }
    return bytes;
  }
  if (out_ended_) return std::string();
  return absl::DeadlineExceededError("stdout: nothing came by the deadline");
}

absl::Status RealProcess::Signal(int signal) {
  absl::MutexLock lock(&mu_);
  if (exit_.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("signal: the child has already ended (", ToString(*exit_), ")"));
  }
  if (signal < 0 || signal >= NSIG) {
    return absl::InvalidArgumentError(
        absl::StrCat("signal ", signal, " to ", pid_, ": not a signal number"));
  }
  return SendSignal(signal);
}

absl::Status RealProcess::SendSignal(int signal) {
  ControlMessage message{.kind = ControlMessage::kSignal, .signal = signal};
  ssize_t n;
  do {
    n = ::send(fds_.control.get(), &message, sizeof message, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof message)) return absl::OkStatus();
  if (n < 0 && (errno == EPIPE || errno == ECONNRESET || errno == ECONNREFUSED)) {
    // The supervisor has ended; the reaper is about to say how.
    return absl::FailedPreconditionError(
        absl::StrCat("signal ", signal, " to ", pid_, ": the child has already ended"));
  }
  return absl::ErrnoToStatus(errno, absl::StrCat("signal ", signal, " to ", pid_));
}

absl::StatusOr<ExitStatus> RealProcess::Wait(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  waiters_.Await(mu_, clock_, deadline, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return exit_.has_value() || closing_;
  });
  // A child that Close ended did not end on its own: a Wait gets Cancelled (Close returns the
  // status), whether it was in flight or comes later.
  if (exit_.has_value() && !closed_first_) return *exit_;
  if (closing_) return absl::CancelledError("wait: the process was closed");
  return absl::DeadlineExceededError("wait: the child is still running at the deadline");
}

std::string RealProcess::StderrTail(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  waiters_.Await(mu_, clock_, deadline,
                 [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return err_ended_; });
  return err_tail_;
}

bool RealProcess::AwaitExit(absl::Duration grace) {
  return waiters_.Await(mu_, clock_, clock_.Now() + grace,
                        [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return exit_.has_value(); });
}

ExitStatus RealProcess::Close() {
  absl::MutexLock close_lock(&close_mu_);
  if (closed_) return final_;
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;  // Read, Write and Wait in flight return Cancelled
    Changed();
  }
  Wake();
  Raise(fds_.stop.get());  // a write in flight gives up ...
  {
    absl::MutexLock write_lock(&write_mu_);  // ... and returns, so stdin is no longer in use
    CloseStdinNow();
  }
  {
    absl::MutexLock lock(&mu_);
    if (!AwaitExit(options_.stdin_grace)) {
      SendSignal(SIGTERM).IgnoreError();  // an error: the supervisor has ended already
      if (!AwaitExit(options_.term_grace)) {
        SendSignal(SIGKILL).IgnoreError();
        // The supervisor ends once the program and every descendant have (supervisor.h).
        auto exited = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return exit_.has_value(); };
        mu_.Await(absl::Condition(&exited));
      }
    }
    if (reapable_) {
      while (::waitpid(supervisor_, nullptr, 0) < 0 && errno == EINTR) {
      }
      reapable_ = false;
    }
    writer_quit_ = true;
    final_ = *exit_;
  }
  // Every thread ends on its own now: the reaper has reported, the pumps end at the exit, the
  // writer was told to quit.
  reaper_.join();
  stdout_pump_.join();
  stderr_pump_.join();
  writer_.join();
  {
    absl::MutexLock write_lock(&write_mu_);
    fds_ = ProcessFds{};
  }
  closed_ = true;
  return final_;
}

}  // namespace agentrt::world::internal
