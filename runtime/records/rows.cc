#include "runtime/records/rows.h"

#include <cstdio>
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/store/internal/sql.h"
#include "runtime/world/timestamp.h"

namespace agentrt::rows {
namespace {

using store::SqlRow;
using store::SqlValue;
using store::ToInt;
using store::Transaction;

absl::Time TimeOf(std::string_view text) {
  return world::ParseTimestamp(text).value_or(absl::InfinitePast());
}

template <typename Enum, std::size_t N>
std::optional<Enum> Parse(std::string_view text, const Enum (&values)[N]) {
  for (Enum v : values) {
    if (ToString(v) == text) return v;
  }
  return std::nullopt;
}

// A stored status outside the vocabulary is damage, not a state to act on: it reads as
// `fallback`, and the text is kept in `*unknown` for whatever shows the row (Run::unknown_status).
template <typename Enum, std::size_t N>
Enum ParseStatus(std::string text, const Enum (&values)[N], Enum fallback, std::string* unknown) {
  if (std::optional<Enum> status = Parse(text, values); status.has_value()) {
    unknown->clear();
    return *status;
  }
  *unknown = std::move(text);
  return fallback;
}

constexpr RunStatus kRunStatuses[] = {RunStatus::kRunning,     RunStatus::kWaitingForApproval,
                                      RunStatus::kInterrupted, RunStatus::kCompleted,
                                      RunStatus::kFailed,      RunStatus::kCancelled};
constexpr StepStatus kStepStatuses[] = {StepStatus::kDeciding,  StepStatus::kAwaitingApproval,
                                        StepStatus::kExecuting, StepStatus::kDone,
                                        StepStatus::kFailed,    StepStatus::kInterrupted};
constexpr ObservationKind kObservationKinds[] = {
    ObservationKind::kToolResult, ObservationKind::kToolError, ObservationKind::kPolicyDenied,
    ObservationKind::kInvalidDecision, ObservationKind::kInterrupted};
constexpr PolicyOutcome kPolicyOutcomes[] = {PolicyOutcome::kAllow, PolicyOutcome::kRequireApproval,
                                             PolicyOutcome::kDeny, PolicyOutcome::kAbort};
constexpr ApprovalStatus kApprovalStatuses[] = {ApprovalStatus::kPending, ApprovalStatus::kApproved,
                                                ApprovalStatus::kRejected,
                                                ApprovalStatus::kExpired};

// --- Runs ---

// A length parameter as a server's text functions take it: a 32-bit integer, where a cap of
// "everything" (the largest 64-bit one) means the largest text a server holds (1 GB).
std::string ServerLength(std::string_view param) {
  return absl::StrCat("CAST(LEAST(CAST(", ToAbsl(param), " AS BIGINT), 1073741824) AS INTEGER)");
}

// The first `cap` bytes of a text column, read inside the engine. On SQLite cut as a blob: its
// text functions (substr, length) end a text at its first NUL, which would show a goal
// "Summarise the report\0and then delete every backup" as its first three words; a blob's bytes
// are all counted. A server's text holds whole characters and no NUL: its first `cap`
// characters, cut to `cap` bytes when read (CutBytes).
std::string Head(Transaction& tx, std::string_view column, int cap) {
  return store::Sql::OnServer(tx)
             ? absl::StrCat("substr(", ToAbsl(column), ", 1, ",
                            ServerLength(absl::StrCat("?", cap)), ")")
             : absl::StrCat("substr(CAST(", ToAbsl(column), " AS BLOB), 1, ?", cap, ")");
}

// `text` cut to at most `cap` bytes, as SQLite's Head cuts it.
std::string CutBytes(const std::string& text, std::int64_t cap) {
  return static_cast<std::int64_t>(text.size()) <= cap
             ? text
             : text.substr(0, static_cast<std::size_t>(cap));
}

// The columns a capped run read returns, in RunFromCappedRow's order; parameter `cap` holds the
// cut, in bytes (the view cuts again at a character, view::DisplayText).
std::string SelectCappedRuns(Transaction& tx, std::string_view rest, int cap) {
  return absl::StrCat("SELECT id, ", Head(tx, "goal", cap), ", ", Head(tx, "status", cap), ", ",
                      Head(tx, "reason", cap), ", ", Head(tx, "reason_detail", cap),
                      ", step_count, created_at, finished_at, model_calls, input_tokens, "
                      "output_tokens, cached_input_tokens, estimated_cost_micros FROM runs ",
                      ToAbsl(rest));
}

Run RunFromCappedRow(const SqlRow& r, std::int64_t cap) {
  Run run;
  run.id = r[0];
  run.goal = CutBytes(r[1], cap);
  run.status =
      ParseStatus(CutBytes(r[2], cap), kRunStatuses, RunStatus::kFailed, &run.unknown_status);
  run.reason = CutBytes(r[3], cap);
  run.reason_detail = CutBytes(r[4], cap);
  run.step_count = static_cast<int>(ToInt(r[5]));
  run.created_at = TimeOf(r[6]);
  run.finished_at = TimeOf(r[7]);
  run.model_calls = ToInt(r[8]);
  run.input_tokens = ToInt(r[9]);
  run.output_tokens = ToInt(r[10]);
  run.cached_input_tokens = ToInt(r[11]);
  run.estimated_cost_micros = ToInt(r[12]);
  return run;
}

Limits LimitsFromText(std::string_view json) {
  absl::StatusOr<json::Document> doc = json::Parse(json);
  if (!doc.ok()) return Limits{};
  return LimitsFromJson(doc->root());
}

// --- Steps ---

// The bytes a decision's args or result held, as the agent sent them: canonical JSON, or the
// unusable bytes the recorder kept out of band (invalid_args / invalid_result, base64 when
// invalid_base64), so a step read back is the step the agent saw.
std::string RawDecisionMember(const json::Document& d, std::string_view key) {
  json::Value root = d.root();
  if (std::optional<json::Value> v = root.Find(key)) return json::WriteCanonical(*v);
  std::optional<json::Value> kept = root.Find(key == "args" ? "invalid_args" : "invalid_result");
  if (!kept || !kept->is_string()) return "";
  std::string bytes(kept->string_value());
  std::optional<json::Value> base64 = root.Find("invalid_base64");
  if (base64 && base64->is_bool() && base64->bool_value()) {
    std::string decoded;
    return absl::Base64Unescape(ToAbsl(bytes), &decoded) ? decoded : "";
  }
  return bytes;
}

// Decodes one steps row: id, idx, status, decision_json, observation_json, spec_hash,
// started_at, finished_at, policy_json. A column that is not JSON leaves its field empty and is
// named in decode_error; so is a status that is not one.
Step DecodeStep(const SqlRow& r, std::string_view run_id) {
  Step s;
  s.id = r[0];
  s.run_id = std::string(run_id);
  s.index = static_cast<int>(ToInt(r[1]));
  // A status the runtime never writes reads as failed and says so, like a column that is not
  // JSON.
  s.status = ParseStatus(r[2], kStepStatuses, StepStatus::kFailed, &s.unknown_status);
  if (!s.unknown_status.empty()) s.decode_error += "status: not a step status; ";
  auto text = [](const json::Document& doc, std::string_view key) {
    return json::MemberText(doc.root(), key);
  };
  if (!r[3].empty()) {
    if (absl::StatusOr<json::Document> d = json::Parse(r[3]); d.ok()) {
      s.decision = Decision{text(*d, "kind"),
                            text(*d, "tool"),
                            RawDecisionMember(*d, "args"),
                            text(*d, "reason"),
                            RawDecisionMember(*d, "result"),
                            text(*d, "message"),
                            text(*d, "origin")};
    } else {
      s.decode_error += "decision: not JSON; ";
    }
  }
  if (!r[4].empty()) {
    if (absl::StatusOr<json::Document> o = json::Parse(r[4]); o.ok()) {
      Observation obs;
      // A kind the runtime never writes is damage, like an unknown status: read as the error it
      // may be (never as a result an agent could act on) and named.
      std::optional<ObservationKind> kind = Parse(text(*o, "kind"), kObservationKinds);
      obs.kind = kind.value_or(ObservationKind::kToolError);
      if (!kind) s.decode_error += "observation: kind is not an observation kind; ";
      obs.content = text(*o, "content");
      obs.summary = text(*o, "summary");
      obs.content_hash = text(*o, "content_hash");
      s.observation = obs;
    } else {
      s.decode_error += "observation: not JSON; ";
    }
  }
  if (!r[8].empty()) {
    if (absl::StatusOr<json::Document> p = json::Parse(r[8]); p.ok()) {
      PolicyDecision pd;
      pd.outcome_text = text(*p, "outcome");
      pd.outcome = Parse(pd.outcome_text, kPolicyOutcomes).value_or(PolicyOutcome::kUnknown);
      pd.reason = text(*p, "reason");
      pd.kind = text(*p, "kind");
      if (std::optional<json::Value> v = p->root().Find("capability")) {
        pd.capability = json::WriteCanonical(*v);
      }
      if (std::optional<json::Value> v = p->root().Find("presentation")) {
        pd.presentation = json::WriteCanonical(*v);
      }
      s.policy = std::move(pd);
    } else {
      s.decode_error += "policy: not JSON; ";
    }
  }
  s.spec_hash = r[5];
  s.started_at = TimeOf(r[6]);
  s.finished_at = TimeOf(r[7]);
  return s;
}

// --- Approvals ---

constexpr std::string_view kSelectApproval =
    "SELECT id, (SELECT id FROM runs WHERE runs.run_key = approvals.run_key), step_id, kind, "
    "capability_json, presentation_json, request_json, hash, status, created_at, expires_at, "
    "decided_at, decided_by, note FROM approvals ";

Approval ApprovalFromRow(const SqlRow& r) {
  Approval a;
  a.id = r[0];
  a.run_id = r[1];
  a.step_id = r[2];
  a.kind = r[3];
  a.capability = r[4];
  a.presentation = r[5];
  a.request = r[6];
  a.hash = r[7];
  a.status = ParseStatus(r[8], kApprovalStatuses, ApprovalStatus::kPending, &a.unknown_status);
  a.created_at = TimeOf(r[9]);
  a.expires_at = TimeOf(r[10]);
  a.decided_at = TimeOf(r[11]);
  a.decided_by = r[12];
  a.note = r[13];
  return a;
}

absl::Status Run1(Transaction& tx, std::string_view sql, absl::Span<const SqlValue> params) {
  return store::Sql::Exec(tx, sql, params).status();
}

absl::StatusOr<bool> Changed(Transaction& tx, std::string_view sql,
                             absl::Span<const SqlValue> params) {
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t changed, store::Sql::Exec(tx, sql, params));
  return changed > 0;
}

std::int64_t Count(const std::vector<SqlRow>& rows) {
  return rows.empty() || rows[0].empty() ? 0 : ToInt(rows[0][0]);
}

}  // namespace

