// tests/support/test_store.h
//
// The database a store or engine test runs on. A suite registered a second time for the
// PostgreSQL store (ctest's "[postgres]" tests, tests/CMakeLists.txt) runs with
// AGENTRT_TEST_POSTGRES naming the throwaway server tools/dev/postgres started; there each store
// is a new, empty schema of its own on that server, so tests never see each other's rows. Without
// it, the store is SQLite's, in memory. The same test, the same assertions: the golden traces and
// chain heads it checks hold on both. Test-only.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"

namespace agentrt::test_support {

// Whether this run's stores are on the test server.
bool OnTestServer();

// The test server's URL (its default schema); "" when there is none.
std::string ServerUrl();

// A URL naming a new, empty schema on the test server; "" when there is none.
std::string NewServerDatabase();

// The store of a test: records::OpenStoreInMemory(clock), or records::OpenStore on a new schema
// of the test server.
absl::StatusOr<std::unique_ptr<store::Store>> OpenTestStore(const world::Clock& clock);

// A database path for a test's store that other processes open too: a file in the test's
// folder named `name`, or a new schema on the test server.
std::string TestDatabase(std::string_view name);

// A throwaway server of one's own (tools/dev/postgres), stopped when the object goes: for a test
// that crashes its server, which would fail every test on the shared one, and for a benchmark.
// url() is "" when it could not be started (or, beside the test server, when there is none).
class OwnServer {
 public:
  // Beside the test server's folder.
  OwnServer();
  // In `dir`; `durable` keeps fsync on (tools/dev/postgres start --durable).
  OwnServer(std::string dir, bool durable);
  OwnServer(const OwnServer&) = delete;
  OwnServer& operator=(const OwnServer&) = delete;
  ~OwnServer();

  const std::string& url() const { return url_; }
  // The server's log (statements, when a session logs them).
  std::string log() const { return dir_ + "/server.log"; }
  // A URL naming the new schema `name` (store::CreateServerSchema); "" (the failure reported)
  // when it cannot be made.
  std::string NewSchema(std::string_view name);
  // Crashes the server (an immediate stop: no checkpoint, no clean shutdown) and starts it again.
  bool Crash();

 private:
  void Start(bool durable);

  std::string dir_;
  std::string url_;
};

}  // namespace agentrt::test_support
