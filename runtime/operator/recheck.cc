#include "runtime/operator/recheck.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/engine/records.h"
#include "runtime/engine/rows.h"
#include "runtime/engine/run_reader.h"
#include "runtime/engine/tool_registry.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

// The spec recorded under `hash`, decoded; re-hashing refuses a row that does not match.
absl::StatusOr<std::pair<ToolSpec, std::string>> StoredSpec(store::Store& store,
                                                            std::string_view hash) {
  std::string json;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> stored, rows::ReadToolSpec(tx, hash));
    if (!stored.has_value()) return absl::NotFoundError("the recorded spec is not stored");
    json = *std::move(stored);
    return absl::OkStatus();
  }));
  if (json::Sha256Hex(json) != hash) {
    return absl::DataLossError("the stored spec does not match its hash");
  }
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, json::Parse(json));
  ToolSpec spec;
  spec.name = json::MemberText(doc.root(), "name");
  spec.description = json::MemberText(doc.root(), "description");
  spec.input_schema = json::MemberText(doc.root(), "input_schema");
  spec.side_effect = ParseSideEffect(json::MemberText(doc.root(), "side_effect"))
                         .value_or(SideEffect::kDestructive);
  spec.timeout = absl::Nanoseconds(json::MemberInt(doc.root(), "timeout"));
  spec.terminal = doc.root().Find("terminal").has_value();
  return std::pair<ToolSpec, std::string>{spec, json};
}

std::string Describe(std::string_view outcome, std::string_view kind) {
  return kind.empty() ? std::string(outcome)
                      : absl::StrCat(ToAbsl(outcome), " (", ToAbsl(kind), ")");
}

}  // namespace

std::string_view ToString(RecheckResult r) {
  switch (r) {
    case RecheckResult::kSame:
      return "same";
    case RecheckResult::kDifferent:
      return "different";
    case RecheckResult::kNotAPolicyEvaluation:
      return "not_a_policy_evaluation";
    case RecheckResult::kNotRecheckable:
      return "not_recheckable";
  }
  return "";
}