Limits LimitsFromJson(json::Value limits_json) {
  auto integer = [&](std::string_view key) { return json::MemberInt(limits_json, key, 0); };
  Limits limits;
  limits.max_steps = static_cast<int>(integer("max_steps"));
  limits.max_consecutive_tool_failures = static_cast<int>(integer("max_consecutive_tool_failures"));
  limits.loop_threshold = static_cast<int>(integer("loop_threshold"));
  limits.max_active_time = absl::Nanoseconds(integer("max_active_time"));
  limits.max_elapsed_time = absl::Nanoseconds(integer("max_elapsed_time"));
  limits.approval_ttl = absl::Nanoseconds(integer("approval_ttl"));
  limits.max_model_calls = integer("max_model_calls");
  limits.max_output_tokens_per_call = integer("max_output_tokens_per_call");
  limits.max_total_tokens = integer("max_total_tokens");
  limits.max_estimated_cost_micros = integer("max_estimated_cost_micros");
  limits.grant_ttl = absl::Nanoseconds(integer("grant_ttl"));
  return limits;
}

// --- Runs -----------------------------------------------------------------------------------

absl::Status InsertRun(Transaction& tx, const NewRun& run) {
  return Run1(
      tx,
      "INSERT INTO runs (id, goal, status, limits_json, created_at, started_at, "
      "lease_owner, lease_expires_at) VALUES (?1, ?2, 'RUNNING', ?3, ?4, ?4, ?5, ?6)",
      {run.id, run.goal, run.limits_json, run.created_at, run.lease_owner, run.lease_expires_at});
}

