// tests/support/process_gone.h
//
// Whether a process a test started (or that a test's child started) is gone, for tests that
// check nothing outlives a Close. Test-only.
#pragma once

#include <sys/types.h>

#include "absl/time/time.h"

namespace agentrt::test_support {

// ProcessGone: `pid` can no longer be signalled, or is a zombie whose parent has died (the
// kernel handed it to init, which reaps it in its own time).
bool ProcessGone(pid_t pid);

// ProcessGoneWithin polls for `pid` to be gone, up to `limit` of real time; when it is not, it
// kills it (so no test leaves it behind) and returns false.
bool ProcessGoneWithin(pid_t pid, absl::Duration limit);

}  // namespace agentrt::test_support
