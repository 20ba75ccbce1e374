// The process the crash-safety tests kill: it runs a seeded script against the crash world and,
// after every event it commits and around every side effect, prints a line and waits for one
// byte on standard input — so the test can SIGKILL it at an exact point.
//   crash_child DB EFFECTS SEED [--heartbeat]
// Without --heartbeat the lease is on wall time with a TTL of 1 s, so the test's resume finds it
// expired. With --heartbeat the lease clock is a manual one at kLeaseStart (TTL 30 s) that the
// test moves: at any wait the byte 'a' advances it 10 s — the heartbeat renews the lease, in
// this process, before "renewed" is printed — and the child keeps waiting; any other byte goes
// on. So the test watches lease time pass under a live lease without depending on real time.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/real_scheduler.h"
#include "tests/runtime/crash_world.h"

namespace {

constexpr absl::Time kLeaseStart = absl::FromUnixSeconds(2'000'000'000);

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) return 2;
  bool heartbeat = argc == 5 && std::string(argv[4]) == "--heartbeat";
  agentrt::world::RealClock clock;
  agentrt::world::RealScheduler real_scheduler;  // a real process: leases on wall time
  agentrt::world::ManualClock lease_clock(kLeaseStart);
  std::function<void(std::string_view)> pause = [&](std::string_view what) {
    std::printf("%.*s\n", static_cast<int>(what.size()), what.data());
    std::fflush(stdout);
    for (;;) {
      char byte;
      if (::read(STDIN_FILENO, &byte, 1) != 1) std::_Exit(3);
      if (!(heartbeat && byte == 'a')) return;
      lease_clock.Advance(absl::Seconds(10));  // the heartbeat beats here, on this thread
    }
  };
  agentrt::world::SeededEntropy entropy(std::strtoull(argv[3], nullptr, 10) * 7919 + 1);
  auto store = agentrt::records::OpenStore(argv[1], clock);
  if (!store.ok()) return 1;
  (*store)->AddObserver([&](const agentrt::store::Event& e) { pause("event " + e.type); });
  agentrt::crash::AppendTool append(argv[2], [&](std::string_view what) { pause(what); });
  agentrt::crash::ReadTool read;
  agentrt::crash::IndexedAgent agent(agentrt::crash::Script(std::strtoull(argv[3], nullptr, 10)));
  auto policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&append, &read};
  options.lease_owner = "child";
  if (heartbeat) {
    options.scheduler = &lease_clock;
    options.lease_ttl = absl::Seconds(30);
    options.on_lease_renewed = [] {
      std::printf("renewed\n");
      std::fflush(stdout);
    };
  } else {
    options.scheduler = &real_scheduler;
    options.lease_ttl = absl::Seconds(1);
  }
  auto driver = agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) return 1;
  auto run = (*driver)->StartWithId("crash-run", "append lines", agentrt::Limits{});
  pause("done");
  return run.ok() ? 0 : 1;
}
