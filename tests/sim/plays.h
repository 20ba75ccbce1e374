// tests/sim/plays.h
//
// What the simulator's play tests share: a read-then-write scenario, a scenario read from text
// (the file's checks passed), played once with the real client, runtime and store, and a run
// held to its status and effects with every invariant kept.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/play.h"
#include "sim/scenario_file.h"
#include "sim/verdict.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim::test_plays {

// A read tool and a write tool; the agent reads, writes (allowed), completes.
inline constexpr char kReadThenWrite[] = R"(
servers {
  name: "fs"
  tools {
    name: "read"
    input_schema_json: '{"type":"object","properties":{"path":{"type":"string"}}}'
    calls { text: "contents" }
  }
  tools {
    name: "write"
    input_schema_json: '{"type":"object","properties":{"path":{"type":"string"}}}'
    calls { text: "written" }
  }
  rules_json: '{"read":{"side_effect":"read_only","timeout":"30s"},'
              '"write":{"side_effect":"local_mutation","timeout":"30s"}}'
}
agent {
  steps { call { tool: "fs_read" args_json: '{"path":"a"}' } }
  steps { call { tool: "fs_write" args_json: '{"path":"b"}' } }
  steps { complete_json: '{}' }
}
policy { read_only: ALLOW local_mutation: ALLOW }
)";

inline v1::Scenario Parse(std::string_view text) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(text, "test.textproto");
  EXPECT_OK(scenario);
  return *scenario;
}

inline Outcome PlayOk(const v1::Scenario& scenario, std::uint64_t seed = 1) {
  PlayOptions options;
  options.seed = seed;
  absl::StatusOr<Outcome> outcome = Play(scenario, options);
  EXPECT_OK(outcome);
  return *std::move(outcome);
}

// The play's run is in `status` after `effects` calls reached the servers, every invariant kept.
inline void ExpectRun(const Outcome& outcome, RunStatus status, std::size_t effects) {
  ASSERT_TRUE(outcome.run.has_value());
  EXPECT_EQ(outcome.run->status, status);
  EXPECT_EQ(outcome.effects.size(), effects);
  EXPECT_THAT(BrokenInvariants(outcome), ::testing::IsEmpty());
}

}  // namespace agentrt::sim::test_plays
