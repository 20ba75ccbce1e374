// runtime/operator/recheck.h
//
// Re-checking a run (reference/core.md §8): every policy evaluation the run recorded is asked
// again of a policy — today's, or a stricter one under review — with the request and the run
// view rebuilt from what was stored (the spec by its recorded hash, the arguments from the
// step, the run's counters and the first N steps and approvals as they stood). The report
// names each evaluation that would now be decided differently. Writes nothing, reads no clock.
//
// Same means the same outcome and, for require_approval, the same approval kind and approval
// hash (so a changed capability or presentation is a difference). The reason text is never
// compared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/policy.h"
#include "runtime/store/store.h"
#include "runtime/tool.h"

namespace agentrt {

enum class RecheckResult { kSame, kDifferent, kNotAPolicyEvaluation, kNotRecheckable };
std::string_view ToString(RecheckResult r);

struct RecheckedEvaluation {
  int step_index = 0;
  std::string step_id;
  std::int64_t seq = 0;
  std::string tool;
  bool on_resume = false;
  RecheckResult result = RecheckResult::kNotRecheckable;
  std::string recorded;   // recorded outcome (and kind)
  std::string rechecked;  // the new outcome (and kind)
  std::string detail;     // why different / not re-checkable
};

struct RecheckReport {
  std::string run_id;
  std::string policy_id;  // the re-checking policy's Id()
  // Whether the re-checking policy is the one that decided: "unknown" when either side has no
  // id (or nothing was re-checked), "changed" when any recorded id differs, else "unchanged".
  std::string identity = "unknown";
  RunStatus run_status = RunStatus::kRunning;
  std::vector<RecheckedEvaluation> evaluations;
  int same = 0;
  int different = 0;
  int not_recheckable = 0;
  std::vector<std::string> notes;

  bool Same() const { return different == 0; }
};

// Recheck re-asks `policy` every evaluation of `run_id`. With `current_tools`, requests carry
// each tool's current spec instead of the recorded one (a tool no longer present is a
// difference). Errors: NotFound for an unknown run.
absl::StatusOr<RecheckReport> Recheck(store::Store& store, std::string_view run_id, Policy& policy,
                                      const std::vector<Tool*>* current_tools = nullptr);

// RecheckJson renders the report as one canonical JSON object.
std::string RecheckJson(const RecheckReport& report);

// FormatRecheck renders the report as text: a header, differences first, one escaped line per
// evaluation, then notes.
std::string FormatRecheck(const RecheckReport& report);

}  // namespace agentrt