absl::StatusOr<std::optional<RunState>> ReadRunState(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx,
          "SELECT status, reason, lease_owner, lease_expires_at, step_count FROM runs "
          "WHERE id = ?1",
          {run_id}));
  if (rows.empty()) return std::nullopt;
  SqlRow& r = rows[0];
  return RunState{std::move(r[0]), std::move(r[1]), std::move(r[2]), std::move(r[3]), ToInt(r[4])};
}

// The run's integer key (ADR 27) found from its public id, statement parameter ?n: steps and
// approvals name their run by key, and every statement naming a run by id finds it so.
#define AGENTRT_RUN_KEY(n) "(SELECT run_key FROM runs WHERE id = ?" #n ")"

// The run's columns that change while it lives, in the order ChangingColumns reads them (a
// macro, so that the two statements below are literals).
#define AGENTRT_CHANGING_RUN_COLUMNS                                                 \
  "status, reason, reason_detail, step_count, finished_at, result_json, active_ms, " \
  "model_calls, input_tokens, output_tokens, cached_input_tokens, estimated_cost_micros"

namespace {

// Decodes AGENTRT_CHANGING_RUN_COLUMNS from `r`, starting at column `at`, into `run`.
void ChangingColumns(SqlRow& r, std::size_t at, Run& run) {
  run.status = ParseStatus(std::move(r[at]), kRunStatuses, RunStatus::kFailed, &run.unknown_status);
  run.reason = std::move(r[at + 1]);
  run.reason_detail = std::move(r[at + 2]);
  run.step_count = static_cast<int>(ToInt(r[at + 3]));
  run.finished_at = TimeOf(r[at + 4]);
  run.result = std::move(r[at + 5]);
  run.active_time = absl::Milliseconds(ToInt(r[at + 6]));
  run.model_calls = ToInt(r[at + 7]);
  run.input_tokens = ToInt(r[at + 8]);
  run.output_tokens = ToInt(r[at + 9]);
  run.cached_input_tokens = ToInt(r[at + 10]);
  run.estimated_cost_micros = ToInt(r[at + 11]);
}

}  // namespace

absl::StatusOr<std::optional<Run>> ReadRun(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx,
                        "SELECT id, goal, limits_json, created_at, " AGENTRT_CHANGING_RUN_COLUMNS
                        " FROM runs WHERE id = ?1",
                        {run_id}));
  if (rows.empty()) return std::nullopt;
  SqlRow& r = rows[0];
  Run run;
  run.id = std::move(r[0]);
  run.goal = std::move(r[1]);
  run.limits = LimitsFromText(r[2]);
  run.created_at = TimeOf(r[3]);
  ChangingColumns(r, 4, run);
  return run;
}

absl::StatusOr<bool> RefreshRun(Transaction& tx, Run& run) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx, "SELECT " AGENTRT_CHANGING_RUN_COLUMNS " FROM runs WHERE id = ?1",
                        {run.id}));
  if (rows.empty()) return false;
  ChangingColumns(rows[0], 0, run);
  return true;
}

#undef AGENTRT_CHANGING_RUN_COLUMNS

absl::StatusOr<std::optional<Run>> ReadCappedRun(Transaction& tx, std::string_view run_id,
                                                 std::int64_t max_text) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx, SelectCappedRuns(tx, "WHERE id = ?1", 2), {run_id, max_text}));
  if (rows.empty()) return std::nullopt;
  return RunFromCappedRow(rows[0], max_text);
}

absl::StatusOr<RunsPage> ReadCappedRunsPage(Transaction& tx, std::int64_t limit,
                                            std::int64_t offset, std::int64_t max_text) {
  RunsPage page;
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> count,
                           store::Sql::Query(tx, "SELECT COUNT(*) FROM runs"));
  page.total = Count(count);
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx, SelectCappedRuns(tx, "ORDER BY created_at DESC, run_key DESC LIMIT ?1 OFFSET ?2", 3),
          {limit, offset, max_text}));
  for (const SqlRow& r : rows) page.runs.push_back(RunFromCappedRow(r, max_text));
  return page;
}

