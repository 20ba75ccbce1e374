// runtime/types.h
//
// The engine's vocabulary: runs, steps, decisions, observations, tool
// specs, policy decisions and limits, with the exact string values stored in the database and
// events. Why a run ended: reasons.h; the event types: events.h. Plain values: copying one never
// shares state with the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace agentrt {

enum class RunStatus {
  kRunning,
  kWaitingForApproval,
  kInterrupted,
  kCompleted,
  kFailed,
  kCancelled
};
enum class StepStatus { kDeciding, kAwaitingApproval, kExecuting, kDone, kFailed, kInterrupted };
enum class DecisionKind { kToolCall, kComplete, kFail, kTruncated, kNoToolCall, kUnknown };
enum class ObservationKind {
  kToolResult,
  kToolError,
  kPolicyDenied,
  kInvalidDecision,
  kInterrupted
};
// Why a tool call failed, as a failed observation's `failure` records it.
enum class ToolFailure { kError, kAbort, kTimeout, kCancelled, kInvalidContent };
enum class SideEffect { kReadOnly, kLocalMutation, kRemoteMutation, kDestructive };
enum class PolicyOutcome { kAllow, kRequireApproval, kDeny, kAbort, kUnknown };

std::string_view ToString(RunStatus s);
std::string_view ToString(StepStatus s);
std::string_view ToString(ObservationKind k);
std::string_view ToString(SideEffect s);
std::string_view ToString(ToolFailure f);
std::string_view ToString(PolicyOutcome o);
std::string_view ToString(DecisionKind k);  // "" for kUnknown
std::optional<RunStatus> ParseRunStatus(std::string_view s);
std::optional<StepStatus> ParseStepStatus(std::string_view s);
std::optional<SideEffect> ParseSideEffect(std::string_view s);
std::optional<ToolFailure> ParseToolFailure(std::string_view s);
std::optional<PolicyOutcome> ParsePolicyOutcome(std::string_view s);  // kUnknown never
// ParseDecisionKind: tool_call, complete, fail, or a model reply's pseudo-kinds (truncated,
// no_tool_call: render/decide.h); kUnknown for anything else an agent wrote.
DecisionKind ParseDecisionKind(std::string_view s);
bool IsTerminal(RunStatus s);

struct Limits {
  int max_steps = 50;
  int max_consecutive_tool_failures = 3;
  int loop_threshold = 3;
  absl::Duration max_active_time = absl::ZeroDuration();   // 0 = unlimited
  absl::Duration max_elapsed_time = absl::ZeroDuration();  // 0 = unlimited
  absl::Duration approval_ttl = absl::ZeroDuration();
  absl::Duration grant_ttl = absl::ZeroDuration();
  // Model accounting (0 = unlimited). Calls count every attempt, retries and ambiguous ones
  // included; the output cap clamps (or sets) each request's max_output_tokens.
  std::int64_t max_model_calls = 0;
  std::int64_t max_output_tokens_per_call = 0;
  std::int64_t max_total_tokens = 0;
  std::int64_t max_estimated_cost_micros = 0;

  // Validate: the three counts must be positive, durations and model limits not negative.
  absl::Status Validate() const;
  // ToJson is the canonical JSON stored as runs.limits_json; durations in nanoseconds.
  std::string ToJson() const;
};

// What the agent asked for. `args` and `result` are the agent's raw JSON bytes.
struct Decision {
  // tool_call, complete, fail (or what the agent wrote, kept as written for the record);
  // compare through Kind(), never the text.
  std::string kind;
  DecisionKind Kind() const { return ParseDecisionKind(kind); }
  std::string tool;
  std::string args;
  std::string reason;
  std::string result;
  std::string message;
  std::string origin;  // "", model, plan, operator
};

struct Observation {
  ObservationKind kind = ObservationKind::kToolResult;
  std::string content;  // canonical JSON
  std::string summary;
  std::string content_hash;

  bool is_failure() const { return kind != ObservationKind::kToolResult; }
};

struct ToolSpec {
  std::string name;
  std::string description;
  std::string input_schema;  // JSON Schema text
  SideEffect side_effect = SideEffect::kReadOnly;
  absl::Duration timeout = absl::ZeroDuration();
  bool terminal = false;  // success completes the run with the tool's content as result
};

struct PolicyDecision {
  PolicyOutcome outcome = PolicyOutcome::kDeny;
  std::string outcome_text;  // the outcome as the policy wrote it (kept for unknown ones)
  std::string reason;
  std::string kind;          // require_approval: approval kind
  std::string capability;    // require_approval: JSON
  std::string presentation;  // require_approval: JSON
};

struct Run {
  std::string id;
  std::string goal;
  RunStatus status = RunStatus::kRunning;
  // A run read from a database whose status column holds none of RunStatus's words (a damaged
  // or edited row): the text as stored, and `status` reads kFailed, so nothing acts on the run.
  // Empty otherwise. What shows the run shows this, never the status it was read as.
  std::string unknown_status;
  std::string reason;
  std::string reason_detail;
  Limits limits;
  int step_count = 0;
  absl::Time created_at = absl::InfinitePast();
  absl::Time finished_at = absl::InfinitePast();
  std::string result;
  absl::Duration active_time = absl::ZeroDuration();
  // Model accounting totals (kept by the model caller; zero until it exists).
  std::int64_t model_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t estimated_cost_micros = 0;
};

struct Step {
  std::string id;
  std::string run_id;
  int index = 0;
  StepStatus status = StepStatus::kDeciding;
  std::string unknown_status;  // as Run::unknown_status; `status` reads kFailed
  std::optional<Decision> decision;
  std::optional<PolicyDecision> policy;
  std::optional<Observation> observation;
  std::string spec_hash;
  absl::Time started_at = absl::InfinitePast();
  absl::Time finished_at = absl::InfinitePast();
  std::string decode_error;  // set when a stored column could not be read whole or decoded
};

enum class ApprovalStatus { kPending, kApproved, kRejected, kExpired };
std::string_view ToString(ApprovalStatus s);
std::optional<ApprovalStatus> ParseApprovalStatus(std::string_view s);

struct Approval {
  std::string id;
  std::string run_id;
  std::string step_id;
  std::string kind;
  std::string capability;    // canonical JSON
  std::string presentation;  // canonical JSON
  std::string request;       // canonical JSON: {args, run_id, spec, step_id}
  std::string hash;
  ApprovalStatus status = ApprovalStatus::kPending;
  // As Run::unknown_status; `status` reads kPending, and no decision can change such a row (a
  // decision changes only a row whose stored status is "pending").
  std::string unknown_status;
  absl::Time created_at = absl::InfinitePast();
  absl::Time expires_at = absl::InfinitePast();  // InfinitePast: never
  absl::Time decided_at = absl::InfinitePast();
  std::string decided_by;
  std::string note;
};

}  // namespace agentrt
