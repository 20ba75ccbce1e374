#include "runtime/engine/run_reader.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/records.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/timestamp.h"

namespace agentrt {

using store::SqlRow;

absl::StatusOr<Run> ReadRun(store::Store& store, std::string_view run_id) {
  Run run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT id, goal, status, reason, reason_detail, limits_json, step_count, "
                 "created_at, finished_at, result_json, active_ms, model_calls, input_tokens, "
                 "output_tokens, cached_input_tokens, estimated_cost_micros FROM runs "
                 "WHERE id = ?1",
                 {run_id}));
    if (rows.empty()) {
      return absl::NotFoundError(
          absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " not found"));
    }
    SqlRow& r = rows[0];
    run.id = r[0];
    run.goal = r[1];
    run.status = ParseRunStatus(r[2]).value_or(RunStatus::kFailed);
    run.reason = r[3];
    run.reason_detail = r[4];
    absl::StatusOr<json::Document> limits = json::Parse(r[5]);
    if (limits.ok()) {
      auto integer = [&](std::string_view key, std::int64_t fallback) {
        return json::MemberInt(limits->root(), key, fallback);
      };
      run.limits.max_steps = static_cast<int>(integer("max_steps", 0));
      run.limits.max_consecutive_tool_failures =
          static_cast<int>(integer("max_consecutive_tool_failures", 0));
      run.limits.loop_threshold = static_cast<int>(integer("loop_threshold", 0));
      run.limits.max_active_time = absl::Nanoseconds(integer("max_active_time", 0));
      run.limits.max_elapsed_time = absl::Nanoseconds(integer("max_elapsed_time", 0));
      run.limits.approval_ttl = absl::Nanoseconds(integer("approval_ttl", 0));
      run.limits.max_model_calls = integer("max_model_calls", 0);
      run.limits.max_output_tokens_per_call = integer("max_output_tokens_per_call", 0);
      run.limits.max_total_tokens = integer("max_total_tokens", 0);
      run.limits.max_estimated_cost_micros = integer("max_estimated_cost_micros", 0);
      run.limits.grant_ttl = absl::Nanoseconds(integer("grant_ttl", 0));
    }
    run.step_count = store::ToInt(r[6]);
    run.created_at = world::ParseTimestamp(r[7]).value_or(absl::InfinitePast());
    run.finished_at = world::ParseTimestamp(r[8]).value_or(absl::InfinitePast());
    run.result = r[9];
    run.active_time = absl::Milliseconds(store::ToInt(r[10]));
    run.model_calls = store::ToInt(r[11]);
    run.input_tokens = store::ToInt(r[12]);
    run.output_tokens = store::ToInt(r[13]);
    run.cached_input_tokens = store::ToInt(r[14]);
    run.estimated_cost_micros = store::ToInt(r[15]);
    return absl::OkStatus();
  }));
  return run;
}

namespace {

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
// named in decode_error.
Step DecodeStep(SqlRow& r, std::string_view run_id) {
  Step s;
  s.id = r[0];
  s.run_id = std::string(run_id);
  s.index = store::ToInt(r[1]);
  for (StepStatus st :
       {StepStatus::kDeciding, StepStatus::kAwaitingApproval, StepStatus::kExecuting,
        StepStatus::kDone, StepStatus::kFailed, StepStatus::kInterrupted}) {
    if (ToString(st) == r[2]) s.status = st;
  }
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
      std::string kind = text(*o, "kind");
      for (ObservationKind k : {ObservationKind::kToolResult, ObservationKind::kToolError,
                                ObservationKind::kPolicyDenied, ObservationKind::kInvalidDecision,
                                ObservationKind::kInterrupted}) {
        if (ToString(k) == kind) obs.kind = k;
      }
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
      pd.outcome = PolicyOutcome::kUnknown;
      for (PolicyOutcome o : {PolicyOutcome::kAllow, PolicyOutcome::kRequireApproval,
                              PolicyOutcome::kDeny, PolicyOutcome::kAbort}) {
        if (ToString(o) == pd.outcome_text) pd.outcome = o;
      }
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
  s.started_at = world::ParseTimestamp(r[6]).value_or(absl::InfinitePast());
  s.finished_at = world::ParseTimestamp(r[7]).value_or(absl::InfinitePast());
  return s;
}

}  // namespace

absl::StatusOr<std::vector<Step>> ReadSteps(store::Store& store, std::string_view run_id) {
  std::vector<Step> steps;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT id, idx, status, decision_json, observation_json, spec_hash, "
                 "started_at, finished_at, policy_json FROM steps WHERE run_id = ?1 ORDER BY idx",
                 {run_id}));
    for (SqlRow& r : rows) steps.push_back(DecodeStep(r, run_id));
    return absl::OkStatus();
  }));
  return steps;
}

absl::StatusOr<StepPage> ReadStepsPage(store::Store& store, std::string_view run_id,
                                       std::int64_t limit, std::int64_t offset) {
  AGENTRT_RETURN_IF_ERROR(store::Store::CheckPage(limit, offset));
  StepPage page;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<SqlRow> count,
                             tx.Query("SELECT COUNT(*) FROM steps WHERE run_id = ?1", {run_id}));
    page.total = store::ToInt(count[0][0]);
    // A column over the cap is reduced, inside SQLite, to the fields that identify it; only
    // the page's rows are read.
    AGENTRT_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        tx.Query("SELECT id, idx, status, "
                 "CASE WHEN length(decision_json) <= ?4 THEN decision_json "
                 "WHEN json_valid(decision_json) THEN json_object('kind', "
                 "json_extract(decision_json, '$.kind'), 'tool', json_extract(decision_json, "
                 "'$.tool')) ELSE '' END, "
                 "CASE WHEN length(observation_json) <= ?4 THEN observation_json "
                 "WHEN json_valid(observation_json) THEN json_object('kind', "
                 "json_extract(observation_json, '$.kind'), 'summary', "
                 "substr(json_extract(observation_json, '$.summary'), 1, 1000)) ELSE '' END, "
                 "spec_hash, started_at, finished_at, "
                 "CASE WHEN length(policy_json) <= ?4 THEN policy_json "
                 "WHEN json_valid(policy_json) THEN json_object('outcome', "
                 "json_extract(policy_json, '$.outcome'), 'reason', "
                 "substr(json_extract(policy_json, '$.reason'), 1, 1000)) ELSE '' END, "
                 "length(decision_json), length(observation_json), length(policy_json) FROM steps "
                 "WHERE run_id = ?1 ORDER BY idx "
                 "LIMIT ?2 OFFSET ?3",
                 {run_id, limit, offset, store::Store::kMaxPageText}));
    for (SqlRow& r : rows) {
      Step step = DecodeStep(r, run_id);
      for (auto [column, length] :
           {std::pair<std::string_view, const std::string*>{"decision", &r[9]},
            {"observation", &r[10]},
            {"policy", &r[11]}}) {
        if (store::ToInt(*length) > store::Store::kMaxPageText) {
          absl::StrAppend(&step.decode_error, ToAbsl(column), ": ", *length,
                          " characters, over the page cap, not read whole; ");
        }
      }
      page.steps.push_back(std::move(step));
    }
    return absl::OkStatus();
  }));
  return page;
}

}  // namespace agentrt
