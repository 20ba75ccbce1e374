// testkit/recheck_check.h
//
// Re-check helpers (docs/testkit.md): a product proves its policy
// decides from its input only — the request and the run view it is handed — by re-asking it
// every evaluation a run recorded (runtime/operator/recheck.h) and getting the same answers. A
// policy that reads anything else (a counter, the clock, a database) answers differently and fails.
// A re-check that proves nothing fails too: a run with no evaluation, or only evaluations that
// cannot be re-checked (a policy that failed, a run recorded before evaluations were kept).
//
// RecheckDiffers is for reviewing a policy change: it names the steps a second policy would
// decide differently. (The reference calls the first two Recheck and RecheckPartial; here they
// are named apart from agentrt::Recheck, which argument-dependent lookup would also find.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/policy.h"
#include "runtime/store/store.h"
#include "testkit/crash_harness.h"
#include "testkit/report.h"

namespace agentrt::testkit {

// Recheck re-asks `policy` every evaluation of `run_id`. Failures: each evaluation decided
// differently, each that could not be re-checked, and nothing re-checked at all. Errors: the
// run cannot be read (NotFound for an unknown run).
absl::StatusOr<Report> RecheckSame(store::Store& store, std::string_view run_id, Policy& policy);

// RecheckPartial is Recheck that tolerates evaluations that cannot be re-checked (they become
// notes); at least one must still be re-checked, and none may differ.
absl::StatusOr<Report> RecheckSamePartial(store::Store& store, std::string_view run_id,
                                          Policy& policy);

// RecheckSame(scenario) drives the scenario once, uncrashed, in a temporary database, and
// re-checks its run with the scenario's own policy.
absl::StatusOr<Report> RecheckSame(const Scenario& scenario);

// The steps a second policy decides differently.
struct Changes {
  std::vector<int> steps;          // step indexes, in order, each once
  std::vector<std::string> lines;  // "step 2 (pay): allow -> deny", one per changed evaluation
  std::string Text() const;        // the lines, sanitized, one a line
};

// RecheckDiffers re-asks `second` every evaluation of `run_id` and names the steps it changes.
absl::StatusOr<Changes> RecheckDiffers(store::Store& store, std::string_view run_id,
                                       Policy& second);
// RecheckDiffers(scenario, second) drives the scenario once (with its own policy) and names
// the steps `second` would decide differently.
absl::StatusOr<Changes> RecheckDiffers(const Scenario& scenario, Policy& second);

}  // namespace agentrt::testkit
