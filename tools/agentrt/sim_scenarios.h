// tools/agentrt/sim_scenarios.h
//
// `agentrt sim run|swarm|merge|shrink|generate`: the simulator's commands over scenarios
// (docs/simulator.md):
//   run       play scenarios (each twice), one verdict line each and a summary, JSON or JUnit;
//   swarm     play scenarios under many seeds that perturb the world, or generated worlds,
//             checking the invariants;
//   merge     combine the reports of a swarm's shards into one (JSON, lines or JUnit);
//   shrink    reduce a failing seed's scenario (or generated world) to a minimal one, write it;
//   generate  write the world a seed generates, as a scenario file.
// Each is its options (parsed from its own flags by Parse*), one call to the simulator
// (sim/swarm.h, sim/shrink.h) and a renderer to `io.out` (io.h); the Run* functions take the
// words after the subcommand (sim_command.h dispatches the `sim` family), the Sim* ones the
// options, so a test calls a command in-process. Exit codes as command_line.h says.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

struct SimRunOptions {
  std::vector<std::string> paths;    // scenario files and folders
  bool json = false;                 // one JSON object instead of lines
  std::string junit;                 // also write the verdicts as JUnit XML here
  std::string db;                    // keep each scenario's databases in this folder
  std::optional<std::int64_t> seed;  // play under this swarm seed's perturbations
};

struct SimSwarmOptions {
  std::vector<std::string> paths;
  std::int64_t seeds = 100;  // per scenario
  std::int64_t first_seed = 1;
  std::int64_t jobs = 1;  // threads playing seeds
  std::string shard;      // "I/K": only shard I of K
  bool generate = false;  // generated worlds instead of scenarios (no paths)
  std::string keep;       // write each failing generated world here, as <name>.textproto
  bool json = false;      // the report as one JSON object (sim/swarm_report.h) instead of lines
  std::string junit;      // also write the report as JUnit XML here
};

struct SimMergeOptions {
  std::vector<std::string> reports;  // the shards' `sim swarm --json` outputs
  bool json = false;                 // the merged report as JSON instead of lines
  std::string junit;                 // also write it as JUnit XML here
};

struct SimShrinkOptions {
  std::string scenario;              // "" with `generate`
  std::optional<std::int64_t> seed;  // the failing seed (required)
  std::string write;      // where the shrunk scenario goes ("": <scenario>.shrunk.textproto)
  bool generate = false;  // shrink the generated world of `seed`
};

struct SimGenerateOptions {
  std::optional<std::int64_t> seed;  // required
  std::string write;                 // "" prints the world on stdout
};

int SimRun(const SimRunOptions& options, Io& io);
int SimSwarm(const SimSwarmOptions& options, Io& io);
int SimMerge(const SimMergeOptions& options, Io& io);
int SimShrink(const SimShrinkOptions& options, Io& io);
int SimGenerate(const SimGenerateOptions& options, Io& io);

int RunSimRun(std::span<const std::string> args, Io& io);
int RunSimSwarm(std::span<const std::string> args, Io& io);
int RunSimMerge(std::span<const std::string> args, Io& io);
int RunSimShrink(std::span<const std::string> args, Io& io);
int RunSimGenerate(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
