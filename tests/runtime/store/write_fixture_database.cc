// Writes the database fixture of this build (tests/support/fixture_runs.h): the runs into a new
// database file at ARGV[1], and their fingerprint to ARGV[2]. Run once per released schema
// version, its output committed under fixtures/databases/ (see the README there); later builds
// migrate a copy and compare.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "runtime/records/schema.h"
#include "tests/support/fixture_runs.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: write_fixture_database DATABASE FINGERPRINT\n";
    return 2;
  }
  using agentrt::test_support::FixtureWorld;
  agentrt::world::ManualClock store_clock(absl::FromUnixSeconds(1'800'000'000));
  absl::StatusOr<std::unique_ptr<agentrt::store::Store>> store =
      agentrt::records::OpenStore(argv[1], store_clock);
  if (!store.ok()) {
    std::cerr << "write_fixture_database: " << store.status() << "\n";
    return 1;
  }
  FixtureWorld world(**store);
  if (absl::Status written = agentrt::test_support::WriteFixtureRuns(world); !written.ok()) {
    std::cerr << "write_fixture_database: " << written << "\n";
    return 1;
  }
  absl::StatusOr<std::string> fingerprint = agentrt::test_support::FixtureFingerprint(**store);
  if (!fingerprint.ok()) {
    std::cerr << "write_fixture_database: " << fingerprint.status() << "\n";
    return 1;
  }
  std::ofstream(argv[2]) << *fingerprint;
  return 0;
}
