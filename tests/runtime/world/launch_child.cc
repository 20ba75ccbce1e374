// The child the launcher's tests start (launcher_test.cc), one behaviour per mode:
//
//   launch_child echo          stdin to stdout until end of file, then exit 0
//   launch_child env           print each environment entry on a line of its own, exit 0
//   launch_child cwd           print the working folder, exit 0
//   launch_child fds           print each open descriptor's number on a line, exit 0
//   launch_child hang          ignore stdin and sleep until a signal ends it
//   launch_child exit N        exit with code N
//   launch_child signal N      end by signal N
//   launch_child announce      print its pid and "\n", then sleep until a signal ends it
//   launch_child grandchild    start a grandchild that ignores SIGTERM, SIGINT and SIGHUP and
//                              sleeps (it prints its pid, then "\n"); exit 0 at end of stdin
//   launch_child daemon        the same, but the grandchild first leaves for a session (and
//                              process group) of its own with setsid
//   launch_child stderr N      write N bytes to stderr, then "the end", exit 0
//   launch_child flood N       write N bytes to stdout ('a' + i % 26 at offset i), exit 0
//   launch_child ignore-term   ignore SIGTERM, print "ready\n", read stdin to its end, sleep
//   launch_child runtime ARGV  stand for agentrt: start ARGV through a RealLauncher, pass the
//                              first line it writes to stdout on to this process's stdout, and
//                              sleep (the test SIGKILLs this process)
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/real_launcher.h"

extern char** environ;

namespace {

void WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) std::_Exit(70);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Reads stdin to its end, passing what it reads to stdout when `echo`.
void DrainStdin(bool echo) {
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0) return;
    if (n < 0) std::_Exit(71);
    if (echo) WriteAll(STDOUT_FILENO, std::string_view(buffer, static_cast<std::size_t>(n)));
  }
}

[[noreturn]] void SleepForever() {
  for (;;) ::pause();
}

void Ignore(int signal) { ::signal(signal, SIG_IGN); }

int Grandchild(bool own_session) {
  pid_t pid = ::fork();
  if (pid < 0) return 72;
  if (pid == 0) {
    if (own_session && ::setsid() < 0) std::_Exit(77);
    Ignore(SIGTERM);
    Ignore(SIGINT);
    Ignore(SIGHUP);
    WriteAll(STDOUT_FILENO, std::to_string(::getpid()) + "\n");
    SleepForever();
  }
  DrainStdin(false);
  return 0;
}

int Runtime(std::vector<std::string> argv) {
  agentrt::world::RealClock clock;
  agentrt::world::RealLauncher launcher(clock);
  auto child = launcher.Start({.argv = std::move(argv)});
  if (!child.ok()) return 73;
  std::string line;
  while (line.empty() || line.back() != '\n') {
    auto bytes = (*child)->Read(absl::InfiniteFuture());
    if (!bytes.ok() || bytes->empty()) return 78;
    line += *bytes;
  }
  WriteAll(STDOUT_FILENO, line);
  SleepForever();
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (mode == "echo") {
    DrainStdin(true);
    return 0;
  }
  if (mode == "env") {
    for (char** e = environ; *e != nullptr; ++e) WriteAll(STDOUT_FILENO, std::string(*e) + "\n");
    return 0;
  }
  if (mode == "cwd") {
    char folder[4096];
    if (::getcwd(folder, sizeof folder) == nullptr) return 74;
    WriteAll(STDOUT_FILENO, std::string(folder) + "\n");
    return 0;
  }
  if (mode == "fds") {
    DIR* fds = ::opendir("/proc/self/fd");
    if (fds == nullptr) return 76;
    while (dirent* entry = ::readdir(fds)) {
      if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == ::dirfd(fds)) continue;
      WriteAll(STDOUT_FILENO, std::string(entry->d_name) + "\n");
    }
    ::closedir(fds);
    return 0;
  }
  if (mode == "hang") SleepForever();
  if (mode == "announce") {
    WriteAll(STDOUT_FILENO, std::to_string(::getpid()) + "\n");
    SleepForever();
  }
  if (mode == "exit") return static_cast<int>(n);
  if (mode == "signal") {
    ::signal(static_cast<int>(n), SIG_DFL);
    ::raise(static_cast<int>(n));
    return 75;
  }
  if (mode == "grandchild") return Grandchild(/*own_session=*/false);
  if (mode == "daemon") return Grandchild(/*own_session=*/true);
  if (mode == "stderr") {
    WriteAll(STDERR_FILENO, std::string(static_cast<std::size_t>(n), '.') + "the end");
    return 0;
  }
  if (mode == "flood") {
    std::string bytes(static_cast<std::size_t>(n), '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 26);
    WriteAll(STDOUT_FILENO, bytes);
    return 0;
  }
  if (mode == "ignore-term") {
    Ignore(SIGTERM);
    WriteAll(STDOUT_FILENO, "ready\n");
    DrainStdin(false);
    SleepForever();
  }
  if (mode == "runtime") return Runtime(std::vector<std::string>(argv + 2, argv + argc));
  return 64;
}
