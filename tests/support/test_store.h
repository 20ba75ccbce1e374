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

}  // namespace agentrt::test_support
