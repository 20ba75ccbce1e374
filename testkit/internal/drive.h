// testkit/internal/drive.h
//
// Driving a scenario once, without a crash, into a database file: the uncrashed run of the
// crash harness, which other checks (re-checking a scenario's run) start from. Test-only.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "testkit/crash_harness.h"

namespace agentrt::testkit::internal {

// The id every scenario run has.
inline constexpr std::string_view kScenarioRun = "scenario-run";

// DriveOnce drives `scenario` in this process into the database at `db`, every pause answered
// as the scenario says, until the run ends. Errors: the run could not be driven.
absl::Status DriveOnce(const Scenario& scenario, const std::string& db);

}  // namespace agentrt::testkit::internal
