// tests/tools/child_process.h
//
// Runs a built binary as a child process the way a user's shell would, feeding it standard
// input and collecting standard output, standard error and the exit status. Test-only.
#pragma once

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

}  // namespace agentrt::testing
