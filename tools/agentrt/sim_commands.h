// tools/agentrt/sim_commands.h
//
// `agentrt sim run|swarm|shrink`: the simulator's commands (docs/simulator.md):
//   run     play scenarios (each twice), one verdict line each and a summary, JSON or JUnit;
//   swarm   play scenarios under many seeds that perturb the world, checking the invariants;
//   shrink  reduce a failing seed's scenario to a minimal one and write it.
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

// `words` are the words after "sim": the subcommand first.
int RunSimCommand(std::span<const std::string> words);

}  // namespace agentrt::cli
