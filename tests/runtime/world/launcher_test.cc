// RealLauncher with real child processes (launch_child.cc): the byte streams, the environment
// and folder, start errors, exits, Close and its escalation, the supervisor that ends every
// descendant (at Close, at the child's exit, and when the runtime is killed), stderr,
// back-pressure, and deadlines on the injected clock.
#include "runtime/world/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/clock.h"
#include "runtime/world/internal/real_process.h"
#include "runtime/world/internal/supervisor.h"
#include "runtime/world/real_launcher.h"
#include "tests/support/largest_allocation.h"
#include "tests/support/process_gone.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::world {
namespace {

const char* const kChild = AGENTRT_LAUNCH_CHILD;

// Short grace periods: a test that needs the escalation waits fractions of a second.
constexpr RealLauncherOptions kShortGraces = {.stdin_grace = absl::Milliseconds(200),
                                              .term_grace = absl::Milliseconds(200)};

LaunchSpec Child(std::vector<std::string> args) {
  LaunchSpec spec;
  spec.argv = {kChild};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  return spec;
}

// A deadline far enough for anything a healthy machine does, so a test fails rather than hangs.
absl::Time Patience(const Clock& clock) { return clock.Now() + absl::Seconds(30); }

std::unique_ptr<Process> StartOrDie(Launcher& launcher, const LaunchSpec& spec) {
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(spec);
  EXPECT_OK(process);
  return process.ok() ? *std::move(process) : nullptr;
}

// How `process` ended; a failed Wait fails the test (and reads as exit -2) rather than crash it.
ExitStatus Waited(Process& process, const Clock& clock) {
  absl::StatusOr<ExitStatus> status = process.Wait(Patience(clock));
  if (!status.ok()) {
    ADD_FAILURE() << status.status();
    return ExitStatus{.code = -2};
  }
  return *status;
}

// One Read; a failed one fails the test and reads as "<error>".
std::string ReadOnce(Process& process, absl::Time deadline,
                     std::size_t max_bytes = kDefaultReadBytes) {
  absl::StatusOr<std::string> bytes = process.Read(deadline, max_bytes);
  if (!bytes.ok()) {
    ADD_FAILURE() << bytes.status();
    return "<error>";
  }
  return *bytes;
}

// Reads exactly `n` bytes (fewer if stdout ends or a read fails).
std::string ReadExactly(Process& process, std::size_t n, absl::Time deadline) {
  std::string got;
  while (got.size() < n) {
    absl::StatusOr<std::string> bytes = process.Read(deadline, n - got.size());
    if (!bytes.ok() || bytes->empty()) {
      ADD_FAILURE() << "after " << got.size() << " of " << n << " bytes: " << bytes.status();
      break;
    }
    got += *bytes;
  }
  return got;
}

// Reads up to a newline (the line is all the child writes before it waits).
std::string ReadLine(Process& process, absl::Time deadline) {
  std::string got;
  while (got.empty() || got.back() != '\n') {
    absl::StatusOr<std::string> bytes = process.Read(deadline);
    if (!bytes.ok() || bytes->empty()) {
      ADD_FAILURE() << "line so far \"" << got << "\": " << bytes.status();
      break;
    }
    got += *bytes;
  }
  return got;
}

// Reads stdout to its end.
std::string ReadToEnd(Process& process, absl::Time deadline) {
  std::string got;
  for (;;) {
    absl::StatusOr<std::string> bytes = process.Read(deadline);
    if (!bytes.ok()) {
      ADD_FAILURE() << bytes.status();
      return got;
    }
    if (bytes->empty()) return got;
    got += *bytes;
  }
}

bool Gone(pid_t pid) { return test_support::ProcessGone(pid); }
bool GoneWithin(pid_t pid, absl::Duration limit) {
  return test_support::ProcessGoneWithin(pid, limit);
}
// Gone already; when not, it is killed, so no test leaves it behind.
bool GoneNow(pid_t pid) { return test_support::ProcessGoneWithin(pid, absl::ZeroDuration()); }

TEST(RealLauncherTest, EchoRoundTripsOverSeveralWritesAndReads) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> echo = StartOrDie(launcher, Child({"echo"}));
  ASSERT_NE(echo, nullptr);
  EXPECT_GT(echo->pid(), 0);
  for (int i = 0; i < 5; ++i) {
    std::string message = "message " + std::to_string(i) + "\n";
    ASSERT_OK(echo->Write(message, Patience(clock)));
    EXPECT_EQ(ReadExactly(*echo, message.size(), Patience(clock)), message);
  }
  ASSERT_OK(echo->CloseStdin());
  EXPECT_EQ(ReadOnce(*echo, Patience(clock)), "");  // stdout ended, nothing unread
  EXPECT_EQ(Waited(*echo, clock), (ExitStatus{.code = 0}));
  EXPECT_EQ(echo->Close(), (ExitStatus{.code = 0}));
}

