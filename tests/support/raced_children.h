// tests/support/raced_children.h
//
// Child processes started together at a barrier, as drivers on several hosts would race: each
// child prints "ready" when it is set up, waits for one byte on its standard input (the start
// line, given to every child at once), then prints one line of what it did and exits. Used by
// the races of tests/runtime/concurrent_resume_test.cc and the drivers of
// tests/bench/store_scale_bench.cc (their children: tests/runtime/race_child.cc). Header-only,
// test-only.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

extern char** environ;

namespace agentrt::test_support {

struct Race {
  std::vector<std::string> ready;  // what each child said first ("ready" when it was)
  std::vector<std::string> said;   // what each said after the start line, in command order
  double seconds = 0;              // from the start line to the last child's line
  bool all_exited_zero = true;
};

namespace internal_race {

struct Child {
  pid_t pid = -1;
  int to = -1;
  FILE* from = nullptr;
};

inline Child Spawn(const std::vector<std::string>& args) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) std::abort();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child child;
  if (::posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::abort();
  }
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  child.to = to_child[1];
  child.from = ::fdopen(from_child[0], "r");
  return child;
}

inline std::string Line(FILE* from) {
  char buffer[1024];
  if (std::fgets(buffer, sizeof buffer, from) == nullptr) return "";
  std::string line(buffer);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

}  // namespace internal_race

// Starts every command, waits for each to say its first line, runs `after_ready` (when given),
// gives them all the start line, and collects what each says next and how it exits.
inline Race RaceChildren(const std::vector<std::vector<std::string>>& commands,
                         const std::function<void()>& after_ready = {}) {
  using internal_race::Child;
  std::vector<Child> children;
  for (const std::vector<std::string>& command : commands) {
    children.push_back(internal_race::Spawn(command));
  }
  Race race;
  for (Child& c : children) race.ready.push_back(internal_race::Line(c.from));
  if (after_ready) after_ready();
  auto start = std::chrono::steady_clock::now();
  for (Child& c : children) {
    if (::write(c.to, "g", 1) != 1) race.all_exited_zero = false;
  }
  for (Child& c : children) race.said.push_back(internal_race::Line(c.from));
  race.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (Child& c : children) {
    int status = 0;
    if (::waitpid(c.pid, &status, 0) != c.pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      race.all_exited_zero = false;
    }
    std::fclose(c.from);
    ::close(c.to);
  }
  return race;
}

}  // namespace agentrt::test_support
