// runtime/world/internal/real_process.h
//
// The Process a RealLauncher returns (launcher.h has the contract; real_launcher.h the
// options). It stands for two processes: the program, whose pid callers see and whose pipes
// are read and written here, and its supervisor (supervisor.h), this process's child, which
// signals, reaps and outlives the program and everything the program started. How it keeps the
// contract:
//
//  - Four threads of its own (quiet_thread.h), all joined by Close: a reaper that waits for the
//    supervisor's exit without reaping it (waitid with WNOWAIT) and then reads how the program
//    ended from the control socket; a stdout pump that fills a bounded buffer
//    (kStdoutBufferBytes: a child that floods stdout is held back by the pipe, not buffered
//    without limit); a stderr pump that feeds the sink or keeps the tail; a writer that writes
//    stdin through a non-blocking descriptor, so a Write that cannot finish by its deadline is
//    abandoned rather than stuck.
//  - "The child exited" means the supervisor did: the program has ended and so has everything
//    it started.
//  - Read, Write, Wait and StderrTail wait on the injected Clock (clock_waiters.h).
//  - Once the child has exited, each pump reads what the pipe still holds and then ends the
//    stream, even if something else keeps the pipe open: "stdout ended" means the child is gone.
//  - Signals go to the program through its supervisor (a kSignal message), which is the
//    program's parent and alone reaps it, so a signal never reaches a pid that was reused.
//    Signal is refused once the exit is known.
//  - The exited supervisor stays a zombie until Close reaps it.
//  - No descriptor is closed while a thread may still use it: stdin is closed only with no
//    write in flight (the writer is idle), the others only after every thread has been joined.
//  - Writes are taken one at a time (a second waits for the first), and CloseStdin waits for a
//    Write in flight; Close does not: it makes that Write give up first.
//  - The stderr sink runs on the stderr pump: it must not call Close (which joins the pump).
//  - Wait returns Cancelled once Close began before the child's exit was seen (Close returns
//    how it ended), whether the Wait was in flight or comes later.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/internal/clock_waiters.h"
#include "runtime/world/internal/unique_fd.h"
#include "runtime/world/launcher.h"
#include "runtime/world/real_launcher.h"

namespace agentrt::world::internal {

// How much of the child's stdout is held for Read before the child is made to wait.
inline constexpr std::size_t kStdoutBufferBytes = std::size_t{1} << 20;
// How much a pump still reads from a pipe after the child exited (what a descendant writes
// after that is not the child's).
inline constexpr std::size_t kDrainAfterExitBytes = std::size_t{1} << 20;

// The parent's descriptors for one child: its pipes' other ends, the control socket to its
// supervisor and three eventfds.
struct ProcessFds {
  UniqueFd stdin_w;       // non-blocking
  UniqueFd stdout_r;      // non-blocking
  UniqueFd stderr_r;      // non-blocking
  UniqueFd control;       // non-blocking; supervisor.h's messages
  UniqueFd stop;          // written once by Close: the stdout pump and the writer stop
  UniqueFd exited;        // written once by the reaper: the pumps drain and end
  UniqueFd write_cancel;  // written by a Write that passed its deadline: the writer gives up
};

// ReadExited reads how the program ended from this process's end of a supervisor's control
// socket (supervisor.h's kExited); nullopt when the supervisor sent nothing (it was killed
// itself, and the program with it). Never blocks.
std::optional<ExitStatus> ReadExited(int control);

class RealProcess final : public Process {
 public:
  // Takes over the running `supervisor` (a child of this process), its program `pid` and `fds`.
  RealProcess(const Clock& clock, RealLauncherOptions options, pid_t supervisor, pid_t pid,
              ProcessFds fds, std::function<void(std::string_view)> stderr_sink);
  ~RealProcess() override;
  RealProcess(const RealProcess&) = delete;
  RealProcess& operator=(const RealProcess&) = delete;

  std::int64_t pid() const override { return pid_; }
  absl::Status Write(std::string_view bytes, absl::Time deadline) override;
  absl::Status CloseStdin() override;
  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override;
  absl::Status Signal(int signal) override;
  absl::StatusOr<ExitStatus> Wait(absl::Time deadline) override;
  ExitStatus Close() override;
  std::string StderrTail(absl::Time deadline) override;

 private:
  // One Write's bytes, handed to the writer thread; `bytes` are the caller's, so the Write
  // returns only once the job is done.
  struct WriteJob {
    std::string_view bytes;
    int fd;  // stdin: open as long as the job is in flight (the Write holds write_mu_)
    bool done = false;
    absl::Status result;
  };

  // The threads' bodies. They get their descriptors as numbers, at their start: fds_ itself is
  // only changed with no thread using what changes.
  void Reap(int control, int exited);
  void PumpStdout(int fd, int exited);
  void PumpStderr(int fd, int exited);
  void WriteLoop(int stop, int cancel);
  // Notifies the waiters; call with mu_ held, then Wake() once it is released.
  void Changed() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { waiters_.NotifyAll(); }
  void Wake() const { clock_.Wake(); }
  // Waits up to `grace` (on the clock) for the exit; true when it came.
  bool AwaitExit(absl::Duration grace) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Asks the supervisor to send `signal` to the program.
  absl::Status SendSignal(int signal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Closes stdin once no write is in flight. Call with write_mu_ held.
  void CloseStdinNow() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);

  const Clock& clock_;
  const RealLauncherOptions options_;
  const pid_t supervisor_;
  const pid_t pid_;  // the program's
  const std::function<void(std::string_view)> stderr_sink_;
  ProcessFds fds_;

  absl::Mutex close_mu_;  // one Close at a time; held for all of it
  bool closed_ ABSL_GUARDED_BY(close_mu_) = false;
  ExitStatus final_ ABSL_GUARDED_BY(close_mu_);

  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);  // one Write (or CloseStdin) at a time
  bool stdin_closed_ ABSL_GUARDED_BY(write_mu_) = false;

  mutable absl::Mutex mu_;
  ClockWaiters waiters_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<ExitStatus> exit_ ABSL_GUARDED_BY(mu_);
  bool closed_first_ ABSL_GUARDED_BY(mu_) = false;  // Close began before the exit was seen
  bool reapable_ ABSL_GUARDED_BY(mu_) = false;      // the supervisor's exit came from waitid: a
                                                    //   zombie remains
  // stdout: bytes [out_pos_, out_.size()) are unread.
  std::string out_ ABSL_GUARDED_BY(mu_);
  std::size_t out_pos_ ABSL_GUARDED_BY(mu_) = 0;
  bool out_ended_ ABSL_GUARDED_BY(mu_) = false;
  // stderr.
  std::string err_tail_ ABSL_GUARDED_BY(mu_);
  bool err_ended_ ABSL_GUARDED_BY(mu_) = false;
  // stdin: the job handed to the writer, and why stdin can no longer be written.
  WriteJob* pending_ ABSL_GUARDED_BY(mu_) = nullptr;  // not yet taken by the writer
  absl::Status stdin_broken_ ABSL_GUARDED_BY(mu_);
  bool writer_quit_ ABSL_GUARDED_BY(mu_) = false;

  std::thread reaper_;
  std::thread stdout_pump_;
  std::thread stderr_pump_;
  std::thread writer_;
};

}  // namespace agentrt::world::internal
