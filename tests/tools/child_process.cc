#include "tests/tools/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

extern char** environ;

namespace agentrt::testing {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::perror(what);
    std::abort();
  }
}

// The test's environment with `extra` (NAME=value) set over it.
std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extra) replaced = replaced || x.substr(0, x.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input) {
  return RunProcess(argv, ProcessOptions{.input = input});
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  const std::string& input = options.input;
  int in[2], out[2], err[2];
  Check(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0,
        "pipe2");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  if (options.stdout_file.empty()) {
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.stdout_file.c_str(), O_WRONLY,
                                     0);
  }
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<char*> args = Pointers(argv);
  std::vector<std::string> env_strings = Environment(options.env);
  std::vector<char*> env = Pointers(env_strings);
  pid_t pid;
  Check(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data()) == 0, "posix_spawn");
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);

  // A child that exits early must not kill the test with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  ProcessResult result;
  std::size_t written = 0;
  int in_fd = in[1];
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  int out_fd = out[0], err_fd = err[0];
  char buffer[1 << 16];
  while (out_fd >= 0 || err_fd >= 0 || in_fd >= 0) {
    pollfd fds[3] = {{in_fd, POLLOUT, 0}, {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      Check(errno == EINTR, "poll");
      continue;
    }
    if (in_fd >= 0 && fds[0].revents != 0) {
      ssize_t n = write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == input.size()) {
        close(in_fd);
        in_fd = -1;
      }
    }
    for (int k : {1, 2}) {
      int& fd = k == 1 ? out_fd : err_fd;
      if (fd < 0 || fds[k].revents == 0) continue;
      ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n > 0) {
        (k == 1 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fd);
        fd = -1;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TerminalResult RunOnTerminal(const std::vector<std::string>& argv, const std::string& prompt,
                             const std::string& answer, const std::function<void()>& on_prompt) {
  int master = -1, slave = -1;
  Check(openpty(&master, &slave, nullptr, nullptr, nullptr) == 0, "openpty");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    posix_spawn_file_actions_adddup2(&actions, slave, fd);
  }
  posix_spawn_file_actions_addclose(&actions, master);
  posix_spawn_file_actions_addclose(&actions, slave);
  std::vector<char*> args = Pointers(argv);
  pid_t pid;
  Check(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) == 0, "posix_spawn");
  posix_spawn_file_actions_destroy(&actions);
  close(slave);
  TerminalResult result;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(master, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO once the child has exited and the terminal has no other user
    result.out.append(buffer, static_cast<std::size_t>(n));
    if (!result.prompted && result.out.find(prompt) != std::string::npos) {
      result.prompted = true;
      if (on_prompt) on_prompt();
      // In canonical mode the terminal's end-of-file character ends the read with nothing.
      std::string typed = answer.empty() ? std::string(1, '\x04') : answer;
      Check(write(master, typed.data(), typed.size()) == static_cast<ssize_t>(typed.size()),
            "write to the terminal");
    }
  }
  close(master);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace agentrt::testing
