// runtime/world/world.h
//
// The injected world as one value: everything a run touches outside its own memory and its
// database, which a composition root (the agentrt command, a product's main, a test, the
// simulator) builds once, real, recorded, replayed or simulated, and hands to what it composes.
// The parts are not owned.
#pragma once

namespace agentrt::world {

class Clock;
class Scheduler;
class Entropy;
class Environment;
class Launcher;
class Network;
class Filesystem;

struct World {
  const Clock* clock = nullptr;    // the run's clock: events, deadlines, retries
  Scheduler* scheduler = nullptr;  // background work; its clock() is the one leases are judged by
  Entropy* entropy = nullptr;      // ids and nonces
  Launcher* launcher = nullptr;    // child processes (MCP stdio servers); may be null
  Network* network = nullptr;      // HTTP (MCP streamable HTTP, providers); may be null
  Environment* environment = nullptr;  // this process's variables (a child's PATH); may be null
  Filesystem* filesystem = nullptr;    // files: an operator's, manifests, cassettes; may be null
};

}  // namespace agentrt::world