absl::StatusOr<RecheckReport> Recheck(store::Store& store, std::string_view run_id, Policy& policy,
                                      const std::vector<Tool*>* current_tools) {
  AGENTRT_ASSIGN_OR_RETURN(Run run, ReadRun(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<store::Event> events, store.ListEvents(run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<Step> steps, ReadSteps(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<Approval> approvals, ListApprovals(store, run_id));
  RecheckReport report;
  report.run_id = run.id;
  report.policy_id = policy.Id();
  bool any_rechecked = false, any_unknown = false, any_changed = false;
  report.run_status = run.status;
  if (!IsTerminal(run.status)) {
    report.notes.push_back(absl::StrCat("the run is ", ToAbsl(ToString(run.status)),
                                        ": re-checked up to its current state"));
  }
  std::map<std::string, std::vector<std::pair<std::int64_t, std::string>>> decisions;
  for (const store::Event& e : events) {
    if (e.type != event::kApprovalDecided) continue;
    if (absl::StatusOr<json::Document> d = json::Parse(e.payload_json); d.ok()) {
      decisions[json::MemberText(d->root(), "approval_id")].emplace_back(
          e.seq, json::MemberText(d->root(), "status"));
    }
  }
  for (std::size_t index = 0; index < events.size(); ++index) {
    const store::Event& e = events[index];
    if (e.type == event::kStepFailed &&
        e.payload_json.find("\"policy error: ") != std::string::npos) {
      // A policy that failed left no evaluation to re-check; it is listed, not re-checked.
      bool after_its_evaluation = index > 0 && events[index - 1].type == event::kStepPolicy &&
                                  events[index - 1].step_id == e.step_id;
      if (!after_its_evaluation) {
        RecheckedEvaluation failed;
        failed.seq = e.seq;
        failed.step_id = e.step_id;
        for (const Step& s : steps) {
          if (s.id == e.step_id) {
            failed.step_index = s.index;
            if (s.decision) failed.tool = s.decision->tool;
          }
        }
        failed.result = RecheckResult::kNotRecheckable;
        std::string detail;
        if (absl::StatusOr<json::Document> d = json::Parse(e.payload_json); d.ok()) {
          detail = json::MemberText(d->root(), "detail");
        }
        failed.detail = "policy failed; no evaluation recorded: " + detail;
        ++report.not_recheckable;
        report.evaluations.push_back(failed);
      }
      continue;
    }
    if (e.type != event::kStepPolicy) continue;
    RecheckedEvaluation ev;
    ev.seq = e.seq;
    ev.step_id = e.step_id;
    auto finish = [&](RecheckResult result, std::string detail) {
      if (result == RecheckResult::kSame || result == RecheckResult::kDifferent) {
        any_rechecked = true;
        std::string recorded_id;
        if (absl::StatusOr<json::Document> d = json::Parse(e.payload_json); d.ok()) {
          recorded_id = json::MemberText(d->root(), "policy_id");
        }
        if (recorded_id.empty() || report.policy_id.empty()) {
          any_unknown = true;
        } else if (recorded_id != report.policy_id) {
          any_changed = true;
        }
      }
      ev.result = result;
      ev.detail = std::move(detail);
      if (result == RecheckResult::kSame) ++report.same;
      if (result == RecheckResult::kDifferent) ++report.different;
      if (result == RecheckResult::kNotRecheckable) ++report.not_recheckable;
      report.evaluations.push_back(ev);
    };
    const Step* step = nullptr;
    for (const Step& s : steps) {
      if (s.id == e.step_id) step = &s;
    }
    if (step != nullptr) {
      ev.step_index = step->index;
      if (step->decision) ev.tool = step->decision->tool;
    }
    absl::StatusOr<json::Document> payload = json::Parse(e.payload_json);
    if (!payload.ok()) {
      finish(RecheckResult::kNotRecheckable, "the recorded evaluation cannot be read");
      continue;
    }
    json::Value p = payload->root();
    std::string outcome = json::MemberText(p, "outcome"), kind = json::MemberText(p, "kind");
    ev.recorded = Describe(outcome, kind);
    std::optional<json::Value> view = p.Find("view");
    if (!view) {
      finish(kind == kInterruptedSideEffectKind ? RecheckResult::kNotAPolicyEvaluation
                                                : RecheckResult::kNotRecheckable,
             kind == kInterruptedSideEffectKind ? "an interrupted side effect's pause"
                                                : "no run view was recorded");
      continue;
    }
    if (step == nullptr || !step->decision || step->decision->kind != "tool_call" ||
        !step->decode_error.empty()) {
      finish(RecheckResult::kNotRecheckable, "the step is missing, damaged or not a tool call");
      continue;
    }
    // The view the policy saw.
    RunView rebuilt;
    rebuilt.run.id = run.id;
    rebuilt.run.goal = run.goal;
    rebuilt.run.limits = run.limits;
    rebuilt.run.created_at = run.created_at;
    rebuilt.run.status =
        ParseRunStatus(json::MemberText(*view, "status")).value_or(RunStatus::kRunning);
    ev.on_resume = rebuilt.run.status == RunStatus::kWaitingForApproval;
    rebuilt.run.step_count = static_cast<int>(json::MemberInt(*view, "step_count"));
    rebuilt.run.model_calls = json::MemberInt(*view, "model_calls");
    rebuilt.run.input_tokens = json::MemberInt(*view, "input_tokens");
    rebuilt.run.output_tokens = json::MemberInt(*view, "output_tokens");
    rebuilt.run.cached_input_tokens = json::MemberInt(*view, "cached_input_tokens");
    rebuilt.run.estimated_cost_micros = json::MemberInt(*view, "estimated_cost_micros");
    rebuilt.run.active_time = absl::Milliseconds(json::MemberInt(*view, "active_ms"));
    std::int64_t n_steps = json::MemberInt(*view, "steps"),
                 n_approvals = json::MemberInt(*view, "approvals");
    if (n_steps > static_cast<std::int64_t>(steps.size()) ||
        n_approvals > static_cast<std::int64_t>(approvals.size())) {
      finish(RecheckResult::kNotRecheckable, "the recorded view counts more than the run holds");
      continue;
    }
    rebuilt.steps.assign(steps.begin(), steps.begin() + n_steps);
    for (std::int64_t i = 0; i < n_approvals; ++i) {
      Approval a = approvals[static_cast<std::size_t>(i)];
      // As it stood at this evaluation: the status of its last decision before it.
      a.status = ApprovalStatus::kPending;
      for (const auto& [seq, status] : decisions[a.id]) {
        if (seq >= e.seq) break;
        for (ApprovalStatus s :
             {ApprovalStatus::kApproved, ApprovalStatus::kRejected, ApprovalStatus::kExpired}) {
          if (ToString(s) == status) a.status = s;
        }
      }
      if (a.status == ApprovalStatus::kPending) {
        a.decided_at = absl::InfinitePast();
        a.decided_by.clear();
        a.note.clear();
      }
      rebuilt.approvals.push_back(a);
    }
    // The request.
    absl::StatusOr<std::pair<ToolSpec, std::string>> recorded_spec =
        StoredSpec(store, json::MemberText(p, "spec_hash"));
    if (!recorded_spec.ok()) {
      finish(RecheckResult::kNotRecheckable, std::string(ToStd(recorded_spec.status().message())));
      continue;
    }
    ToolRequest request;
    request.run_id = run.id;
    request.step_id = step->id;
    request.spec = recorded_spec->first;
    std::string spec_json = recorded_spec->second;
    absl::StatusOr<std::string> args =
        json::Canonicalize(step->decision->args.empty() ? "{}" : step->decision->args);
    if (!args.ok()) {
      finish(RecheckResult::kNotRecheckable, "the recorded arguments are not JSON");
      continue;
    }
    request.args = *args;
    if (current_tools != nullptr) {
      Tool* current = nullptr;
      for (Tool* t : *current_tools) {
        if (t->Spec().name == request.spec.name) current = t;
      }
      if (current == nullptr) {
        finish(RecheckResult::kDifferent,
               absl::StrCat("tool \"", ToAbsl(json::Sanitize(request.spec.name)),
                            "\" is not among the current tools"));
        continue;
      }
      absl::StatusOr<RecordedSpec> now = RecordSpec(current->Spec());
      if (!now.ok()) {
        finish(RecheckResult::kDifferent, std::string(ToStd(now.status().message())));
        continue;
      }
      absl::StatusOr<json::Document> parsed = json::Parse(request.args);
      if (!now->schema->IsValid(parsed->root())) {
        finish(RecheckResult::kDifferent, "the arguments fail the current tool's schema");
        continue;
      }
      request.spec = now->spec;
      spec_json = now->json;
    }
    absl::StatusOr<PolicyDecision> again = policy.Evaluate(request, rebuilt);
    if (!again.ok()) {
      finish(RecheckResult::kDifferent, absl::StrCat("policy failed: ", again.status().message()));
      continue;
    }
    std::string new_outcome =
        again->outcome_text.empty() ? std::string(ToString(again->outcome)) : again->outcome_text;
    ev.rechecked = Describe(new_outcome, again->kind);
    if (new_outcome != outcome || (outcome == "require_approval" && again->kind != kind)) {
      finish(RecheckResult::kDifferent,
             absl::StrCat("was ", ToAbsl(ev.recorded), ", now ", ToAbsl(ev.rechecked)));
      continue;
    }
    if (outcome == "require_approval") {
      auto canonical = [](std::string_view raw) {
        absl::StatusOr<std::string> c = json::Canonicalize(raw.empty() ? "{}" : raw);
        return c.ok() ? *c : std::string("{}");
      };
      std::string recorded_request = json::JsonObject()
                                         .String("run_id", run.id)
                                         .String("step_id", step->id)
                                         .Raw("spec", recorded_spec->second)
                                         .Raw("args", request.args)
                                         .Build();
      std::string new_request = json::JsonObject()
                                    .String("run_id", run.id)
                                    .String("step_id", step->id)
                                    .Raw("spec", spec_json)
                                    .Raw("args", request.args)
                                    .Build();
      std::string before =
          ApprovalHash(kind, canonical(json::MemberText(p, "capability")),
                       canonical(json::MemberText(p, "presentation")), recorded_request);
      std::string after = ApprovalHash(again->kind, canonical(again->capability),
                                       canonical(again->presentation), new_request);
      if (before != after) {
        finish(RecheckResult::kDifferent,
               "the same outcome, but a different approval (capability, presentation or "
               "request changed)");
        continue;
      }
    }
    finish(RecheckResult::kSame, "");
  }
  if (report.evaluations.empty()) report.notes.push_back("no policy evaluation is recorded");
  report.identity = !any_rechecked || any_unknown ? "unknown"
                    : any_changed                 ? "changed"
                                                  : "unchanged";
  return report;
}

std::string RecheckJson(const RecheckReport& report) {
  std::string evaluations = "[";
  for (const RecheckedEvaluation& ev : report.evaluations) {
    if (evaluations.size() > 1) evaluations += ",";
    evaluations += json::JsonObject()
                       .Int("step_index", ev.step_index)
                       .String("step_id", ev.step_id)
                       .Int("seq", ev.seq)
                       .String("tool", ev.tool)
                       .Bool("on_resume", ev.on_resume)
                       .String("result", ToString(ev.result))
                       .StringIfSet("recorded", ev.recorded)
                       .StringIfSet("rechecked", ev.rechecked)
                       .StringIfSet("detail", ev.detail)
                       .Build();
  }
  evaluations += "]";
  std::string notes = "[";
  for (const std::string& note : report.notes) {
    if (notes.size() > 1) notes += ",";
    notes += json::JsonString(note);
  }
  notes += "]";
  return json::JsonObject()
      .String("run_id", report.run_id)
      .String("run_status", ToString(report.run_status))
      .String("policy_id", report.policy_id)
      .String("identity", report.identity)
      .Int("same", report.same)
      .Int("different", report.different)
      .Int("not_recheckable", report.not_recheckable)
      .Bool("complete", report.not_recheckable == 0)
      .Raw("evaluations", evaluations)
      .Raw("notes", notes)
      .Build();
}

std::string FormatRecheck(const RecheckReport& report) {
  std::string out = absl::StrCat(
      "run ", ToAbsl(json::Sanitize(report.run_id)), " ", ToAbsl(ToString(report.run_status)), ": ",
      report.different, " of ", report.same + report.different,
      " re-checked evaluations differ; policy identity ", ToAbsl(report.identity), "\n");
  auto line = [&](const RecheckedEvaluation& ev, std::string_view mark) {
    std::string text = absl::StrCat(ToAbsl(mark), " step ", ev.step_index, " seq ", ev.seq, " ",
                                    ToAbsl(ev.tool), ev.on_resume ? " (on resume)" : "", ": ",
                                    ToAbsl(ev.rechecked.empty() ? ev.recorded : ev.rechecked),
                                    ev.detail.empty() ? "" : " — ", ToAbsl(ev.detail));
    absl::StrAppend(&out, ToAbsl(json::Truncate(json::Sanitize(text), 240)), "\n");
  };
  for (const RecheckedEvaluation& ev : report.evaluations) {
    if (ev.result == RecheckResult::kDifferent) line(ev, "DIFFERENT");
  }
  for (const RecheckedEvaluation& ev : report.evaluations) {
    if (ev.result == RecheckResult::kSame) line(ev, "same     ");
    if (ev.result == RecheckResult::kNotRecheckable ||
        ev.result == RecheckResult::kNotAPolicyEvaluation) {
      line(ev, "skipped  ");
    }
  }
  for (const std::string& note : report.notes) {
    absl::StrAppend(&out, "note: ", ToAbsl(json::Sanitize(note)), "\n");
  }
  return out;
}

}  // namespace agentrt
