// sim/scenario_limits.h
//
// The bounds of a scenario file (docs/formats/scenario.md, "Bounds"). A scenario is untrusted
// input: a reviewer plays scenarios others wrote, so every size, count and duration a file can
// name is bounded, and a file past a bound is refused at read time naming the file, the field
// and the limit (scenario_file.h), before anything is played. Each bound is far past what a
// story needs and far below what would exhaust the machine; the ones that meet a client cap
// (text_bytes, max_content_bytes) stay past it, so a scenario can still show the cap holding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "absl/time/time.h"

namespace agentrt::sim {

// The file itself: it is read whole, and parsing costs a multiple of its size.
inline constexpr std::size_t kMaxScenarioFileBytes = std::size_t{4} << 20;  // 4 MiB

// `name`: it names the scenario's database files, so it is one short path component too
// (scenario_file.h, CheckScenarioName).
inline constexpr std::size_t kMaxScenarioNameBytes = 128;

// Counts.
inline constexpr int kMaxServers = 100;
// Tools a scenario lists in all, each `repeat` counted: the client refuses a listing past 1,000
// long before.
inline constexpr std::uint64_t kMaxTools = 100'000;
// Steps of the agent's script, replies of its model, and `limits.max_steps`.
inline constexpr int kMaxSteps = 1'000;
inline constexpr int kMaxApprovals = 1'000;
inline constexpr int kMaxPerturbations = 10'000;
// `limits.max_consecutive_tool_failures` and `limits.loop_threshold`.
inline constexpr int kMaxRunLimit = 1'000;
// A listing's `page_size` and `extra_pages` (the client stops at 100 pages), and an endpoint's
// `lose_session_after`.
inline constexpr std::uint32_t kMaxPageSize = 100'000;
inline constexpr std::uint32_t kMaxExtraPages = 10'000;
inline constexpr std::uint32_t kMaxLoseSessionAfter = 100'000;

// Sizes. A call's generated text stays past the client's 16 MiB message cap
// (mcp/stdio_transport.h), so an oversized answer can still be written.
inline constexpr std::uint64_t kMaxTextBytes = std::uint64_t{20} << 20;  // 20 MiB
inline constexpr std::uint64_t kMaxContentBytes = std::uint64_t{16} << 20;
// What the servers list in all: every tool's name, description, schema, annotations and raw
// JSON, times its `repeat`. The file holds a tool once; `repeat` would otherwise multiply it.
inline constexpr std::uint64_t kMaxListedBytes = std::uint64_t{64} << 20;  // 64 MiB

// Every duration: delays, timeouts (a rule's too), run limits, perturbations' delays and clock
// jumps. Virtual time costs nothing, but an hour-long wait is already past any story.
inline constexpr absl::Duration kMaxDuration = absl::Hours(24);

}  // namespace agentrt::sim