absl::StatusOr<bool> ClaimStep(Transaction& tx, std::string_view run_id, std::int64_t index,
                               std::string_view owner, std::string_view expiry) {
  return Changed(tx,
                 "UPDATE runs SET step_count = step_count + 1, lease_expires_at = ?4 "
                 "WHERE id = ?1 AND status = 'RUNNING' AND step_count = ?2 AND lease_owner = ?3",
                 {run_id, index, owner, expiry});
}

absl::Status SetLeaseExpiry(Transaction& tx, std::string_view run_id, std::string_view expiry) {
  return Run1(tx, "UPDATE runs SET lease_expires_at = ?1 WHERE id = ?2", {expiry, run_id});
}

absl::StatusOr<bool> RenewLease(Transaction& tx, std::string_view run_id, std::string_view owner,
                                std::string_view expiry) {
  return Changed(tx,
                 "UPDATE runs SET lease_expires_at = ?1 WHERE id = ?2 AND lease_owner = ?3 AND "
                 "status = 'RUNNING'",
                 {expiry, run_id, owner});
}

absl::Status EnterFromWaiting(Transaction& tx, std::string_view run_id, std::string_view owner,
                              std::string_view expiry) {
  return Run1(tx,
              "UPDATE runs SET status = 'RUNNING', lease_owner = ?1, lease_expires_at = ?2 "
              "WHERE id = ?3 AND status = 'WAITING_FOR_APPROVAL'",
              {owner, expiry, run_id});
}

absl::Status TakeOver(Transaction& tx, std::string_view run_id, std::string_view owner,
                      std::string_view expiry) {
  return Run1(tx,
              "UPDATE runs SET status = 'RUNNING', lease_owner = ?1, lease_expires_at = ?2 "
              "WHERE id = ?3",
              {owner, expiry, run_id});
}

absl::StatusOr<bool> ReleaseLease(Transaction& tx, std::string_view run_id,
                                  std::string_view owner) {
  return Changed(tx,
                 "UPDATE runs SET lease_owner = '', lease_expires_at = '' "
                 "WHERE id = ?1 AND lease_owner = ?2",
                 {run_id, owner});
}

absl::Status PauseForApproval(Transaction& tx, std::string_view run_id) {
  return Run1(tx,
              "UPDATE runs SET status = 'WAITING_FOR_APPROVAL', lease_owner = '', "
              "lease_expires_at = '' WHERE id = ?1",
              {run_id});
}

absl::Status AddActiveTime(Transaction& tx, std::string_view run_id, std::int64_t ms) {
  return Run1(tx, "UPDATE runs SET active_ms = active_ms + ?1 WHERE id = ?2", {ms, run_id});
}

absl::Status FinishRun(Transaction& tx, std::string_view run_id, const RunEnding& end) {
  return Run1(tx,
              "UPDATE runs SET status = ?1, reason = ?2, reason_detail = ?3, finished_at = ?4, "
              "result_json = ?5, lease_owner = '', lease_expires_at = '' WHERE id = ?6",
              {ToString(end.status), end.reason, end.detail, end.finished_at, end.result, run_id});
}

absl::StatusOr<std::optional<ModelTotals>> ReadModelTotals(Transaction& tx,
                                                           std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx,
                        "SELECT model_calls, input_tokens, output_tokens, cached_input_tokens, "
                        "estimated_cost_micros FROM runs WHERE id = ?1",
                        {run_id}));
  if (rows.empty()) return std::nullopt;
  const SqlRow& r = rows[0];
  return ModelTotals{ToInt(r[0]), ToInt(r[1]), ToInt(r[2]), ToInt(r[3]), ToInt(r[4])};
}

absl::Status WriteModelTotals(Transaction& tx, std::string_view run_id, const ModelTotals& t) {
  return Run1(
      tx,
      "UPDATE runs SET model_calls = ?2, input_tokens = ?3, output_tokens = ?4, "
      "cached_input_tokens = ?5, estimated_cost_micros = ?6 WHERE id = ?1",
      {run_id, t.calls, t.input_tokens, t.output_tokens, t.cached_input_tokens, t.cost_micros});
}

// --- Steps ----------------------------------------------------------------------------------

absl::Status InsertStep(Transaction& tx, std::string_view step_id, std::string_view run_id,
                        std::int64_t index, std::string_view started_at) {
  return Run1(tx,
              "INSERT INTO steps (id, run_key, idx, status, started_at) "
              "VALUES (?1, " AGENTRT_RUN_KEY(2) ", ?3, 'deciding', ?4)",
              {step_id, run_id, index, started_at});
}

absl::Status RecordDecision(Transaction& tx, std::string_view step_id,
                            std::string_view decision_json, std::string_view spec_hash) {
  return Run1(tx,
              "UPDATE steps SET decision_json = ?1, spec_hash = ?2 "
              "WHERE id = ?3 AND status = 'deciding'",
              {decision_json, spec_hash, step_id});
}

absl::Status SetStepPolicy(Transaction& tx, std::string_view step_id, std::string_view policy_json,
                           std::string_view policy_id) {
  return Run1(tx, "UPDATE steps SET policy_json = ?1, policy_id = ?2 WHERE id = ?3",
              {policy_json, policy_id, step_id});
}

