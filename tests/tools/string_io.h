// tests/tools/string_io.h
//
// An `agentrt` command run in-process (tools/agentrt/io.h): its standard input a string, and
// what it wrote to standard output and to standard error kept apart, so a test checks which
// stream got the text as well as the text. The in-process twin of agentrt_binary.h, which
// starts the binary. Header-only, test-only.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/agentrt/commands.h"
#include "tools/agentrt/io.h"

namespace agentrt::testing {

// The streams of one command: `input` to read, two strings written.
class StringIo {
 public:
  explicit StringIo(std::string input = "") : in_(std::move(input)) {}

  cli::Io& io() { return io_; }
  std::string out() const { return out_.str(); }
  std::string err() const { return err_.str(); }

 private:
  std::istringstream in_;
  std::ostringstream out_;
  std::ostringstream err_;
  cli::Io io_{.in = in_, .out = out_, .err = err_};
};

struct InProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `agentrt ARGS...` in this process with `input` on its standard input.
inline InProcessResult AgentrtInProcess(const std::vector<std::string>& args,
                                        const std::string& input = "") {
  StringIo streams(input);
  int exit_code = cli::RunAgentrt(args, streams.io());
  return {exit_code, streams.out(), streams.err()};
}

}  // namespace agentrt::testing
