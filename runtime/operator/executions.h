// runtime/operator/executions.h
//
// What a run's log says about its tool executions, read in one walk of its events: each tool
// start with the authority it ran under, the starts never ended, the starts per step and per
// grant, and the interruptions. The invariants that the simulator's verdict (sim/verdict.h: no
// effect without authority or twice) and the consumers' crash harness (testkit's
// crash_harness.h: nothing re-executes on its own, an approved request executes at most once,
// every start is ended) hold a run to are judged on this one reading, so the two never read the
// log two ways.
//
// Payloads are read with the typed decoders (runtime/records/event_payloads.h); a start whose
// payload does not decode is still a start (of no tool, under no authority).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "runtime/store/store.h"

namespace agentrt {

struct ToolStart {
  std::int64_t seq = 0;
  std::string step_id;
  std::string tool;         // the model-visible name
  std::string args = "{}";  // canonical JSON, as recorded
  std::string approval_id;  // the grant it executes, "" for a call the policy allowed
  // The policy allowed the step, or an operator approved the grant, before the start.
  bool authorized = false;
  // The step's previous start had not ended (finished or interrupted) when this one began.
  bool while_open = false;
};

struct Executions {
  std::vector<ToolStart> starts;                       // in the log's order
  std::vector<std::string> never_ended;                // steps whose last start never ended
  std::map<std::string, int> starts_by_step;           // step -> its starts
  std::map<std::string, int> starts_by_grant;          // approval -> starts under it
  std::map<std::string, std::int64_t> requested_at;    // approval -> seq of approval.requested
  std::map<std::string, std::int64_t> interrupted_at;  // step -> seq of its first interruption
  std::set<std::string> interrupted_executing;         // steps interrupted while executing
};

// ReadExecutions walks `events` (one run's, in seq order).
Executions ReadExecutions(std::span<const store::Event> events);

}  // namespace agentrt
