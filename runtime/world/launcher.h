// runtime/world/launcher.h
//
// Child processes, injected: the MCP client starts a stdio server through a Launcher and talks
// to it through the Process it gets, never through fork, exec or a pipe of its own. So a real
// run (real_launcher.h), a recording of it (runtime/replay), a replay of that recording and the
// simulator's in-process fake servers all look the same to the client.
//
// A Process is three byte streams and a life:
//  - stdin: Write all of some bytes, or CloseStdin (the child then reads end of file);
//  - stdout: Read the next bytes the child wrote, waiting at most until a deadline;
//  - stderr: free-form logging, never read by the client directly: either every chunk goes to
//    the spec's stderr sink, or the last kStderrTailBytes are kept for an error message
//    (StderrTail);
//  - Signal, Wait for the exit, and Close, which ends the child and everything it started.
// Deadlines are on the Clock the launcher was given (a real launcher waits on real time, a
// simulated one on virtual time). A read or wait that reaches its deadline loses nothing: the
// bytes or the exit are there for the next call.
//
// Thread-safety: one thread may Write while another Reads, and Close may come from any thread at
// any time, also twice and while a Read, Write or Wait is in flight (which then returns
// Cancelled, or what it had already got).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt::world {

// How much of stderr a process keeps when it has no sink.
inline constexpr std::size_t kStderrTailBytes = 4096;
// The most one Read returns unless asked for less.
inline constexpr std::size_t kDefaultReadBytes = 64 * 1024;

struct LaunchSpec {
  // The program and its arguments; argv[0] without a '/' is looked up in this process's PATH.
  std::vector<std::string> argv;
  // Exactly the child's environment, "NAME=value" each; empty means an empty environment,
  // never "inherit" (child_env.h builds the minimal one an MCP server gets).
  std::vector<std::string> env;
  // The child's working folder; "" keeps this process's.
  std::string dir;
  // When set, every chunk of the child's stderr is handed to it as it arrives (from a thread
  // of the launcher's, one call at a time) and no tail is kept.
  std::function<void(std::string_view)> stderr_sink;
};

// How a process ended: exited with a code, or killed by a signal.
struct ExitStatus {
  int code = -1;   // >= 0 when it exited
  int signal = 0;  // > 0 when a signal ended it
  bool operator==(const ExitStatus&) const = default;
};
// "exit 0", "exit 3", "signal 9 (SIGKILL)".
std::string ToString(const ExitStatus& status);

class Process {
 public:
  virtual ~Process() = default;  // implementations Close() what is still open

  // The operating system's process id (the simulator's own numbering for a fake one).
  virtual std::int64_t pid() const = 0;

  // Write writes all of `bytes` to the child's stdin. Errors: DeadlineExceeded when they could
  // not all be written by `deadline` (how many were is unknown to the caller; the stream is no
  // longer usable), FailedPrecondition after CloseStdin, Unavailable when the child closed its
  // stdin (it exited), Cancelled when the process was closed.
  virtual absl::Status Write(std::string_view bytes, absl::Time deadline) = 0;

  // CloseStdin closes the child's stdin; the child reads end of file. Idempotent.
  virtual absl::Status CloseStdin() = 0;

  // Read returns the next bytes the child wrote to stdout, between 1 and `max_bytes`, or "" once
  // stdout has ended (the child closed it or exited) and everything before was read. Errors:
  // DeadlineExceeded when nothing came by `deadline` (nothing is lost), Cancelled when the
  // process was closed.
  virtual absl::StatusOr<std::string> Read(absl::Time deadline,
                                           std::size_t max_bytes = kDefaultReadBytes) = 0;

  // Signal sends `signal` (SIGTERM, SIGKILL, ...) to the child. Errors: FailedPrecondition once
  // the child has been waited for.
  virtual absl::Status Signal(int signal) = 0;

  // Wait returns how the child ended once it has. Errors: DeadlineExceeded when it is still
  // running at `deadline`, Cancelled when the process was closed first.
  virtual absl::StatusOr<ExitStatus> Wait(absl::Time deadline) = 0;

  // Close ends the child and everything it started: close stdin, wait a grace period for it to
  // exit, SIGTERM, wait again, SIGKILL; then SIGKILL to every descendant, whatever group or
  // session it moved to, so none (a `node` started by a launcher script, a daemon) outlives
  // it. Returns how the child ended. Idempotent: a second Close returns the same status at once.
  virtual ExitStatus Close() = 0;

  // StderrTail returns the last kStderrTailBytes of stderr (possibly starting inside a UTF-8
  // sequence; "" when the spec had a sink), after waiting until stderr ended or `deadline`
  // passed: a child that just failed may still be writing why.
  virtual std::string StderrTail(absl::Time deadline) = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Start starts a child as `spec` says. Errors: InvalidArgument for an empty argv or an env
  // entry that is not NAME=value; NotFound when the program is not found; the operating
  // system's error naming the program otherwise (PermissionDenied, ...).
  virtual absl::StatusOr<std::unique_ptr<Process>> Start(const LaunchSpec& spec) = 0;
};

// ProcessWrapper forwards every call to a target process it owns, and LauncherWrapper every
// start to a target launcher it does not own: a launcher or process that changes one call (records
// it, taps it, counts it) derives from them and overrides only that call. A LauncherWrapper's
// target must outlive it.
class ProcessWrapper : public Process {
 public:
  explicit ProcessWrapper(std::unique_ptr<Process> target) : target_(std::move(target)) {}
  Process& target() const { return *target_; }

  std::int64_t pid() const override { return target_->pid(); }
  absl::Status Write(std::string_view bytes, absl::Time deadline) override {
    return target_->Write(bytes, deadline);
  }
  absl::Status CloseStdin() override { return target_->CloseStdin(); }
  absl::StatusOr<std::string> Read(absl::Time deadline, std::size_t max_bytes) override {
    return target_->Read(deadline, max_bytes);
  }
  absl::Status Signal(int signal) override { return target_->Signal(signal); }
  absl::StatusOr<ExitStatus> Wait(absl::Time deadline) override { return target_->Wait(deadline); }
  ExitStatus Close() override { return target_->Close(); }
  std::string StderrTail(absl::Time deadline) override { return target_->StderrTail(deadline); }

 private:
  std::unique_ptr<Process> target_;
};

class LauncherWrapper : public Launcher {
 public:
  explicit LauncherWrapper(Launcher& target) : target_(target) {}
  Launcher& target() const { return target_; }
  absl::StatusOr<std::unique_ptr<Process>> Start(const LaunchSpec& spec) override {
    return target_.Start(spec);
  }

 private:
  Launcher& target_;
};

}  // namespace agentrt::world
