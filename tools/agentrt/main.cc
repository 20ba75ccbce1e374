// tools/agentrt/main.cc
//
// The `agentrt` command: one binary, subcommands, all named in one table (commands.h). Exit
// status 0 ok, 1 failure or finding, 2 usage error.
#include <string>
#include <vector>

#include "tools/agentrt/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return agentrt::cli::RunAgentrt(args);
}
