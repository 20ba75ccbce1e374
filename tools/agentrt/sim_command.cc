#include "tools/agentrt/sim_command.h"

#include <iostream>

#include "runtime/json/sanitize.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/sim_record.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt sim SUBCOMMAND [...]

The simulator (docs/simulator.md).

Subcommands:
  record --config F --script S --out CASSETTE [--db PATH]
                           run an MCP configuration and a scripted agent for real, recorded
  replay CASSETTE [--db PATH]
                           replay a recorded run offline and check its chain head

Run 'agentrt sim SUBCOMMAND --help' for details.
)";

}  // namespace

int RunSimCommand(std::span<const std::string> args) {
  if (args.empty()) return UsageError("sim", "missing subcommand (record, replay)");
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") return std::cout << kHelp, kExitOk;
  if (sub == "record") return RunSimRecord(args.subspan(1));
  if (sub == "replay") return RunSimReplay(args.subspan(1));
  return UsageError("sim", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