absl::Status StartExecuting(Transaction& tx, std::string_view step_id, std::string_view policy_json,
                            std::string_view policy_id, std::string_view started_at) {
  return Run1(tx,
              "UPDATE steps SET status = 'executing', policy_json = ?1, policy_id = ?2, "
              "started_at = ?3 WHERE id = ?4 AND status IN ('deciding', 'awaiting_approval')",
              {policy_json, policy_id, started_at, step_id});
}

absl::Status AwaitApproval(Transaction& tx, std::string_view step_id,
                           std::string_view policy_json) {
  return Run1(tx,
              "UPDATE steps SET status = 'awaiting_approval', policy_json = ?1, policy_id = '', "
              "observation_json = '', observation_hash = '', finished_at = '' WHERE id = ?2",
              {policy_json, step_id});
}

absl::StatusOr<bool> EndStep(Transaction& tx, std::string_view step_id, StepStatus from,
                             const StepOutcome& outcome) {
  return Changed(tx,
                 "UPDATE steps SET status = ?1, observation_json = ?2, observation_hash = ?3, "
                 "finished_at = ?4 WHERE id = ?5 AND status = ?6",
                 {ToString(outcome.status), outcome.observation_json, outcome.observation_hash,
                  outcome.finished_at, step_id, ToString(from)});
}

absl::Status FailStepsInFlight(Transaction& tx, std::string_view run_id,
                               std::string_view observation_json, std::string_view observation_hash,
                               std::string_view finished_at) {
  return Run1(tx,
              "UPDATE steps SET status = 'failed', observation_json = ?1, observation_hash = ?2, "
              "finished_at = ?3 WHERE run_key = " AGENTRT_RUN_KEY(4) " AND "
              "status IN "
              "('deciding', 'awaiting_approval', 'executing')",
              {observation_json, observation_hash, finished_at, run_id});
}

absl::StatusOr<std::vector<Step>> ReadSteps(Transaction& tx, std::string_view run_id) {
  return ReadStepRange(tx, run_id, 0, std::numeric_limits<std::int64_t>::max(),
                       /*with_content=*/true);
}

absl::StatusOr<std::int64_t> StoredStepCount(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                           store::Sql::Query(tx,
                                             "SELECT COALESCE(MAX(idx) + 1, 0) FROM steps "
                                             "WHERE run_key = " AGENTRT_RUN_KEY(1),
                                             {run_id}));
  return rows.empty() ? 0 : ToInt(rows[0][0]);
}

absl::StatusOr<std::vector<Step>> ReadStepRange(Transaction& tx, std::string_view run_id,
                                                std::int64_t first, std::int64_t last,
                                                bool with_content) {
  // Without its content an observation is the same object less one member; a column that is
  // not JSON is read as it is, so the decoder names it as ReadSteps would. (Two statements: the
  // whole read checks no JSON.)
#define AGENTRT_STEP_RANGE(observation)                           \
  "SELECT id, idx, status, decision_json, " observation           \
  ", spec_hash, started_at, finished_at, policy_json FROM steps " \
  "WHERE run_key = " AGENTRT_RUN_KEY(1) " AND idx >= ?2 AND idx < ?3 ORDER BY idx"
  static constexpr std::string_view kWhole = AGENTRT_STEP_RANGE("observation_json");
  static constexpr std::string_view kWithoutContent = AGENTRT_STEP_RANGE(
      "CASE WHEN json_valid(observation_json) THEN json_remove(observation_json, '$.content') "
      "ELSE observation_json END");
  // On a server: the object's other members, as written (json, not jsonb, which would reorder
  // them and refuse a \u0000 escape); anything that is not a JSON object as it is.
  static constexpr std::string_view kWithoutContentOnServer = AGENTRT_STEP_RANGE(
      "CASE WHEN agentrt_json_valid(observation_json) "
      "AND json_typeof(observation_json::json) = 'object' "
      "THEN COALESCE((SELECT json_object_agg(key, value)::text "
      "FROM json_each(observation_json::json) WHERE key <> 'content'), '{}') "
      "ELSE observation_json END");
#undef AGENTRT_STEP_RANGE
  std::string_view sql = with_content               ? kWhole
                         : store::Sql::OnServer(tx) ? kWithoutContentOnServer
                                                    : kWithoutContent;
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                           store::Sql::Query(tx, sql, {run_id, first, last}));
  std::vector<Step> steps;
  steps.reserve(rows.size());
  for (const SqlRow& r : rows) steps.push_back(DecodeStep(r, run_id));
  return steps;
}

