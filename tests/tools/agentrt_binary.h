// tests/tools/agentrt_binary.h
//
// The built `agentrt` binary, run as a user runs it. Every command-line test target defines
// AGENTRT_BIN (the binary's path) when it includes this header.
#pragma once

#include <string>
#include <vector>

#include "tests/tools/child_process.h"

namespace agentrt::testing {

// Runs `agentrt ARGS...` with `input` on its standard input and waits for it to exit.
inline ProcessResult Agentrt(std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), AGENTRT_BIN);
  return RunProcess(args, input);
}

}  // namespace agentrt::testing
