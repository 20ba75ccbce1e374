// tests/support/largest_allocation.h
//
// The largest single allocation made through operator new between Start and Stop: how a test
// sees that a long field (or a whole log) is never held at once. SQLite's own memory is not
// counted. Linking agentrt_largest_allocation replaces the program's operator new and delete
// (with malloc and free), so only a test executable links it.
#pragma once

#include <cstddef>

namespace agentrt::test_support {

// StartTrackingAllocations forgets what was seen before and starts watching.
void StartTrackingAllocations();
// StopTrackingAllocations stops watching and returns the largest allocation seen, in bytes.
std::size_t StopTrackingAllocations();

}  // namespace agentrt::test_support