TEST(RealLauncherTest, ReadPastItsDeadlineLosesNothing) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> echo = StartOrDie(launcher, Child({"echo"}));
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->Read(clock.Now() + absl::Milliseconds(50)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  ASSERT_OK(echo->Write("late", Patience(clock)));
  EXPECT_EQ(ReadExactly(*echo, 4, Patience(clock)), "late");
  // A read asked for less leaves the rest for the next one.
  ASSERT_OK(echo->Write("abc", Patience(clock)));
  EXPECT_EQ(ReadOnce(*echo, Patience(clock), 1), "a");
  EXPECT_EQ(ReadExactly(*echo, 2, Patience(clock)), "bc");
}

TEST(RealLauncherTest, ChildGetsExactlyTheEnvironmentGiven) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  LaunchSpec spec = Child({"env"});
  spec.env = {"A=1", "EMPTY=", "B=x=y"};
  std::unique_ptr<Process> child = StartOrDie(launcher, spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(ReadToEnd(*child, Patience(clock)), "A=1\nEMPTY=\nB=x=y\n");
}

TEST(RealLauncherTest, AnEmptyEnvironmentIsEmptyNotInherited) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"env"}));
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(ReadToEnd(*child, Patience(clock)), "");
}

TEST(RealLauncherTest, ChildRunsInTheFolderGiven) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  LaunchSpec spec = Child({"cwd"});
  spec.dir = test_support::TestFolder().string();
  std::unique_ptr<Process> child = StartOrDie(launcher, spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(ReadToEnd(*child, Patience(clock)),
            std::filesystem::canonical(test_support::TestFolder()).string() + "\n");
  // No folder: this process's.
  std::unique_ptr<Process> here = StartOrDie(launcher, Child({"cwd"}));
  ASSERT_NE(here, nullptr);
  EXPECT_EQ(ReadToEnd(*here, Patience(clock)), std::filesystem::current_path().string() + "\n");
}

TEST(RealLauncherTest, ChildInheritsNoOtherDescriptor) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  // Opened without O_CLOEXEC, as a careless library would.
  int careless = ::open(test_support::TestFile("careless").c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(careless, 0);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"fds"}));
  ::close(careless);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(ReadToEnd(*child, Patience(clock)), "0\n1\n2\n");
}

TEST(RealLauncherTest, ChildStartsWithDefaultSignalHandlingWhateverThisProcessSet) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  // Ignored here (and blocked on every launcher thread): neither may reach the child.
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGHUP, &ignore, &old);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ::sigaction(SIGHUP, &old, nullptr);
  ASSERT_NE(hang, nullptr);
  ASSERT_OK(hang->Signal(SIGHUP));
  EXPECT_EQ(Waited(*hang, clock), (ExitStatus{.signal = SIGHUP}));
}

TEST(RealLauncherTest, ProgramNotFoundIsNotFoundNamingIt) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  absl::StatusOr<std::unique_ptr<Process>> missing =
      launcher.Start({.argv = {"agentrt-no-such-program-7f3a"}});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("\"agentrt-no-such-program-7f3a\""));
  absl::StatusOr<std::unique_ptr<Process>> no_file =
      launcher.Start({.argv = {"/nonexistent-agentrt/program"}});
  EXPECT_EQ(no_file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(no_file.status().message(), HasSubstr("\"/nonexistent-agentrt/program\""));
}

TEST(RealLauncherTest, ProgramWithoutASlashIsLookedUpInThisProcesssPath) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  // The child's environment is empty, so no PATH of its own: the lookup is this process's.
  std::unique_ptr<Process> shell =
      StartOrDie(launcher, {.argv = {"sh", "-c", "echo found; exit 4"}});
  ASSERT_NE(shell, nullptr);
  EXPECT_EQ(ReadToEnd(*shell, Patience(clock)), "found\n");
  EXPECT_EQ(Waited(*shell, clock), (ExitStatus{.code = 4}));
}

