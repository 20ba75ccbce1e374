// sim/verdict.h
//
// Judging a play: what the scenario expected against what happened (the first difference, said
// so that a reviewer sees at once what changed), and the invariants that must hold after every
// scenario whatever it expects:
//  1. no effect without authority, none twice: every tools/call that reached a server matches
//     its own step.tool_started (same tool, the agent's arguments all present), whose step the
//     policy allowed or whose grant an operator approved (the starts and their authority are
//     runtime/operator/executions.h's reading, the crash harness's too);
//  2. every tool is accounted for: each tool a server offered at load time and each it pinned
//     is registered or in the report (refused, unpinned, unclassified), or its server's load
//     failed with a reason;
//  3. the audit chain verifies;
//  4. the run ended or paused within its limits (never left running, never past max_steps);
//  5. nothing a server chose reaches a trace line, a report line or an error unescaped: each is
//     one line that json::Sanitize leaves as it is;
//  6. no secret of a simulated authorization (a token an authorization server issued, the
//     operator's client secret) reaches an event payload, a report or an error.
#pragma once

#include <string>
#include <vector>

#include "sim/play.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// FirstDifference is "" when `outcome` is what `expect` says, else the first difference, e.g.
// `status: expected completed, got waiting_for_approval (approval_required)`.
std::string FirstDifference(const v1::Expect& expect, const Outcome& outcome);

// BrokenInvariants lists every invariant `outcome` breaks, each naming what broke it.
std::vector<std::string> BrokenInvariants(const Outcome& outcome);

}  // namespace agentrt::sim
