// tests/support/largest_allocation.h
//
// The largest single allocation made through operator new between Start and Stop: how a test
// sees that a long field (or a whole log) is never held at once; and the bytes live at any
// moment, for a benchmark of what a long run holds. SQLite's own memory is not
// counted. Linking agentrt_largest_allocation replaces the program's operator new and delete
// (with malloc and free), so only a test executable links it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace agentrt::test_support {

// StartTrackingAllocations forgets what was seen before and starts watching.
void StartTrackingAllocations();
// StopTrackingAllocations stops watching and returns the largest allocation seen, in bytes.
std::size_t StopTrackingAllocations();

// LiveBytes is what operator new has handed out and delete not yet taken back, in bytes as the
// allocator sized them, counted always (a benchmark subtracts a reading from a later one).
std::int64_t LiveBytes();

}  // namespace agentrt::test_support
