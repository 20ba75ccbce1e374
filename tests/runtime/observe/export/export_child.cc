// The process the hard-kill test of the follower kills: it follows a database read-only with a
// file cursor and, for every event its sink takes, prints "seq N" and waits for one byte on
// standard input before returning — so the test can SIGKILL it between the sink and the
// cursor's save.
//   export_child DB CURSOR PAGE_SIZE
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/observe/export/cursor.h"
#include "runtime/observe/export/follower.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "tests/support/real_files.h"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  auto store = agentrt::records::OpenExistingStore(argv[1], /*read_only=*/true);
  if (!store.ok()) return 1;
  agentrt::exporter::FileCursor cursor(::agentrt::test_support::RealFiles(), argv[2]);
  agentrt::world::RealClock clock;
  agentrt::exporter::FollowerOptions options;
  options.store = store->get();
  options.cursor = &cursor;
  options.page_size = std::strtoll(argv[3], nullptr, 10);
  options.once = true;
  auto follower = agentrt::exporter::Follower::Create(options, clock);
  if (!follower.ok()) return 1;
  absl::Status followed = follower->Follow([](const agentrt::store::Event& e) -> absl::Status {
    std::printf("seq %lld\n", static_cast<long long>(e.seq));
    std::fflush(stdout);
    char byte;
    if (::read(STDIN_FILENO, &byte, 1) != 1) std::_Exit(3);
    return absl::OkStatus();
  });
  std::printf("done\n");
  return followed.ok() ? 0 : 1;
}