namespace {

// A text column's length in bytes: SQLite's length() of a text counts characters up to its first
// NUL.
std::string ByteLength(bool server, std::string_view column) {
  return server ? absl::StrCat("octet_length(", ToAbsl(column), ")")
                : absl::StrCat("length(CAST(", ToAbsl(column), " AS BLOB))");
}

// A step's JSON column when it is at most ?4 bytes; else an object of only the `fields` that
// identify it, each whole when its JSON text is at most ?5 bytes, else cut to ?5 characters;
// '' when the column is not JSON. A field is taken as JSON text (->): json_extract ends a string
// at an escaped NUL, so a summary "failed\u0000 and then ..." would lose all after "failed".
std::string CappedColumn(bool server, std::string_view column,
                         std::initializer_list<std::string_view> fields) {
  std::string object;
  for (std::string_view field : fields) {
    if (server) {
      std::string path = absl::StrCat(ToAbsl(column), "::json -> '", ToAbsl(field), "'");
      absl::StrAppend(&object, object.empty() ? "" : ", ", "'", ToAbsl(field), "', CASE WHEN ",
                      ByteLength(server, absl::StrCat("(", path, ")::text")),
                      " <= CAST(?5 AS BIGINT) THEN ", path, " ELSE to_json(substr(", ToAbsl(column),
                      "::json ->> '", ToAbsl(field), "', 1, ", ServerLength("?5"), ")) END");
      continue;
    }
    std::string path = absl::StrCat(ToAbsl(column), " -> '$.", ToAbsl(field), "'");
    absl::StrAppend(&object, object.empty() ? "" : ", ", "'", ToAbsl(field), "', json(CASE WHEN ",
                    ByteLength(server, path), " <= ?5 THEN ", path, " ELSE json_quote(substr(",
                    ToAbsl(column), " ->> '$.", ToAbsl(field), "', 1, ?5)) END)");
  }
  if (server) {
    return absl::StrCat(
        "CASE WHEN ", ByteLength(server, column), " <= CAST(?4 AS BIGINT) THEN ", ToAbsl(column),
        " WHEN agentrt_json_valid(", ToAbsl(column), ") AND json_typeof(", ToAbsl(column),
        "::json) = 'object' THEN json_build_object(", object, ")::text ELSE '' END");
  }
  return absl::StrCat("CASE WHEN ", ByteLength(server, column), " <= ?4 THEN ", ToAbsl(column),
                      " WHEN json_valid(", ToAbsl(column), ") THEN json_object(", object,
                      ") ELSE '' END");
}

// The page read of ReadStepsPage, on one engine or the other.
std::string SelectStepsPage(bool server) {
  return absl::StrCat(
      "SELECT id, idx, status, ", CappedColumn(server, "decision_json", {"kind", "tool"}), ", ",
      CappedColumn(server, "observation_json", {"kind", "summary"}),
      ", spec_hash, started_at, finished_at, ",
      CappedColumn(server, "policy_json", {"outcome", "reason"}), ", ",
      ByteLength(server, "decision_json"), ", ", ByteLength(server, "observation_json"), ", ",
      ByteLength(server, "policy_json"),
      " FROM steps WHERE run_key = " AGENTRT_RUN_KEY(1) " ORDER BY idx "
      "LIMIT ?2 OFFSET ?3");
}

}  // namespace

absl::StatusOr<StepsPage> ReadStepsPage(Transaction& tx, std::string_view run_id,
                                        std::int64_t limit, std::int64_t offset,
                                        std::int64_t max_column, std::int64_t max_field) {
  StepsPage page;
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> count,
      store::Sql::Query(tx, "SELECT COUNT(*) FROM steps WHERE run_key = " AGENTRT_RUN_KEY(1),
                        {run_id}));
  page.total = Count(count);
  // A column over the cap is reduced, inside SQLite, to the fields that identify it; only the
  // page's rows are read.
  static const std::string kSelect = SelectStepsPage(/*server=*/false);
  static const std::string kSelectOnServer = SelectStepsPage(/*server=*/true);
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx, store::Sql::OnServer(tx) ? kSelectOnServer : kSelect,
                        {run_id, limit, offset, max_column, max_field}));
  for (const SqlRow& r : rows) {
    Step step = DecodeStep(r, run_id);
    for (auto [column, length] :
         {std::pair<std::string_view, const std::string*>{"decision", &r[9]},
          {"observation", &r[10]},
          {"policy", &r[11]}}) {
      if (ToInt(*length) > max_column) {
        absl::StrAppend(&step.decode_error, ToAbsl(column), ": ", *length,
                        " bytes, over the page cap, not read whole; ");
      }
    }
    page.steps.push_back(std::move(step));
  }
  return page;
}

// --- Policy identity ------------------------------------------------------------------------

absl::Status CheckPolicyId(std::string_view policy_id) {
  auto refused = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy id \"", ToAbsl(json::Truncate(json::Sanitize(policy_id), 80)),
                     "\" is malformed: ", ToAbsl(why)));
  };
  if (policy_id.size() > kMaxPolicyIdBytes) {
    return refused(
        absl::StrCat("it is ", policy_id.size(), " bytes, more than ", kMaxPolicyIdBytes));
  }
  if (!json::IsValidUtf8(policy_id)) return refused("it is not valid UTF-8");
  for (std::size_t i = 0; i < policy_id.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(policy_id[i]);
    // In valid UTF-8 the C1 controls U+0080..U+009F are exactly C2 80..C2 9F.
    bool c1 = c == 0xC2 && i + 1 < policy_id.size() &&
              static_cast<unsigned char>(policy_id[i + 1]) >= 0x80 &&
              static_cast<unsigned char>(policy_id[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      char code[8];
      std::snprintf(code, sizeof(code), "U+%04X",
                    static_cast<unsigned>(c1 ? static_cast<unsigned char>(policy_id[i + 1]) : c));
      return refused(absl::StrCat("it holds the control character ", code, " at byte ", i));
    }
  }
  return absl::OkStatus();
}

// --- Tool specs -----------------------------------------------------------------------------

absl::Status InsertToolSpec(Transaction& tx, std::string_view hash, std::string_view spec_json) {
  return Run1(tx, "INSERT INTO tool_specs (hash, spec_json) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
              {hash, spec_json});
}

absl::StatusOr<std::optional<std::string>> ReadToolSpec(Transaction& tx, std::string_view hash) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx, "SELECT spec_json FROM tool_specs WHERE hash = ?1", {hash}));
  if (rows.empty()) return std::nullopt;
  return std::move(rows[0][0]);
}

