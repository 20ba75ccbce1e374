// testkit/internal/world.h
//
// What the kit's run-driving checks share (a temporary folder for a real database file is
// runtime/base/temp_dir.h's TempDir): the fixed times runs are driven at, the code a deliberately
// crashed child exits with, and the policies the kit drives runs with when the product's own is not
// the point. Test-only.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/base/temp_dir.h"
#include "runtime/policy.h"

namespace agentrt::testkit::internal {

// The run clock every process of a kit run reads (it never moves by itself), and the lease
// clock of the first process; each later process's lease clock is far enough past the
// previous one's that a dead owner's lease has expired.
inline constexpr std::int64_t kRunSeconds = 1'800'000'000;
inline absl::Time RunTime() { return absl::FromUnixSeconds(kRunSeconds); }
inline absl::Time LeaseTime(int process, absl::Duration ttl) {
  return absl::FromUnixSeconds(kRunSeconds) + (2 * ttl + absl::Seconds(1)) * process;
}

// The exit code of a child stopped at its crash point (anything else is not a planned crash).
inline constexpr int kCrashed = 86;

// Allows every request.
std::unique_ptr<Policy> AllowEverything();
// Requires approval (kind "testkit") of every request; the same request asks the same
// approval, so a granted one runs on resume.
std::unique_ptr<Policy> ApproveEverything();

}  // namespace agentrt::testkit::internal
