// tests/sim/reads_scenario.h
//
// A scenario the simulator's tests and the sim commands' tests share: one server whose read
// tool the agent calls twice before it completes, every call allowed. Append an `expect` block
// to hold it to an outcome.
#pragma once

namespace agentrt::sim::test_scenarios {

inline constexpr char kReadsScenario[] = R"(
name: "reads"
servers {
  name: "fs"
  tools {
    name: "read"
    input_schema_json: '{"type":"object","properties":{"path":{"type":"string"}}}'
    calls { text: "a" }
    calls { text: "b" }
  }
  rules_json: '{"read":{"side_effect":"read_only","timeout":"30s"}}'
}
agent {
  steps { call { tool: "fs_read" args_json: '{"path":"a"}' } }
  steps { call { tool: "fs_read" args_json: '{"path":"b"}' } }
  steps { complete_json: '{}' }
}
policy { read_only: ALLOW }
)";

// The same, expecting (robustly, so under any seed) an end no play gives: it always fails.
inline constexpr char kAlwaysFailingExpectation[] =
    R"(expect { status: "cancelled" robust: true })";

}  // namespace agentrt::sim::test_scenarios