absl::StatusOr<std::map<std::string, std::string>> ReadToolSpecs(Transaction& tx) {
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                           store::Sql::Query(tx, "SELECT hash, spec_json FROM tool_specs"));
  std::map<std::string, std::string> specs;
  for (SqlRow& r : rows) specs.emplace(std::move(r[0]), std::move(r[1]));
  return specs;
}

// --- Approvals ------------------------------------------------------------------------------

absl::Status InsertApproval(Transaction& tx, const NewApproval& a) {
  return Run1(tx,
              "INSERT INTO approvals (id, run_key, step_id, kind, capability_json, "
              "presentation_json, request_json, hash, status, created_at, expires_at) "
              "VALUES (?1, " AGENTRT_RUN_KEY(2) ", ?3, ?4, ?5, ?6, ?7, ?8, "
              "'pending', ?9, ?10)",
              {a.id, a.run_id, a.step_id, a.kind, a.capability_json, a.presentation_json,
               a.request_json, a.hash, a.created_at, a.expires_at});
}

absl::StatusOr<std::optional<Approval>> ReadApproval(Transaction& tx, std::string_view run_id,
                                                     std::string_view approval_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx,
          absl::StrCat(ToAbsl(kSelectApproval), "WHERE id = ?1 AND run_key = " AGENTRT_RUN_KEY(2)),
          {approval_id, run_id}));
  if (rows.empty()) return std::nullopt;
  return ApprovalFromRow(rows[0]);
}

absl::StatusOr<std::optional<std::string>> RunOfApproval(Transaction& tx,
                                                         std::string_view approval_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx, "SELECT runs.id FROM approvals JOIN runs USING (run_key) WHERE approvals.id = ?1",
          {approval_id}));
  if (rows.empty()) return std::nullopt;
  return std::move(rows[0][0]);
}

absl::StatusOr<std::vector<Approval>> ReadApprovals(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx,
                        absl::StrCat(ToAbsl(kSelectApproval), "WHERE run_key = " AGENTRT_RUN_KEY(
                                                                  1) " ORDER BY approval_key"),
                        {run_id}));
  std::vector<Approval> approvals;
  for (const SqlRow& r : rows) approvals.push_back(ApprovalFromRow(r));
  return approvals;
}

absl::StatusOr<ApprovalPage> ReadApprovalsPage(Transaction& tx, std::string_view run_id,
                                               bool pending_only, std::int64_t limit,
                                               std::int64_t offset) {
  std::string_view where = pending_only
                               ? "WHERE run_key = " AGENTRT_RUN_KEY(1) " AND status = 'pending' "
                               : "WHERE run_key = " AGENTRT_RUN_KEY(1) " ";
  ApprovalPage page;
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> count,
      store::Sql::Query(tx, absl::StrCat("SELECT COUNT(*) FROM approvals ", ToAbsl(where)),
                        {run_id}));
  page.total = Count(count);
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx,
                        absl::StrCat(ToAbsl(kSelectApproval), ToAbsl(where),
                                     "ORDER BY approval_key LIMIT ?2 OFFSET ?3"),
                        {run_id, limit, offset}));
  for (const SqlRow& r : rows) page.approvals.push_back(ApprovalFromRow(r));
  return page;
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>> ReadPendingApprovalIds(
    Transaction& tx, std::span<const std::string> run_ids, std::int64_t per_run) {
  std::map<std::string, std::vector<std::string>> ids;
  if (run_ids.empty() || per_run < 1) return ids;
  std::vector<SqlValue> params = {per_run};
  std::vector<std::string> slots;
  for (const std::string& run : run_ids) {
    params.push_back(std::string_view(run));
    slots.push_back(absl::StrCat("?", params.size()));
  }
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx,
          absl::StrCat("SELECT run_id, id FROM (SELECT runs.id AS run_id, approvals.id AS id, "
                       "approval_key AS r, row_number() OVER (PARTITION BY approvals.run_key "
                       "ORDER BY approval_key) AS n FROM approvals JOIN runs USING (run_key) "
                       "WHERE approvals.status = 'pending' AND runs.id IN (",
                       absl::StrJoin(slots, ", "),
                       ")) AS pending WHERE n <= ?1 ORDER BY run_id, r"),
          params));
  for (SqlRow& r : rows) ids[r[0]].push_back(std::move(r[1]));
  return ids;
}

absl::StatusOr<bool> DecideApproval(Transaction& tx, std::string_view approval_id,
                                    std::string_view hash, std::string_view status,
                                    std::string_view decided_at, std::string_view by,
                                    std::string_view note) {
  return Changed(tx,
                 "UPDATE approvals SET status = ?1, decided_at = ?2, decided_by = ?3, note = ?4 "
                 "WHERE id = ?5 AND status = 'pending' AND hash = ?6",
                 {status, decided_at, by, note, approval_id, hash});
}

absl::StatusOr<bool> ExpireApproval(Transaction& tx, std::string_view approval_id,
                                    ApprovalStatus from, std::string_view hash,
                                    std::string_view expired_at) {
  if (from == ApprovalStatus::kPending) {
    return Changed(tx,
                   "UPDATE approvals SET status = 'expired', decided_at = ?1, note = 'expired' "
                   "WHERE id = ?2 AND status = 'pending' AND hash = ?3",
                   {expired_at, approval_id, hash});
  }
  return Changed(tx,
                 "UPDATE approvals SET status = 'expired' WHERE id = ?1 AND status = ?2 AND "
                 "hash = ?3",
                 {approval_id, ToString(from), hash});
}

// --- Model calls ----------------------------------------------------------------------------

