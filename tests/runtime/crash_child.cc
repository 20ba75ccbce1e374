// The process the crash-safety tests kill: it runs a seeded script against the crash world and,
// after every event it commits and around every side effect, prints a line and waits for one
// byte on standard input — so the test can SIGKILL it at an exact point.
//   crash_child DB EFFECTS SEED [--heartbeat]
// With --heartbeat the lease TTL is 1.5 s and every renewal prints "renewed" (without waiting),
// so a test can watch real time pass under a live lease.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/driver.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "tests/runtime/crash_world.h"

namespace {

void Pause(std::string_view what) {
  std::printf("%.*s\n", static_cast<int>(what.size()), what.data());
  std::fflush(stdout);
  char byte;
  if (::read(STDIN_FILENO, &byte, 1) != 1) std::_Exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) return 2;
  bool heartbeat = argc == 5 && std::string(argv[4]) == "--heartbeat";
  agentrt::world::RealClock clock;
  agentrt::world::RealScheduler scheduler;  // a real process: the heartbeat beats on wall time
  agentrt::world::SeededEntropy entropy(std::strtoull(argv[3], nullptr, 10) * 7919 + 1);
  auto store = agentrt::store::Store::Open(argv[1], clock);
  if (!store.ok()) return 1;
  (*store)->AddObserver([](const agentrt::store::Event& e) { Pause("event " + e.type); });
  agentrt::crash::AppendTool append(argv[2], [](std::string_view what) { Pause(what); });
  agentrt::crash::ReadTool read;
  agentrt::crash::IndexedAgent agent(agentrt::crash::Script(std::strtoull(argv[3], nullptr, 10)));
  auto policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&append, &read};
  options.lease_owner = "child";
  options.scheduler = &scheduler;
  // Long enough that a loaded machine still renews in time (beats every TTL/3).
  options.lease_ttl = heartbeat ? absl::Milliseconds(1500) : absl::Seconds(1);
  if (heartbeat) {
    options.on_lease_renewed = [] {
      std::printf("renewed\n");
      std::fflush(stdout);
    };
  }
  auto driver = agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return 1;
  auto run = (*driver)->StartWithId("crash-run", "append lines", agentrt::Limits{});
  Pause("done");
  return run.ok() ? 0 : 1;
}
