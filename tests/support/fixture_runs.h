// tests/support/fixture_runs.h
//
// The runs a released build writes into a database fixture (fixtures/databases/), and the world
// that can go on with them: the same tools, policy and scripts, on a manual clock and seeded
// ids, so a fixture written by one build is resumed by a later one after its migration.
//
// The runs, by id:
//   completed  a read, arguments the schema refuses, a destructive call denied, a local
//              mutation, then complete (COMPLETED)
//   waiting    a read, then a remote mutation that waits for an operator (WAITING_FOR_APPROVAL,
//              one pending approval); resumed after an approval, it posts and completes
//   rejected   a remote mutation the operator rejected (CANCELLED)
//   approved   a remote mutation approved and executed, then complete (COMPLETED)
//   failed     the agent gives up (FAILED, goal_failed)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/driver.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"

namespace agentrt::test_support {

inline constexpr const char* kFixtureRuns[] = {"completed", "waiting", "rejected", "approved",
                                               "failed"};

// A tool that answers what it was asked, and counts its calls.
class FixtureTool final : public Tool {
 public:
  FixtureTool(std::string name, SideEffect effect) : name_(std::move(name)), effect_(effect) {}
  ToolSpec Spec() const override;
  absl::StatusOr<ToolResult> Call(const ToolCall& call) override;
  int calls = 0;

 private:
  std::string name_;
  SideEffect effect_;
};

// Every run's script, chosen by the run's goal (its id), so one agent drives them all and a
// resumed run goes on by its step count.
class FixtureAgent final : public Agent {
 public:
  absl::StatusOr<Decision> Decide(const StepInput& input) override;
};

struct FixtureWorld {
  // `seed` seeds the ids: a world going on with a fixture written by another needs its own.
  explicit FixtureWorld(store::Store& store, std::uint64_t seed = 2026);
  absl::Status Open();  // creates the driver
  world::ManualClock clock{absl::FromUnixSeconds(1'800'000'000)};
  world::SeededEntropy entropy;
  FixtureTool look{"look", SideEffect::kReadOnly};
  FixtureTool note{"note", SideEffect::kLocalMutation};
  FixtureTool post{"post", SideEffect::kRemoteMutation};
  FixtureTool erase{"erase", SideEffect::kDestructive};
  FixtureAgent agent;
  std::unique_ptr<Policy> policy = DefaultPolicy();
  store::Store& store;
  std::unique_ptr<Driver> driver;
};

// Writes every run of kFixtureRuns into `store` (which holds none yet).
absl::Status WriteFixtureRuns(FixtureWorld& world);

// What the fixture's database holds, one line per fact: the chain's head; each run's status,
// reason, step count and event count; each step's id, status and observation hash; each
// approval's id, status and hash. Written beside the fixture when it is made, and compared
// after a later build migrated it: every row read back as it was.
absl::StatusOr<std::string> FixtureFingerprint(store::Store& store);

}  // namespace agentrt::test_support