TEST(RealLauncherTest, ExecFailureIsTheOperatingSystemsErrorNamingTheProgram) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::string script = test_support::TestFile("not-executable");
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  ::chmod(script.c_str(), 0644);
  absl::StatusOr<std::unique_ptr<Process>> denied = launcher.Start({.argv = {script}});
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.status().message(), HasSubstr(script));

  std::string folder = test_support::TestFile("no-such-folder");
  absl::StatusOr<std::unique_ptr<Process>> no_folder =
      launcher.Start({.argv = {kChild, "echo"}, .dir = folder});
  EXPECT_EQ(no_folder.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(no_folder.status().message(), HasSubstr(folder));
}

TEST(RealLauncherTest, MalformedSpecsAreInvalidArguments) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  EXPECT_EQ(launcher.Start({}).status().code(), absl::StatusCode::kInvalidArgument);
  for (const char* entry : {"NOEQUALS", "=v", ""}) {
    SCOPED_TRACE(entry);
    absl::Status status = launcher.Start({.argv = {kChild, "env"}, .env = {entry}}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("is not NAME=value"));
  }
  EXPECT_EQ(launcher.Start({.argv = {kChild, std::string("a\0b", 3)}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RealLauncherTest, ExitCodeAndSignalAreReported) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> exits = StartOrDie(launcher, Child({"exit", "3"}));
  std::unique_ptr<Process> killed = StartOrDie(launcher, Child({"signal", "9"}));
  ASSERT_NE(exits, nullptr);
  ASSERT_NE(killed, nullptr);
  absl::StatusOr<ExitStatus> code = exits->Wait(Patience(clock));
  absl::StatusOr<ExitStatus> signal = killed->Wait(Patience(clock));
  ASSERT_OK(code);
  ASSERT_OK(signal);
  EXPECT_EQ(*code, (ExitStatus{.code = 3}));
  EXPECT_EQ(ToString(*code), "exit 3");
  EXPECT_EQ(*signal, (ExitStatus{.signal = SIGKILL}));
  EXPECT_EQ(ToString(*signal), "signal 9 (SIGKILL)");
  // Close after the exit: the same status, no signal needed.
  EXPECT_EQ(exits->Close(), *code);
  EXPECT_EQ(killed->Close(), *signal);
}

TEST(RealLauncherTest, SignalReachesTheChildAndIsRefusedOnceItEnded) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->Wait(clock.Now() + absl::Milliseconds(50)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  ASSERT_OK(hang->Signal(SIGTERM));
  EXPECT_EQ(Waited(*hang, clock), (ExitStatus{.signal = SIGTERM}));
  EXPECT_EQ(hang->Signal(SIGTERM).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RealLauncherTest, CloseOfAChildThatExitsAtEndOfStdinNeedsNoSignal) {
  RealClock clock;
  // Long graces: the test would take a minute if Close waited them out.
  RealLauncher launcher(clock, {.stdin_grace = absl::Seconds(30), .term_grace = absl::Seconds(30)});
  std::unique_ptr<Process> echo = StartOrDie(launcher, Child({"echo"}));
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->Close(), (ExitStatus{.code = 0}));
}

TEST(RealLauncherTest, CloseSendsSigtermToAChildThatKeepsRunning) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->Close(), (ExitStatus{.signal = SIGTERM}));
}

TEST(RealLauncherTest, CloseKillsAChildThatIgnoresSigterm) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> stubborn = StartOrDie(launcher, Child({"ignore-term"}));
  ASSERT_NE(stubborn, nullptr);
  ASSERT_EQ(ReadLine(*stubborn, Patience(clock)), "ready\n");  // SIGTERM is ignored from here
  EXPECT_EQ(stubborn->Close(), (ExitStatus{.signal = SIGKILL}));
}

TEST(RealLauncherTest, CloseKillsTheChildsDescendants) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"grandchild"}));
  ASSERT_NE(child, nullptr);
  pid_t grandchild = std::stoi(ReadLine(*child, Patience(clock)));
  ASSERT_FALSE(Gone(grandchild));
  // The child itself exits at the end of its stdin; the grandchild ignores SIGTERM, SIGINT and
  // SIGHUP and would live on but for the SIGKILL to the group.
  EXPECT_EQ(child->Close(), (ExitStatus{.code = 0}));
  EXPECT_TRUE(GoneWithin(grandchild, absl::Seconds(5)));
}

