// runtime/records/rows.h
//
// Every SQL statement agentrt runs about runs, steps, approvals, model calls and recorded tool
// specs, in one place (docs/formats/database.md has the tables). The store keeps the
// connection, the migrations and the event chain; everything above it reads and writes rows
// only through these functions, inside the caller's transaction (store::Store::Write or Read),
// so the statement that guards a state change and the change itself are easy to see together,
// and a change to a table is made in one file.
//
// The functions hold no policy: they bind parameters, run one statement and decode what it
// returned. Guards are spelled as compare-and-set conditions in the statements themselves (a
// step ends only from the status it was in, a decision is recorded only while deciding, ...);
// a function returns whether its row changed, and deciding what that means is the caller's.
// Text read from the database is untrusted: an integer column someone rewrote reads as 0
// (store::ToInt), an unknown status as the function says.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/approvals.h"
#include "runtime/json/document.h"
#include "runtime/store/store.h"
#include "runtime/types.h"

namespace agentrt::rows {

// --- Runs -----------------------------------------------------------------------------------

struct NewRun {
  std::string_view id;
  std::string_view goal;
  std::string_view limits_json;
  std::string_view created_at;  // also started_at
  std::string_view lease_owner;
  std::string_view lease_expires_at;
};
// InsertRun writes a RUNNING run, leased to its creator.
absl::Status InsertRun(store::Transaction& tx, const NewRun& run);

// What the guards of a write need to know about a run, in one read.
struct RunState {
  std::string status;  // as stored (RUNNING, WAITING_FOR_APPROVAL, ...)
  std::string reason;
  std::string lease_owner;       // "" when nobody holds it
  std::string lease_expires_at;  // stored timestamp text; "" when unheld
  std::int64_t step_count = 0;
};
// ReadRunState: nullopt when there is no such run.
absl::StatusOr<std::optional<RunState>> ReadRunState(store::Transaction& tx,
                                                     std::string_view run_id);

// ReadRun reads a run whole, decoded (limits from limits_json, a member it lacks as 0; a limits
// column that is not JSON leaves the limits at their defaults). nullopt when there is no such
// run.
absl::StatusOr<std::optional<Run>> ReadRun(store::Transaction& tx, std::string_view run_id);
// RefreshRun reads again only what changes while a run lives (status, reason and detail, step
// count, finish, result, active time, model totals) into `run`, read whole before: a run's id,
// goal, limits and creation never change. False when there is no such run.
absl::StatusOr<bool> RefreshRun(store::Transaction& tx, Run& run);

// The run columns a summary shows, with the goal, status, reason and reason detail cut inside
// SQLite to `max_text` bytes (a NUL among them kept), so a huge goal is never read whole. Limits,
// result and active time are not read.
struct RunsPage {
  std::vector<Run> runs;
  std::int64_t total = 0;
};
// ReadCappedRun: one run (nullopt when there is none). ReadCappedRunsPage: at most `limit`
// runs from `offset`, newest first, and the total.
absl::StatusOr<std::optional<Run>> ReadCappedRun(store::Transaction& tx, std::string_view run_id,
                                                 std::int64_t max_text);
absl::StatusOr<RunsPage> ReadCappedRunsPage(store::Transaction& tx, std::int64_t limit,
                                            std::int64_t offset, std::int64_t max_text);

// ClaimStep counts the step at `index` and renews the lease, only while the run is RUNNING at
// that step count and leased to `owner`: of two loops on one run, exactly one claims each step.
// Returns whether it claimed.
absl::StatusOr<bool> ClaimStep(store::Transaction& tx, std::string_view run_id, std::int64_t index,
                               std::string_view owner, std::string_view expiry);

// SetLeaseExpiry moves the lease's expiry (the caller has checked it holds the lease).
absl::Status SetLeaseExpiry(store::Transaction& tx, std::string_view run_id,
                            std::string_view expiry);
// RenewLease moves the expiry only while the run is RUNNING and leased to `owner` (the
// heartbeat). Returns whether it did.
absl::StatusOr<bool> RenewLease(store::Transaction& tx, std::string_view run_id,
                                std::string_view owner, std::string_view expiry);
// EnterFromWaiting moves a WAITING_FOR_APPROVAL run back to RUNNING under `owner` (a resumed
// grant's first write).
absl::Status EnterFromWaiting(store::Transaction& tx, std::string_view run_id,
                              std::string_view owner, std::string_view expiry);
// TakeOver makes the run RUNNING under `owner`, whoever held it (the caller has checked the
// previous lease expired).
absl::Status TakeOver(store::Transaction& tx, std::string_view run_id, std::string_view owner,
                      std::string_view expiry);
// ReleaseLease clears the lease if `owner` holds it (a session ending with its run still
// RUNNING). Returns whether it did.
absl::StatusOr<bool> ReleaseLease(store::Transaction& tx, std::string_view run_id,
                                  std::string_view owner);
// PauseForApproval makes the run WAITING_FOR_APPROVAL and releases its lease.
absl::Status PauseForApproval(store::Transaction& tx, std::string_view run_id);
// AddActiveTime adds `ms` to the run's active time.
absl::Status AddActiveTime(store::Transaction& tx, std::string_view run_id, std::int64_t ms);

struct RunEnding {
  RunStatus status = RunStatus::kFailed;
  std::string_view reason;
  std::string_view detail;
  std::string_view finished_at;
  std::string_view result;  // canonical JSON; "" for none
};
// FinishRun ends the run and releases its lease.
absl::Status FinishRun(store::Transaction& tx, std::string_view run_id, const RunEnding& end);

// The run's model accounting totals.
struct ModelTotals {
  std::int64_t calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t cost_micros = 0;
};
// ReadModelTotals: nullopt when there is no such run.
absl::StatusOr<std::optional<ModelTotals>> ReadModelTotals(store::Transaction& tx,
                                                           std::string_view run_id);
absl::Status WriteModelTotals(store::Transaction& tx, std::string_view run_id,
                              const ModelTotals& totals);

// --- Steps ----------------------------------------------------------------------------------

// InsertStep writes a step that is deciding.
absl::Status InsertStep(store::Transaction& tx, std::string_view step_id, std::string_view run_id,
                        std::int64_t index, std::string_view started_at);
// RecordDecision keeps the decision (and the spec it names) while the step is deciding.
absl::Status RecordDecision(store::Transaction& tx, std::string_view step_id,
                            std::string_view decision_json, std::string_view spec_hash);
// SetStepPolicy keeps the policy's evaluation of the step and the identity of the policy that
// made it (steps.policy_id: Policy::Id(), "" for a policy without one).
absl::Status SetStepPolicy(store::Transaction& tx, std::string_view step_id,
                           std::string_view policy_json, std::string_view policy_id);
// StartExecuting marks a deciding or awaiting step executing, with its evaluation and the
// identity of the policy that allowed it.
absl::Status StartExecuting(store::Transaction& tx, std::string_view step_id,
                            std::string_view policy_json, std::string_view policy_id,
                            std::string_view started_at);
// AwaitApproval marks the step awaiting approval, with its evaluation, and clears any outcome
// and the policy identity: a pause the runtime makes itself (an interrupted side effect, a
// reconciliation's) was decided by no policy, and a policy's own pause sets its identity with
// SetStepPolicy in the same transaction.
absl::Status AwaitApproval(store::Transaction& tx, std::string_view step_id,
                           std::string_view policy_json);

struct StepOutcome {
  StepStatus status = StepStatus::kDone;
  std::string_view observation_json;  // "" for none
  std::string_view observation_hash;
  std::string_view finished_at;
};
// EndStep moves the step to `outcome`, only from the status `from`. Returns whether it did.
absl::StatusOr<bool> EndStep(store::Transaction& tx, std::string_view step_id, StepStatus from,
                             const StepOutcome& outcome);
// FailStepsInFlight fails every step of the run still deciding, awaiting approval or executing.
absl::Status FailStepsInFlight(store::Transaction& tx, std::string_view run_id,
                               std::string_view observation_json, std::string_view observation_hash,
                               std::string_view finished_at);

// ReadSteps reads a run's steps whole, by index, decoded: a column that is not JSON leaves its
// field empty and is named in Step::decode_error, and a status that is not a step status reads
// as failed and is named there too.
absl::StatusOr<std::vector<Step>> ReadSteps(store::Transaction& tx, std::string_view run_id);

// StoredStepCount: one past the run's highest step index (steps are numbered from 0 without a
// gap), from the (run_id, idx) index without a scan.
absl::StatusOr<std::int64_t> StoredStepCount(store::Transaction& tx, std::string_view run_id);

// ReadStepRange reads the run's steps with index in [first, last), in order, decoded as
// ReadSteps does; without `with_content`, each observation's content is left out inside SQLite
// (what a history reads of a step it shows by summary: runtime/step_list.h).
absl::StatusOr<std::vector<Step>> ReadStepRange(store::Transaction& tx, std::string_view run_id,
                                                std::int64_t first, std::int64_t last,
                                                bool with_content);

// ReadStepsPage reads at most `limit` of a run's steps from `offset`, and the total. A
// decision, observation or policy column longer than `max_column` bytes is reduced inside
// SQLite to the fields that identify it (kind and tool; kind and summary; outcome and reason —
// each whole when its JSON text is at most `max_field` bytes, else cut to `max_field`
// characters), with decode_error saying so: only the page is read, and never a huge column
// whole.
struct StepsPage {
  std::vector<Step> steps;
  std::int64_t total = 0;
};
absl::StatusOr<StepsPage> ReadStepsPage(store::Transaction& tx, std::string_view run_id,
                                        std::int64_t limit, std::int64_t offset,
                                        std::int64_t max_column, std::int64_t max_field);

// --- Limits -------------------------------------------------------------------------------

// LimitsFromJson reads limits as the driver stores them (runs.limits_json and run.created's
// `limits`, the same canonical JSON); an absent or non-integer member reads as 0.
Limits LimitsFromJson(json::Value limits_json);

// --- Policy identity ------------------------------------------------------------------------

// The longest policy identity steps.policy_id and a step.policy payload may hold, in bytes.
inline constexpr std::size_t kMaxPolicyIdBytes = 256;

// CheckPolicyId is the one rule for a policy identity (Policy::Id()) before it is recorded or
// compared (reference/core.md §4.1): at most kMaxPolicyIdBytes bytes of valid UTF-8 with no
// control character (C0, DEL or C1). "" (no identity) passes. InvalidArgument naming the id
// (escaped and cut) and the rule it breaks.
absl::Status CheckPolicyId(std::string_view policy_id);

// --- Tool specs -----------------------------------------------------------------------------

// InsertToolSpec records a spec by its hash (once: a second insert of a hash changes nothing).
absl::Status InsertToolSpec(store::Transaction& tx, std::string_view hash,
                            std::string_view spec_json);
// ReadToolSpec: the recorded spec's JSON, nullopt when none has that hash.
absl::StatusOr<std::optional<std::string>> ReadToolSpec(store::Transaction& tx,
                                                        std::string_view hash);
// ReadToolSpecs: every recorded spec, hash -> spec JSON.
absl::StatusOr<std::map<std::string, std::string>> ReadToolSpecs(store::Transaction& tx);

// --- Approvals ------------------------------------------------------------------------------

// InsertApproval writes a pending approval (id, run, step, kind, capability, presentation,
// request, hash, created_at and expires_at are taken from `approval`, times as stored text).
struct NewApproval {
  std::string_view id;
  std::string_view run_id;
  std::string_view step_id;
  std::string_view kind;
  std::string_view capability_json;
  std::string_view presentation_json;
  std::string_view request_json;
  std::string_view hash;
  std::string_view created_at;
  std::string_view expires_at;  // "" for never
};
absl::Status InsertApproval(store::Transaction& tx, const NewApproval& approval);

// ReadApproval: one approval of a run, nullopt when the run has none with that id.
absl::StatusOr<std::optional<Approval>> ReadApproval(store::Transaction& tx,
                                                     std::string_view run_id,
                                                     std::string_view approval_id);
// RunOfApproval: the run an approval belongs to (approval ids are unique across runs); nullopt
// when there is no such approval.
absl::StatusOr<std::optional<std::string>> RunOfApproval(store::Transaction& tx,
                                                         std::string_view approval_id);
// ReadApprovals: a run's approvals in the order they were created.
absl::StatusOr<std::vector<Approval>> ReadApprovals(store::Transaction& tx,
                                                    std::string_view run_id);
// ReadApprovalsPage: at most `limit` of a run's approvals (only the pending ones when
// `pending_only`) from `offset`, in creation order, and the total (ApprovalPage, approvals.h).
absl::StatusOr<ApprovalPage> ReadApprovalsPage(store::Transaction& tx, std::string_view run_id,
                                               bool pending_only, std::int64_t limit,
                                               std::int64_t offset);
// ReadPendingApprovalIds: for each run of `run_ids` with pending approvals, the ids of the
// first `per_run` of them in creation order, in one statement.
absl::StatusOr<std::map<std::string, std::vector<std::string>>> ReadPendingApprovalIds(
    store::Transaction& tx, std::span<const std::string> run_ids, std::int64_t per_run);

// DecideApproval records an operator's decision (`status` approved or rejected), only while
// the approval is pending with `hash`. Returns whether it did.
absl::StatusOr<bool> DecideApproval(store::Transaction& tx, std::string_view approval_id,
                                    std::string_view hash, std::string_view status,
                                    std::string_view decided_at, std::string_view by,
                                    std::string_view note);
// ExpireApproval expires an approval, only while it is in `from` with `hash`: a pending one is
// decided by its expiry (decided_at, note "expired"); an approved grant keeps its decider.
// Returns whether it did.
absl::StatusOr<bool> ExpireApproval(store::Transaction& tx, std::string_view approval_id,
                                    ApprovalStatus from, std::string_view hash,
                                    std::string_view expired_at);

// --- Model calls ----------------------------------------------------------------------------

struct NewModelCall {
  std::string_view id;
  std::string_view run_id;
  std::string_view step_id;
  std::int64_t attempt = 0;
  std::string_view model;
  std::string_view dispatched_at;
};
// InsertModelCall writes an attempt as dispatched (before the model is called).
absl::Status InsertModelCall(store::Transaction& tx, const NewModelCall& call);

struct ModelCallOutcome {
  std::string_view status;  // ok, error, ...
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t cost_micros = 0;
  std::int64_t latency_ms = 0;
  std::string_view error;
  std::string_view completed_at;
};
absl::Status CompleteModelCall(store::Transaction& tx, std::string_view call_id,
                               const ModelCallOutcome& outcome);

// --- Events ---------------------------------------------------------------------------------

// ReadEventPayloads: the payloads of a run's events of one type, in seq order.
absl::StatusOr<std::vector<std::string>> ReadEventPayloads(store::Transaction& tx,
                                                           std::string_view run_id,
                                                           std::string_view type);

// --- Rows against the chain (chain_check.h, row_audit.h) ----------------------------------

// One event as a check of rows against the chain reads it, its columns as stored.
struct ChainEvent {
  std::int64_t seq = 0;
  std::string step_id;
  std::string at;
  std::string type;
  std::string payload;
};
// ReadChainEvents: a run's events whose type is one of `types`, in seq order; with `step_id`,
// only that step's and the run's own (step_id '').
absl::StatusOr<std::vector<ChainEvent>> ReadChainEvents(
    store::Transaction& tx, std::string_view run_id, std::span<const std::string_view> types,
    std::optional<std::string_view> step_id = std::nullopt);

// The columns of a run that its events also record, as stored (a status outside the vocabulary
// is seen as it is).
struct RunRow {
  std::string id;
  std::string goal;
  std::string status;
  std::string reason;
  std::string reason_detail;
  std::string limits_json;
  std::string finished_at;
  std::int64_t step_count = 0;
};
// ReadRunRow: nullopt when there is no such run.
absl::StatusOr<std::optional<RunRow>> ReadRunRow(store::Transaction& tx, std::string_view run_id);
// ReadRunRows: at most `limit` runs whose id sorts after `after`, by id.
absl::StatusOr<std::vector<RunRow>> ReadRunRows(store::Transaction& tx, std::string_view after,
                                                std::int64_t limit);
// ReadRunsOnlyInEvents: at most `limit` ids of runs that events name and no run row holds.
absl::StatusOr<std::vector<std::string>> ReadRunsOnlyInEvents(store::Transaction& tx,
                                                              std::int64_t limit);

// The columns of a step that its events also record, as stored.
struct StepRow {
  std::string id;
  std::int64_t index = 0;
  std::string status;
  std::string decision_json;
};
// ReadStepRows: a run's steps by index (`step_id` given: only that step).
absl::StatusOr<std::vector<StepRow>> ReadStepRows(
    store::Transaction& tx, std::string_view run_id,
    std::optional<std::string_view> step_id = std::nullopt);

}  // namespace agentrt::rows
