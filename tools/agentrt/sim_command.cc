#include "tools/agentrt/sim_command.h"

#include "runtime/json/sanitize.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/sim_record.h"
#include "tools/agentrt/sim_scenarios.h"

namespace agentrt::cli {
namespace {

constexpr char kHelp[] =
    R"(Usage: agentrt sim SUBCOMMAND [...]

The simulator (docs/simulator.md).

Subcommands:
  run PATH... [--json] [--junit FILE] [--db DIR]
                           play scenarios (each twice): one verdict line each and a summary
  swarm PATH... [--seeds N] [--jobs J] [--shard I/K]
                           play scenarios under seeds that perturb the world; check invariants
  swarm --generate [--seeds N] [--jobs J] [--shard I/K] [--keep DIR]
                           play generated worlds, one per seed; check invariants
  merge REPORT... [--json] [--junit FILE]
                           combine the reports of a swarm's shards (swarm --json) into one
  shrink SCENARIO --seed S [--write FILE]
                           reduce a failing seed's scenario to a minimal one and write it
  shrink --generate --seed S [--write FILE]
                           reduce a failing generated world to a minimal one and write it
  generate --seed S [--write FILE]
                           write the world a seed generates, as a scenario file
  record --config F --script S --out CASSETTE [--db PATH]
                           run an MCP configuration and a scripted agent for real, recorded
  replay CASSETTE [--db PATH]
                           replay a recorded run offline and check its chain head

Run 'agentrt sim SUBCOMMAND --help' for details.
)";

}  // namespace

int RunSimCommand(std::span<const std::string> args, Io& io) {
  if (args.empty()) {
    return UsageError(io, "sim",
                      "missing subcommand (run, swarm, merge, shrink, generate, record, replay)");
  }
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") return io.out << kHelp, kExitOk;
  if (sub == "run") return RunSimRun(args.subspan(1), io);
  if (sub == "swarm") return RunSimSwarm(args.subspan(1), io);
  if (sub == "merge") return RunSimMerge(args.subspan(1), io);
  if (sub == "shrink") return RunSimShrink(args.subspan(1), io);
  if (sub == "generate") return RunSimGenerate(args.subspan(1), io);
  if (sub == "record") return RunSimRecord(args.subspan(1), io);
  if (sub == "replay") return RunSimReplay(args.subspan(1), io);
  return UsageError(io, "sim", "unknown subcommand \"" + json::Sanitize(sub) + "\"");
}

}  // namespace agentrt::cli
