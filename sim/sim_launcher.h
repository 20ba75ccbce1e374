// sim/sim_launcher.h
//
// The simulator's Launcher: its "processes" are fake MCP servers (fake_server.h) speaking
// newline-delimited JSON-RPC over simulated stdio, on the virtual clock, on the caller's thread.
// Started with argv {"sim-server", <name>}.
//
// A line written to a process's stdin is handled at once; the server's lines become readable at
// the virtual time the reply chose. A Read moves the virtual clock (running what the scheduler
// has due on the way) to the moment the next bytes are there, or to its deadline when none will
// be: so a 30-second timeout costs microseconds, and a server that never answers makes the
// client's deadline fire. A Read with no deadline that nothing could ever satisfy fails
// (Unavailable) instead of hanging the simulation.
//
// Kill() is the runtime's death (the simulator crashing the process that drives the run): every
// process it started is cut off — each later Read, Write or Start fails, and nothing more
// reaches a server.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/world/clock.h"
#include "runtime/world/launcher.h"
#include "sim/fake_server.h"

namespace agentrt::sim {

class SimLauncher final : public world::Launcher {
 public:
  // Not owned: the clock (moved by reads and waits) and the servers, by name.
  SimLauncher(world::ManualClock& clock, std::map<std::string, FakeServer*> servers);
  ~SimLauncher() override;

  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override;

  void Kill() { *dead_ = true; }

 private:
  world::ManualClock& clock_;
  std::map<std::string, FakeServer*> servers_;
  std::shared_ptr<bool> dead_ = std::make_shared<bool>(false);
  std::int64_t next_pid_ = 1000;
};

// Moves `clock` forward to `at` (never back), running the tasks due on the way.
void MoveClockTo(world::ManualClock& clock, absl::Time at);

}  // namespace agentrt::sim
