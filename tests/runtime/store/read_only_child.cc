// The child of StoreTest.ReadOnlyOpensADatabaseInADirectoryItCannotWrite: opens the database
// read-only, as a user who cannot write its directory, and prints what it read: "events N,
// chain ok" or "error: <status>". When started as root with a UID, it first becomes that user
// (and group), so the directory's permissions hold for it as they would for anyone.
//
//   read_only_child DB [UID]
#include <grp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/records/schema.h"
#include "runtime/store/store.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: read_only_child DB [UID]\n");
    return 2;
  }
  if (argc > 2) {
    auto id = static_cast<uid_t>(std::strtoul(argv[2], nullptr, 10));
    if (::setgroups(0, nullptr) != 0 || ::setgid(id) != 0 || ::setuid(id) != 0) {
      std::perror("read_only_child: cannot become the user");
      return 2;
    }
  }
  auto store = agentrt::records::OpenExistingStore(argv[1], /*read_only=*/true);
  if (!store.ok()) {
    std::printf("error: %s\n", store.status().ToString().c_str());
    return 1;
  }
  auto events = (*store)->ListEvents("");
  auto chain = (*store)->VerifyEvents();
  if (!events.ok() || !chain.ok()) {
    std::printf("error: %s\n",
                (!events.ok() ? events.status() : chain.status()).ToString().c_str());
    return 1;
  }
  std::printf("events %zu, chain %s\n", events->size(), chain->broken ? "broken" : "ok");
  return 0;
}
