// tests/tools/child_process.h
//
// Runs a built binary as a child process the way a user's shell would, feeding it standard
// input and collecting standard output, standard error and the exit status. Test-only.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace agentrt::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when the child did not exit normally
  std::string out;
  std::string err;
};

// RunProcess starts argv[0] with `argv`, writes `input` to its standard input and closes it,
// and waits for it to exit. Aborts the test binary if the process cannot be started.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input = "");

// What else a child can be given.
struct ProcessOptions {
  std::string input;  // written to its standard input, which is then closed
  // When set, its standard output is this file, opened for writing (e.g. "/dev/full"), and
  // `out` stays empty.
  std::string stdout_file;
  // NAME=value entries set in its environment (the test's own, otherwise).
  std::vector<std::string> env;
};
ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options);

// RunOnTerminal starts argv[0] with `argv` on a new pseudo-terminal (its standard input,
// output and error), as a person at a terminal would. When what it printed contains `prompt`,
// `answer` is typed (a line, e.g. "y\n"), or, when `answer` is empty, end of input (Ctrl-D).
// `on_prompt` runs just before, e.g. to change the database under the waiting command.
// Everything the terminal showed is in `out` (with "\r\n" line ends); `err` stays empty.
// `prompted` says whether the prompt appeared.
struct TerminalResult : ProcessResult {
  bool prompted = false;
};
TerminalResult RunOnTerminal(const std::vector<std::string>& argv, const std::string& prompt,
                             const std::string& answer,
                             const std::function<void()>& on_prompt = {});

}  // namespace agentrt::testing