TEST(RealLauncherTest, CloseKillsADescendantThatLeftForASessionOfItsOwn) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"daemon"}));
  ASSERT_NE(child, nullptr);
  pid_t grandchild = std::stoi(ReadLine(*child, Patience(clock)));
  ASSERT_FALSE(Gone(grandchild));
  // Out of the child's group, so no signal to the group reaches it: the supervisor, its
  // subreaper, kills it and reaps it before Close returns.
  EXPECT_EQ(child->Close(), (ExitStatus{.code = 0}));
  EXPECT_TRUE(GoneNow(grandchild));
}

TEST(RealLauncherTest, WhenTheChildExitsNothingItStartedOutlivesItAndStdoutEnds) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"daemon"}));
  ASSERT_NE(child, nullptr);
  pid_t grandchild = std::stoi(ReadLine(*child, Patience(clock)));
  ASSERT_OK(child->CloseStdin());
  // The child exits at the end of its stdin; its grandchild held stdout and stderr open and
  // would sleep on, but the exit is reported only once it is gone.
  EXPECT_EQ(Waited(*child, clock), (ExitStatus{.code = 0}));
  EXPECT_TRUE(GoneNow(grandchild));
  EXPECT_EQ(ReadOnce(*child, Patience(clock)), "");
  EXPECT_EQ(child->StderrTail(Patience(clock)), "");
  EXPECT_EQ(child->Close(), (ExitStatus{.code = 0}));
}

TEST(RealLauncherTest, ThePidIsTheProgramsOwnAndSignalsReachIt) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"announce"}));
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(ReadLine(*child, Patience(clock)), std::to_string(child->pid()) + "\n");
  ASSERT_OK(child->Signal(SIGUSR1));
  EXPECT_EQ(Waited(*child, clock), (ExitStatus{.signal = SIGUSR1}));
}

