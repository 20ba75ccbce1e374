// tools/agentrt/sim_command.h
//
// `agentrt sim SUBCOMMAND ...`: the simulator's family of commands. commands.cc dispatches on
// the first word, so every `sim` command has this one handler, which reads the second word and
// hands the rest to the subcommand (`sim run`, `sim swarm`, `sim shrink`: sim_scenarios.h;
// `sim record`, `sim replay`: sim_record.h).
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

// RunSimCommand runs `agentrt sim ARGS...`, `args` being the words after "sim". Returns the exit
// status: `--help` prints the family's help (0); no subcommand or an unknown one is a usage
// error naming it (2).
int RunSimCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