absl::Status InsertModelCall(Transaction& tx, const NewModelCall& c) {
  return Run1(tx,
              "INSERT INTO model_calls (id, run_id, step_id, attempt, status, model, "
              "dispatched_at) VALUES (?1, ?2, ?3, ?4, 'dispatched', ?5, ?6)",
              {c.id, c.run_id, c.step_id, c.attempt, c.model, c.dispatched_at});
}

absl::Status CompleteModelCall(Transaction& tx, std::string_view call_id,
                               const ModelCallOutcome& o) {
  return Run1(tx,
              "UPDATE model_calls SET status = ?2, input_tokens = ?3, output_tokens = ?4, "
              "cached_input_tokens = ?5, cost_micros = ?6, latency_ms = ?7, error = ?8, "
              "completed_at = ?9 WHERE id = ?1",
              {call_id, o.status, o.input_tokens, o.output_tokens, o.cached_input_tokens,
               o.cost_micros, o.latency_ms, o.error, o.completed_at});
}

// --- Events ---------------------------------------------------------------------------------

absl::StatusOr<std::vector<std::string>> ReadEventPayloads(Transaction& tx, std::string_view run_id,
                                                           std::string_view type) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx, "SELECT payload_json FROM events WHERE run_id = ?1 AND type = ?2 ORDER BY seq",
          {run_id, type}));
  std::vector<std::string> payloads;
  for (SqlRow& r : rows) payloads.push_back(std::move(r[0]));
  return payloads;
}

// --- Rows against the chain -------------------------------------------------------------------

absl::StatusOr<std::vector<ChainEvent>> ReadChainEvents(Transaction& tx, std::string_view run_id,
                                                        std::span<const std::string_view> types,
                                                        std::optional<std::string_view> step_id) {
  std::vector<ChainEvent> events;
  if (types.empty()) return events;
  std::vector<SqlValue> params = {run_id};
  std::string where = "run_id = ?1";
  if (step_id.has_value()) {
    params.push_back(*step_id);
    where += " AND step_id IN (?2, '')";
  }
  std::vector<std::string> slots;
  for (std::string_view type : types) {
    params.push_back(type);
    slots.push_back(absl::StrCat("?", params.size()));
  }
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx,
          absl::StrCat("SELECT seq, step_id, at, type, payload_json FROM events WHERE ", where,
                       " AND type IN (", absl::StrJoin(slots, ", "), ") ORDER BY seq"),
          params));
  events.reserve(rows.size());
  for (SqlRow& r : rows) {
    events.push_back(
        {ToInt(r[0]), std::move(r[1]), std::move(r[2]), std::move(r[3]), std::move(r[4])});
  }
  return events;
}

namespace {

#define AGENTRT_RUN_ROW_COLUMNS \
  "id, goal, status, reason, reason_detail, limits_json, finished_at, step_count"

RunRow RunRowOf(SqlRow& r) {
  return {std::move(r[0]), std::move(r[1]), std::move(r[2]), std::move(r[3]),
          std::move(r[4]), std::move(r[5]), std::move(r[6]), ToInt(r[7])};
}

}  // namespace

absl::StatusOr<std::optional<RunRow>> ReadRunRow(Transaction& tx, std::string_view run_id) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(tx, "SELECT " AGENTRT_RUN_ROW_COLUMNS " FROM runs WHERE id = ?1",
                        {run_id}));
  if (rows.empty()) return std::nullopt;
  return RunRowOf(rows[0]);
}

absl::StatusOr<std::vector<RunRow>> ReadRunRows(Transaction& tx, std::string_view after,
                                                std::int64_t limit) {
  AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                           store::Sql::Query(tx,
                                             "SELECT " AGENTRT_RUN_ROW_COLUMNS
                                             " FROM runs WHERE id > ?1 ORDER BY id LIMIT ?2",
                                             {after, limit}));
  std::vector<RunRow> runs;
  runs.reserve(rows.size());
  for (SqlRow& r : rows) runs.push_back(RunRowOf(r));
  return runs;
}

absl::StatusOr<std::vector<std::string>> ReadRunsOnlyInEvents(Transaction& tx, std::int64_t limit) {
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      store::Sql::Query(
          tx,
          "SELECT DISTINCT run_id FROM events WHERE run_id NOT IN (SELECT id FROM runs) "
          "ORDER BY run_id LIMIT ?1",
          {limit}));
  std::vector<std::string> ids;
  for (SqlRow& r : rows) ids.push_back(std::move(r[0]));
  return ids;
}

absl::StatusOr<std::vector<StepRow>> ReadStepRows(Transaction& tx, std::string_view run_id,
                                                  std::optional<std::string_view> step_id) {
  std::vector<SqlRow> rows;
  if (step_id.has_value()) {
    AGENTRT_ASSIGN_OR_RETURN(rows,
                             store::Sql::Query(tx,
                                               "SELECT id, idx, status, decision_json FROM steps "
                                               "WHERE run_key = " AGENTRT_RUN_KEY(1) " AND id = ?2",
                                               {run_id, *step_id}));
  } else {
    AGENTRT_ASSIGN_OR_RETURN(
        rows, store::Sql::Query(tx,
                                "SELECT id, idx, status, decision_json FROM steps "
                                "WHERE run_key = " AGENTRT_RUN_KEY(1) " ORDER BY idx",
                                {run_id}));
  }
  std::vector<StepRow> steps;
  steps.reserve(rows.size());
  for (SqlRow& r : rows) {
    steps.push_back({std::move(r[0]), ToInt(r[1]), std::move(r[2]), std::move(r[3])});
  }
  return steps;
}

}  // namespace agentrt::rows
