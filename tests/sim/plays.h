// tests/sim/plays.h
//
// What the simulator's play tests share: a scenario read from text (the file's checks passed),
// played once with the real client, runtime and store, and a run held to its status and
// effects with every invariant kept.
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
