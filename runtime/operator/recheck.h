// runtime/operator/recheck.h
//
// Re-checking a run (docs/operators.md, "recheck"): every policy evaluation the run recorded is
// asked again of a policy — today's, or a stricter one under review — with the request and the run
// view rebuilt from what was stored (the spec by its recorded hash, the arguments from the
// step, the run's counters and the first N steps and approvals as they stood). The report
// names each evaluation that would now be decided differently. Writes nothing, reads no clock.
//
// Same means the same outcome and, for require_approval, the same approval kind and approval
// hash (so a changed capability or presentation is a difference). The reason text is never
// compared. An answer the driver refused as invalid (a capability or presentation that is not
// JSON) is the same only when the policy's new answer is refused for the same reason.
//
// What is not a policy's evaluation is listed, not re-checked: the runtime's own pause of an
// interrupted side effect and a reconciliation's pause (not_a_policy_evaluation); a policy that
// failed, an evaluation recorded before schema version 6 (no view, no spec) or one whose record
// cannot be read (not_recheckable, and the report is not Complete()).
//
// Bounded memory on a database of any size: the run's events are read 128 at a time with each
// payload capped at Store::kMaxPageText characters (a step.policy or run.created cut there is
// not re-checkable); what is held besides is what the evaluations hand the policy — the run's
// steps and its first approvals (at most 1024, read whole, as the policy was handed them).
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
  std::int64_t seq = 0;  // the step.policy event (or the step.failed of a policy that failed)
  std::string tool;
  bool on_resume = false;  // asked again when a granted approval was resumed
  RecheckResult result = RecheckResult::kNotRecheckable;
  std::string recorded;   // recorded outcome (and kind)
  std::string rechecked;  // the new outcome (and kind)
  // require_approval: the approval hash the recorded evaluation asked for (the stored
  // approval's hash) and the one the new answer asks for; "" otherwise.
  std::string recorded_hash;
  std::string rechecked_hash;
  std::string detail;       // why different / not re-checkable / the same refusal
  std::string spec_source;  // "recorded" or "current" once re-checked; "" otherwise
  std::string policy_id;    // the recorded evaluation's policy identity ("" when none)
};

struct RecheckReport {
  std::string run_id;
  std::string policy_id;  // the re-checking policy's Id()
  // Whether the re-checking policy is the one that decided: "unknown" when either side has no
  // id (or nothing was re-checked), "changed" when any recorded id differs, else "unchanged".
  std::string identity = "unknown";
  // "recorded": requests carry the specs the run recorded; "current": the tools given now.
  std::string spec_source = "recorded";
  RunStatus run_status = RunStatus::kRunning;
  std::string run_unknown_status;  // Run::unknown_status: shown instead of run_status when set
  std::vector<RecheckedEvaluation> evaluations;
  int same = 0;
  int different = 0;
  int not_recheckable = 0;
  std::vector<std::string> notes;

  bool Same() const { return different == 0; }
  bool Complete() const { return not_recheckable == 0; }
};

// Recheck re-asks `policy` every evaluation of `run_id`. With `current_tools`, requests carry
// each tool's current spec instead of the recorded one (a tool no longer present, or whose
// schema now refuses the arguments, is a difference). Errors: NotFound for an unknown run;
// InvalidArgument for a policy identity the driver would refuse (rows::CheckPolicyId) or
// current tools holding a null tool or two of one name.
absl::StatusOr<RecheckReport> Recheck(store::Store& store, std::string_view run_id, Policy& policy,
                                      const std::vector<Tool*>* current_tools = nullptr);

// RecheckJson renders the report as one canonical JSON object.
std::string RecheckJson(const RecheckReport& report);

// FormatRecheck renders the report as text: a header, differences first, one escaped line per
// evaluation, then notes.
std::string FormatRecheck(const RecheckReport& report);

}  // namespace agentrt