// A process standing for agentrt (`launch_child runtime SERVER...`), started by the test itself
// rather than through a RealLauncher, whose own supervisor would clean up after it: once it is
// SIGKILLed, only the promises of its own launcher are left to keep.
class Runtime {
 public:
  explicit Runtime(const std::vector<std::string>& server) {
    std::vector<std::string> args = {kChild, "runtime"};
    args.insert(args.end(), server.begin(), server.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    char* no_env[] = {nullptr};
    if (posix_spawn(&pid_, kChild, &actions, nullptr, argv.data(), no_env) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    stdout_ = out[0];
  }
  ~Runtime() {
    Kill();
    if (stdout_ >= 0) ::close(stdout_);
  }

  // The pid the server announced on its first line, which the runtime passed on; 0 when none
  // came within 30 seconds.
  pid_t AnnouncedPid() {
    std::string line;
    while (line.empty() || line.back() != '\n') {
      pollfd readable = {stdout_, POLLIN, 0};
      char c;
      if (::poll(&readable, 1, 30'000) != 1 || ::read(stdout_, &c, 1) != 1) return 0;
      line += c;
    }
    return std::stoi(line);
  }

  // SIGKILL, then reaped, as a shell or a service manager would.
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
};

TEST(RealLauncherTest, NothingAServerStartedOutlivesAKilledRuntime) {
  std::string wrapper = test_support::TestFile("wrapper.sh");
  // Not the last command of `sh -c`, which a shell may exec in its own place: a script that
  // waits for its child, as launcher scripts do.
  std::ofstream(wrapper) << "#!/bin/sh\n'" << kChild << "' announce\nexit $?\n";
  ASSERT_EQ(::chmod(wrapper.c_str(), 0700), 0);
  struct Case {
    const char* what;
    std::vector<std::string> server;
  };
  const Case cases[] = {
      {"the server itself", {kChild, "announce"}},
      {"a wrapper script's child", {wrapper}},
      {"a grandchild in the server's process group", {kChild, "grandchild"}},
      {"a grandchild in a session of its own", {kChild, "daemon"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Runtime runtime(c.server);
    pid_t descendant = runtime.AnnouncedPid();
    ASSERT_GT(descendant, 0);
    ASSERT_FALSE(Gone(descendant));
    runtime.Kill();
    EXPECT_TRUE(GoneWithin(descendant, absl::Seconds(5)));
  }
}

TEST(RealLauncherTest, AChildEndsWithItsLauncher) {
  RealClock clock;
  std::unique_ptr<Process> hang;
  {
    RealLauncher launcher(clock, kShortGraces);
    hang = StartOrDie(launcher, Child({"hang"}));
    ASSERT_NE(hang, nullptr);
  }
  // The thread that forked it is gone: the parent-death signal came (real_launcher.h).
  EXPECT_EQ(Waited(*hang, clock), (ExitStatus{.signal = SIGKILL}));
}

TEST(RealLauncherTest, StderrTailKeepsTheLast4096Bytes) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> child = StartOrDie(launcher, Child({"stderr", "20000"}));
  ASSERT_NE(child, nullptr);
  std::string tail = child->StderrTail(Patience(clock));
  EXPECT_EQ(tail.size(), kStderrTailBytes);
  EXPECT_THAT(tail, StartsWith("...."));
  EXPECT_THAT(tail, EndsWith("the end"));
  EXPECT_EQ(Waited(*child, clock), (ExitStatus{.code = 0}));
}

TEST(RealLauncherTest, StderrSinkReceivesEverythingAndNoTailIsKept) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  absl::Mutex mu;
  std::string received;
  LaunchSpec spec = Child({"stderr", "200000"});
  spec.stderr_sink = [&](std::string_view chunk) {
    absl::MutexLock lock(&mu);
    received.append(chunk);
  };
  std::unique_ptr<Process> child = StartOrDie(launcher, spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->StderrTail(Patience(clock)), "");  // returns once stderr ended
  absl::MutexLock lock(&mu);
  EXPECT_EQ(received, std::string(200000, '.') + "the end");
}

TEST(RealLauncherTest, CloseTwiceReturnsTheSameStatus) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->Close(), (ExitStatus{.signal = SIGTERM}));
  EXPECT_EQ(hang->Close(), (ExitStatus{.signal = SIGTERM}));
  // After Close: streams are cancelled, signals refused, stdin already closed.
  EXPECT_EQ(hang->Read(Patience(clock)).status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(hang->Write("x", Patience(clock)).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(hang->Wait(Patience(clock)).status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(hang->Signal(SIGTERM).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(hang->CloseStdin());
}

TEST(RealLauncherTest, CloseFromTwoThreadsAtOnce) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  ExitStatus first, second;
  std::thread a([&] { first = hang->Close(); });
  std::thread b([&] { second = hang->Close(); });
  a.join();
  b.join();
  EXPECT_EQ(first, (ExitStatus{.signal = SIGTERM}));
  EXPECT_EQ(second, first);
}

TEST(RealLauncherTest, CloseCancelsAReadAWriteAndAWaitInFlight) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  const absl::Time never = absl::InfiniteFuture();
  absl::Status read, write, wait;
  std::atomic<int> started{0};
  // The child reads nothing and writes nothing: each call blocks until Close.
  std::thread reader([&] {
    ++started;
    read = hang->Read(never).status();
  });
  std::thread writer([&] {
    ++started;
    write = hang->Write(std::string(4 << 20, 'x'), never);  // far more than a pipe holds
  });
  std::thread waiter([&] {
    ++started;
    wait = hang->Wait(never).status();
  });
  while (started < 3) std::this_thread::yield();
  // Either order (blocked, or not yet called) must end in Cancelled; a moment's pause makes
  // "blocked" the usual one.
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(hang->Close(), (ExitStatus{.signal = SIGTERM}));
  reader.join();
  writer.join();
  waiter.join();
  EXPECT_EQ(read.code(), absl::StatusCode::kCancelled) << read;
  EXPECT_EQ(write.code(), absl::StatusCode::kCancelled) << write;
  EXPECT_EQ(wait.code(), absl::StatusCode::kCancelled) << wait;
}

TEST(RealLauncherTest, FloodingStdoutIsHeldBackYetFullyReadable) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  constexpr std::size_t kFlood = std::size_t{32} << 20;
  test_support::StartTrackingAllocations();
  std::unique_ptr<Process> flood = StartOrDie(launcher, Child({"flood", std::to_string(kFlood)}));
  ASSERT_NE(flood, nullptr);
  // Nobody reads: the child cannot have written it all, since it is held back by the pipe.
  EXPECT_EQ(flood->Wait(clock.Now() + absl::Milliseconds(300)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  std::size_t offset = 0;
  bool in_order = true;
  for (;;) {
    absl::StatusOr<std::string> bytes = flood->Read(Patience(clock));
    ASSERT_OK(bytes);
    if (bytes->empty()) break;
    for (char c : *bytes) in_order = in_order && c == static_cast<char>('a' + offset++ % 26);
  }
  EXPECT_EQ(offset, kFlood);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(Waited(*flood, clock), (ExitStatus{.code = 0}));
  EXPECT_LT(test_support::StopTrackingAllocations(), std::size_t{4} << 20);
}

TEST(RealLauncherTest, WriteToAChildThatExitedIsUnavailable) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> gone = StartOrDie(launcher, Child({"exit", "0"}));
  ASSERT_NE(gone, nullptr);
  ASSERT_EQ(Waited(*gone, clock), (ExitStatus{.code = 0}));
  EXPECT_EQ(gone->Write("anyone?\n", Patience(clock)).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(gone->Write("anyone?\n", Patience(clock)).code(), absl::StatusCode::kUnavailable);
}

TEST(RealLauncherTest, WritePastItsDeadlineLeavesStdinUnusable) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->Write(std::string(4 << 20, 'x'), clock.Now() + absl::Milliseconds(100)).code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(hang->Write("x", Patience(clock)).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RealLauncherTest, WriteAfterCloseStdinIsFailedPrecondition) {
  RealClock clock;
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> echo = StartOrDie(launcher, Child({"echo"}));
  ASSERT_NE(echo, nullptr);
  ASSERT_OK(echo->CloseStdin());
  EXPECT_OK(echo->CloseStdin());
  EXPECT_EQ(echo->Write("x", Patience(clock)).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Waited(*echo, clock), (ExitStatus{.code = 0}));
}

TEST(RealLauncherTest, ReadDeadlineIsOnTheInjectedClock) {
  const absl::Time start = absl::FromUnixSeconds(1'800'000'000);
  ManualClock clock(start);
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> echo = StartOrDie(launcher, Child({"echo"}));
  ASSERT_NE(echo, nullptr);
  // Real time passes well beyond the read's deadline, the clock does not: the read still waits,
  // and gets what comes.
  absl::StatusOr<std::string> first;
  std::thread reader([&] { first = echo->Read(start + absl::Milliseconds(1)); });
  absl::SleepFor(absl::Milliseconds(100));
  ASSERT_OK(echo->Write("ping", absl::InfiniteFuture()));
  reader.join();
  ASSERT_OK(first);
  EXPECT_EQ(*first, "ping");
  // The deadline passes when the clock is moved past it.
  absl::StatusOr<std::string> second;
  reader = std::thread([&] { second = echo->Read(start + absl::Seconds(1)); });
  clock.Advance(absl::Seconds(2));
  reader.join();
  EXPECT_EQ(second.status().code(), absl::StatusCode::kDeadlineExceeded);
}

// A supervisor that ends with a message of ours unread (Close asking for SIGKILL just as the
// program died of its SIGTERM) resets the control socket: the kernel reports ECONNRESET once,
// ahead of the kExited the supervisor sent. The exit must still be read, not taken for the
// supervisor's own (which said "exit 0" for a program killed by a signal, one Close in a
// few hundred).
TEST(RealLauncherTest, TheProgramsExitIsReadWhenTheSupervisorEndedWithAMessageUnread) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends), 0);
  internal::ControlMessage ours{.kind = internal::ControlMessage::kSignal, .signal = SIGKILL};
  ASSERT_EQ(::send(ends[0], &ours, sizeof ours, 0), static_cast<ssize_t>(sizeof ours));
  internal::ControlMessage exited{.kind = internal::ControlMessage::kExited, .signal = SIGTERM};
  ASSERT_EQ(::send(ends[1], &exited, sizeof exited, 0), static_cast<ssize_t>(sizeof exited));
  ::close(ends[1]);  // the supervisor ends without reading ours
  std::optional<ExitStatus> read = internal::ReadExited(ends[0]);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, (ExitStatus{.code = -1, .signal = SIGTERM}));
  EXPECT_FALSE(internal::ReadExited(ends[0]).has_value());  // nothing more, and no wait
  ::close(ends[0]);
}

TEST(RealLauncherTest, WaitDeadlineIsOnTheInjectedClock) {
  const absl::Time start = absl::FromUnixSeconds(1'800'000'000);
  ManualClock clock(start, {.waits = ManualClock::Waits::kJump});
  RealLauncher launcher(clock, kShortGraces);
  std::unique_ptr<Process> hang = StartOrDie(launcher, Child({"hang"}));
  ASSERT_NE(hang, nullptr);
  // An hour on the injected clock takes no time at all.
  EXPECT_EQ(hang->Wait(start + absl::Hours(1)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(clock.Now(), start + absl::Hours(1));
  // Close's grace periods are on it too.
  EXPECT_GT(hang->Close().signal, 0);
  EXPECT_GE(clock.Now(), start + absl::Hours(1) + kShortGraces.stdin_grace);
}

}  // namespace
}  // namespace agentrt::world
