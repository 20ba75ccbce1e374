// tools/agentrt/sim_scenarios.h
//
// `agentrt sim run|swarm|shrink`: the simulator's commands over scenarios (docs/simulator.md):
//   run     play scenarios (each twice), one verdict line each and a summary, JSON or JUnit;
//   swarm   play scenarios under many seeds that perturb the world, checking the invariants;
//   shrink  reduce a failing seed's scenario to a minimal one and write it.
// Each takes the words after its subcommand; sim_command.h dispatches the `sim` family.
#pragma once

#include <span>
#include <string>

namespace agentrt::cli {

int RunSimRun(std::span<const std::string> args);
int RunSimSwarm(std::span<const std::string> args);
int RunSimShrink(std::span<const std::string> args);

}  // namespace agentrt::cli
