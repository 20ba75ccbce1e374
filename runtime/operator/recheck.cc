#include "runtime/operator/recheck.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/operator/view/display.h"
#include "runtime/records/event_payloads.h"
#include "runtime/records/rows.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/stored_forms.h"
#include "runtime/tool_registry.h"
#include "runtime/world/timestamp.h"

namespace agentrt {
namespace {

constexpr std::int64_t kEventPage = 128;
constexpr std::int64_t kStepPage = 128;
// At most this many approvals are read (whole) for the views; an evaluation whose view counted
// more is not re-checkable.
constexpr std::int64_t kMaxApprovalsRead = 1024;
constexpr std::string_view kPolicyErrorPrefix = "policy error: ";
constexpr std::string_view kPolicyRunPrefix = "policy: ";
constexpr std::string_view kRecordedBefore = "recorded before schema version 6";

// A payload ListEventsAfter cut at Store::kMaxPageText: {"head":…,"length":N,"truncated":true}.
bool IsCut(json::Value root) {
  std::optional<json::Value> truncated = root.Find("truncated");
  return truncated && truncated->is_bool() && truncated->bool_value() &&
         root.Find("head").has_value() && root.Find("length").has_value();
}

// Untrusted text from the database, fit for a detail line.
std::string Shown(std::string_view text) { return json::Truncate(json::Sanitize(text), 80); }

// What the event scan keeps of one evaluation (a step.policy event), or of a policy that
// failed and left none (a step.failed "policy error: …" not right after its step's
// step.policy).
struct Entry {
  bool policy_failed = false;
  std::int64_t seq = 0;
  std::string step_id;
  absl::Time at = absl::InfinitePast();
  std::optional<records::StepPolicy> policy;  // nullopt when not JSON or cut
  bool cut = false;
  std::string failure;  // policy_failed: the step.failed detail
  // The driver refused this answer as invalid (a capability or presentation that is not JSON):
  // the step failed with "policy error: …" right after the evaluation, and the run.finished
  // that follows says why ("capability is not usable JSON: …").
  bool refused = false;
  std::string refused_reason;
};

// What the event scan learns of the run.
struct Scan {
  bool created_seen = false;
  bool created_cut = false;
  bool created_has_tools = false;  // run.created lists the tools' spec hashes (schema 6 on)
  std::string goal;
  Limits limits;
  absl::Time created_at = absl::InfinitePast();
  std::vector<Entry> entries;
  // approval id -> (seq, status) of each approval.decided, in seq order.
  std::map<std::string, std::vector<std::pair<std::int64_t, std::optional<ApprovalStatus>>>,
           std::less<>>
      decisions;
};

// Reads the run's events a page at a time (payloads capped at kMaxPageText), keeping only what
// the re-check needs.
absl::StatusOr<Scan> ScanEvents(store::Store& store, std::string_view run_id) {
  Scan scan;
  std::string previous_type, previous_step;
  std::optional<std::size_t> refused_by_previous;  // the entry the previous step.failed refused
  for (std::int64_t after = 0;;) {
    AGENTRT_ASSIGN_OR_RETURN(std::vector<store::Event> page,
                             store.ListEventsAfter(run_id, after, kEventPage));
    for (store::Event& e : page) {
      after = e.seq;
      absl::StatusOr<json::Document> doc = json::Parse(e.payload_json);
      bool cut = doc.ok() && IsCut(doc->root());
      bool readable = doc.ok() && !cut;
      std::optional<std::size_t> refused_here;
      if (e.type == event::kRunCreated) {
        scan.created_seen = true;
        scan.created_cut = !readable;
        if (readable) {
          records::RunCreated created = records::RunCreated::From(doc->root());
          scan.goal = std::move(created.goal);
          if (created.limits) scan.limits = *created.limits;
          scan.created_has_tools = created.lists_tools;
          scan.created_at = world::ParseTimestamp(e.at).value_or(absl::InfinitePast());
        }
      } else if (e.type == event::kApprovalDecided && readable) {
        records::ApprovalDecided decided = records::ApprovalDecided::From(doc->root());
        scan.decisions[decided.approval_id].emplace_back(e.seq, decided.status);
      } else if (e.type == event::kStepPolicy) {
        Entry entry;
        entry.seq = e.seq;
        entry.step_id = e.step_id;
        entry.at = world::ParseTimestamp(e.at).value_or(absl::InfinitePast());
        entry.cut = cut;
        if (readable) entry.policy = records::StepPolicy::From(doc->root());
        scan.entries.push_back(std::move(entry));
      } else if (e.type == event::kStepFailed && readable) {
        std::string detail = records::StepFailed::From(doc->root()).detail;
        if (absl::StartsWith(detail, ToAbsl(kPolicyErrorPrefix))) {
          bool after_its_evaluation = previous_type == event::kStepPolicy &&
                                      previous_step == e.step_id && !scan.entries.empty() &&
                                      !scan.entries.back().policy_failed &&
                                      scan.entries.back().step_id == e.step_id;
          if (after_its_evaluation) {
            Entry& refused = scan.entries.back();
            refused.refused = true;
            refused.refused_reason = detail.substr(kPolicyErrorPrefix.size());
            refused_here = scan.entries.size() - 1;
          } else {
            Entry failed;
            failed.policy_failed = true;
            failed.seq = e.seq;
            failed.step_id = e.step_id;
            failed.failure = std::move(detail);
            scan.entries.push_back(std::move(failed));
          }
        }
      } else if (e.type == event::kRunFinished && refused_by_previous && readable) {
        // The run's detail carries the whole reason of the refusal its step's detail names.
        std::string detail = records::RunFinished::From(doc->root()).detail;
        if (absl::StartsWith(detail, ToAbsl(kPolicyRunPrefix))) {
          scan.entries[*refused_by_previous].refused_reason =
              detail.substr(kPolicyRunPrefix.size());
        }
      }
      refused_by_previous = refused_here;
      previous_type = std::move(e.type);
      previous_step = std::move(e.step_id);
    }
    if (static_cast<std::int64_t>(page.size()) < kEventPage) break;
  }
  return scan;
}

// The run's steps by index, read a page at a time and whole: an evaluation hands the policy the
// steps before it as they were, so a re-check must too.
absl::StatusOr<std::vector<Step>> ReadAllSteps(store::Store& store, std::string_view run_id) {
  std::vector<Step> steps;
  for (std::int64_t offset = 0;; offset += kStepPage) {
    rows::StepsPage page;
    AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
      AGENTRT_ASSIGN_OR_RETURN(
          page, rows::ReadStepsPage(tx, run_id, kStepPage, offset,
                                    std::numeric_limits<std::int64_t>::max(), kMaxPageField));
      return absl::OkStatus();
    }));
    for (Step& s : page.steps) steps.push_back(std::move(s));
    if (static_cast<std::int64_t>(page.steps.size()) < kStepPage) break;
  }
  return steps;
}

// The spec recorded under `hash`, decoded, and its stored JSON. Re-hashing refuses a row that
// does not match its key (someone changed it): DataLoss; NotFound when none is stored.
absl::StatusOr<std::pair<ToolSpec, std::string>> StoredSpec(store::Store& store,
                                                            std::string_view hash) {
  std::string name = absl::StrCat("tool spec ", ToAbsl(Shown(hash)));
  std::optional<std::string> json;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(json, rows::ReadToolSpec(tx, hash));
    return absl::OkStatus();
  }));
  if (!json.has_value()) return absl::NotFoundError(absl::StrCat(name, " is not stored"));
  if (json::Sha256Hex(*json) != hash) {
    return absl::DataLossError(
        absl::StrCat(name, " does not match its hash: the stored tool_specs row was changed"));
  }
  absl::StatusOr<json::Document> doc = json::Parse(*json);
  if (!doc.ok()) {
    return absl::DataLossError(absl::StrCat(name, " is not JSON: ", doc.status().message()));
  }
  json::Value root = doc->root();
  std::optional<json::Value> schema = root.Find("input_schema");
  std::optional<SideEffect> side_effect = ParseSideEffect(json::MemberText(root, "side_effect"));
  if (!schema || !side_effect) {
    return absl::DataLossError(absl::StrCat(name, " has no input schema or side effect"));
  }
  ToolSpec spec;
  spec.name = json::MemberText(root, "name");
  spec.description = json::MemberText(root, "description");
  spec.input_schema = json::WriteCanonical(*schema);
  spec.side_effect = *side_effect;
  spec.timeout = absl::Nanoseconds(json::MemberInt(root, "timeout"));
  std::optional<json::Value> terminal = root.Find("terminal");
  spec.terminal = terminal && terminal->is_bool() && terminal->bool_value();
  return std::pair<ToolSpec, std::string>{std::move(spec), *std::move(json)};
}

std::string Describe(std::string_view outcome, std::string_view kind) {
  return kind.empty() ? std::string(outcome)
                      : absl::StrCat(ToAbsl(outcome), " (", ToAbsl(kind), ")");
}

// The request JSON an approval binds, exactly as the driver builds it (Session::RequestJson).
std::string RequestJson(std::string_view run_id, std::string_view step_id,
                        std::string_view spec_json, std::string_view args) {
  return json::JsonObject()
      .String("run_id", run_id)
      .String("step_id", step_id)
      .Raw("spec", spec_json)
      .Raw("args", args)
      .Build();
}

struct CurrentTool {
  Tool* tool = nullptr;
  absl::StatusOr<RecordedSpec> spec;
};

// Everything an evaluation is re-checked against.
struct Context {
  store::Store& store;
  const Run& run;
  Policy& policy;
  const Scan& scan;
  const std::vector<Step>& steps;
  const std::map<std::string, std::size_t, std::less<>>& step_by_id;
  const std::vector<Approval>& approvals;  // the first ones, read whole
  std::int64_t approvals_total = 0;
  const std::map<std::string, CurrentTool, std::less<>>* current = nullptr;
};

// One evaluation as the skip rules see it.
struct Candidate {
  const Context& c;
  const Entry& entry;
  const Step* step;  // the evaluated step; nullptr when it is not stored
};

// A reason an evaluation is not re-checked: `why` gives the detail when the rule applies to the
// candidate, and nullopt when it does not. A rule may assume every rule before it did not apply.
struct SkipRule {
  RecheckResult result;
  std::optional<std::string> (*why)(const Candidate&);
  bool recorded_before_migration = false;  // the evaluation predates schema version 6
};

using Why = std::optional<std::string>;

const records::StepPolicy& PolicyOf(const Candidate& x) { return *x.entry.policy; }
const records::PolicyView& ViewOf(const Candidate& x) { return *x.entry.policy->view; }

// In the order they are asked; the first that applies decides.
constexpr SkipRule kSkipRules[] = {
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (!x.entry.policy_failed) return std::nullopt;
       return "policy failed; no evaluation recorded: " + x.entry.failure;
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (x.entry.policy) return std::nullopt;
       return x.entry.cut
                  ? absl::StrCat("the recorded evaluation is longer than ",
                                 store::Store::kMaxPageText, " characters and was not read whole")
                  : std::string("the recorded evaluation is not JSON");
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (PolicyOf(x).has_view || !PolicyOf(x).spec_hash.empty()) return std::nullopt;
       return absl::StrCat(ToAbsl(kRecordedBefore), ": no run view or spec was recorded");
     },
     /*recorded_before_migration=*/true},
    // The runtime's own pauses record the spec they pause but no view: no policy was asked.
    {RecheckResult::kNotAPolicyEvaluation,
     [](const Candidate& x) -> Why {
       if (PolicyOf(x).has_view) return std::nullopt;
       return std::string(PolicyOf(x).kind == kInterruptedSideEffectKind
                              ? "an interrupted side effect's pause"
                              : "a reconciliation's pause");
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (PolicyOf(x).view) return std::nullopt;
       return "the recorded run view is not an object";
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (!PolicyOf(x).spec_hash.empty()) return std::nullopt;
       return "no spec hash was recorded";
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (x.step != nullptr) return std::nullopt;
       return "the step is not stored";
     }},
    // Of the evaluated step only its decision is handed on (the request's arguments): another of
    // its columns that does not read (the policy column after a refused answer, say) does not
    // matter here. The steps of the view are handed whole and must read.
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (x.step->decision) return std::nullopt;
       return x.step->decode_error.empty() ? std::string("the step records no decision")
                                           : absl::StrCat("the step's decision cannot be read: ",
                                                          ToAbsl(x.step->decode_error));
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (x.step->decision->Kind() == DecisionKind::kToolCall) return std::nullopt;
       return "the step is not a tool call";
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (x.c.scan.created_seen && !x.c.scan.created_cut) return std::nullopt;
       return std::string(x.c.scan.created_seen
                              ? "the run's run.created event cannot be read whole (goal and limits)"
                              : "the run's run.created event is missing (goal and limits)");
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (ViewOf(x).status) return std::nullopt;
       return "the recorded view has no run status";
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       std::int64_t steps = ViewOf(x).steps, approvals = ViewOf(x).approvals;
       if (steps >= 0 && steps <= static_cast<std::int64_t>(x.c.steps.size()) && approvals >= 0 &&
           approvals <= x.c.approvals_total) {
         return std::nullopt;
       }
       return absl::StrCat("the recorded view counts ", steps, " steps and ", approvals,
                           " approvals; the run holds ", x.c.steps.size(), " and ",
                           x.c.approvals_total);
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       if (ViewOf(x).approvals <= static_cast<std::int64_t>(x.c.approvals.size())) {
         return std::nullopt;
       }
       return absl::StrCat("the recorded view counts ", ViewOf(x).approvals,
                           " approvals, more than the ", kMaxApprovalsRead, " a re-check reads");
     }},
    {RecheckResult::kNotRecheckable,
     [](const Candidate& x) -> Why {
       for (std::int64_t i = 0; i < ViewOf(x).steps; ++i) {
         const Step& before = x.c.steps[static_cast<std::size_t>(i)];
         if (!before.decode_error.empty()) {
           return absl::StrCat("step ", before.index,
                               " of the view cannot be read: ", ToAbsl(before.decode_error));
         }
       }
       return std::nullopt;
     }},
};

// What the report shows of an evaluation whatever becomes of it: where it is, the tool, what
// was recorded and whether it was asked on a resume.
RecheckedEvaluation WhatWasRecorded(const Context& c, std::size_t index, const Step* step) {
  const Entry& entry = c.scan.entries[index];
  RecheckedEvaluation ev;
  ev.seq = entry.seq;
  ev.step_id = entry.step_id;
  if (step != nullptr) {
    ev.step_index = step->index;
    if (step->decision) ev.tool = step->decision->tool;
  }
  if (entry.policy_failed) {
    // A failed evaluation after one of the same step was asked on the grant's resume.
    for (std::size_t i = 0; i < index; ++i) {
      const Entry& earlier = c.scan.entries[i];
      if (!earlier.policy_failed && earlier.step_id == entry.step_id) ev.on_resume = true;
    }
  }
  if (entry.policy) {
    ev.recorded = Describe(entry.policy->outcome, entry.policy->kind);
    ev.policy_id = entry.policy->policy_id;
    if (entry.policy->view) {
      ev.on_resume = entry.policy->view->status == RunStatus::kWaitingForApproval;
    }
  }
  return ev;
}

// The view the policy was handed, rebuilt from the run's events, steps and approvals (the skip
// rules have checked every count and step it reads).
RunView RebuildView(const Context& c, const Entry& entry, const records::PolicyView& view) {
  RunView rebuilt;
  rebuilt.run.id = c.run.id;
  rebuilt.run.goal = c.scan.goal;
  rebuilt.run.limits = c.scan.limits;
  rebuilt.run.created_at = c.scan.created_at;
  rebuilt.run.status = *view.status;
  rebuilt.run.step_count = static_cast<int>(view.step_count);
  rebuilt.run.model_calls = view.model_calls;
  rebuilt.run.input_tokens = view.input_tokens;
  rebuilt.run.output_tokens = view.output_tokens;
  rebuilt.run.cached_input_tokens = view.cached_input_tokens;
  rebuilt.run.estimated_cost_micros = view.estimated_cost_micros;
  rebuilt.run.active_time = absl::Milliseconds(view.active_ms);
  rebuilt.steps = StepList(std::vector<Step>(
      c.steps.begin(), c.steps.begin() + static_cast<std::ptrdiff_t>(view.steps)));
  for (std::int64_t i = 0; i < view.approvals; ++i) {
    Approval a = c.approvals[static_cast<std::size_t>(i)];
    // As it stood at this evaluation: the status of its last decision before it; without any
    // recorded decision, by the time it was decided.
    auto decided = c.scan.decisions.find(a.id);
    if (decided != c.scan.decisions.end() && !decided->second.empty()) {
      a.status = ApprovalStatus::kPending;
      for (const auto& [seq, recorded_status] : decided->second) {
        if (seq >= entry.seq) break;
        // A decision only ends pending; a recorded "pending" or an unknown status changes nothing.
        if (recorded_status && *recorded_status != ApprovalStatus::kPending) {
          a.status = *recorded_status;
        }
      }
    } else if (a.decided_at == absl::InfinitePast() || a.decided_at > entry.at) {
      a.status = ApprovalStatus::kPending;
    }
    if (a.status == ApprovalStatus::kPending) {
      a.decided_at = absl::InfinitePast();
      a.decided_by.clear();
      a.note.clear();
    }
    rebuilt.approvals.push_back(std::move(a));
  }
  return rebuilt;
}

RecheckedEvaluation RecheckOne(const Context& c, std::size_t index, bool& pre_migration) {
  const Entry& entry = c.scan.entries[index];
  const Step* step = nullptr;
  if (auto it = c.step_by_id.find(entry.step_id); it != c.step_by_id.end()) {
    step = &c.steps[it->second];
  }
  RecheckedEvaluation ev = WhatWasRecorded(c, index, step);
  auto skipped = [&](RecheckResult result, std::string detail) {
    ev.result = result;
    ev.detail = std::move(detail);
    return ev;
  };
  Candidate candidate{c, entry, step};
  for (const SkipRule& rule : kSkipRules) {
    if (std::optional<std::string> why = rule.why(candidate)) {
      if (rule.recorded_before_migration) pre_migration = true;
      return skipped(rule.result, *std::move(why));
    }
  }
  const records::StepPolicy& p = *entry.policy;
  const std::string &outcome = p.outcome, &kind = p.kind;
  const std::string& spec_hash = p.spec_hash;
  RunView rebuilt = RebuildView(c, entry, *p.view);

  // The request the policy was handed: the recorded spec and the step's arguments.
  absl::StatusOr<std::pair<ToolSpec, std::string>> recorded_spec = StoredSpec(c.store, spec_hash);
  if (!recorded_spec.ok()) {
    return skipped(RecheckResult::kNotRecheckable,
                   std::string(ToStd(recorded_spec.status().message())));
  }
  absl::StatusOr<std::string> args =
      json::Canonicalize(Blank(step->decision->args) ? "{}" : step->decision->args);
  if (!args.ok()) {
    return skipped(RecheckResult::kNotRecheckable, "the recorded arguments are not JSON");
  }
  ToolRequest request;
  request.run_id = c.run.id;
  request.step_id = step->id;
  request.spec = recorded_spec->first;
  request.args = *args;
  std::string recorded_request =
      RequestJson(request.run_id, request.step_id, recorded_spec->second, request.args);
  std::string request_json = recorded_request;
  ev.spec_source = "recorded";
  if (c.current != nullptr) {
    ev.spec_source = "current";
    auto it = c.current->find(request.spec.name);
    if (it == c.current->end()) {
      return skipped(RecheckResult::kDifferent,
                     absl::StrCat("tool \"", ToAbsl(json::Sanitize(request.spec.name)),
                                  "\" is not among the current tools"));
    }
    const absl::StatusOr<RecordedSpec>& now = it->second.spec;
    if (!now.ok()) {
      return skipped(RecheckResult::kDifferent,
                     absl::StrCat("the current tool is refused: ", now.status().message()));
    }
    if (absl::Status valid = CheckArgs(*now, request.args); !valid.ok()) {
      return skipped(
          RecheckResult::kDifferent,
          absl::StrCat("the arguments fail the current tool's schema: ", valid.message()));
    }
    request.spec = now->spec;
    request_json = RequestJson(request.run_id, request.step_id, now->json, request.args);
  }

  absl::StatusOr<PolicyDecision> again;
  try {
    again = c.policy.Evaluate(request, rebuilt);
  } catch (const std::exception& e) {
    again = absl::InternalError(absl::StrCat("policy threw: ", e.what()));
  } catch (...) {
    again = absl::InternalError("policy threw a non-standard exception");
  }
  if (!again.ok()) {
    return skipped(RecheckResult::kDifferent,
                   absl::StrCat("policy failed: ", again.status().message()));
  }
  std::string new_outcome =
      again->outcome_text.empty() ? std::string(ToString(again->outcome)) : again->outcome_text;
  ev.rechecked = Describe(new_outcome, again->kind);
  // The driver's own check of a require_approval answer before it pauses (judge.cc): the
  // capability and presentation must be JSON ("{}" when blank).
  std::string capability = "{}", presentation = "{}", refusal, refused_member;
  if (new_outcome == ToString(PolicyOutcome::kRequireApproval)) {
    for (auto [member, raw, out] : {std::tuple<std::string_view, const std::string*, std::string*>{
                                        "capability", &again->capability, &capability},
                                    {"presentation", &again->presentation, &presentation}}) {
      if (Blank(*raw)) continue;
      absl::StatusOr<std::string> canonical = json::Canonicalize(*raw);
      if (canonical.ok()) {
        *out = *std::move(canonical);
      } else if (refusal.empty()) {
        refused_member = std::string(member);
        refusal =
            absl::StrCat(ToAbsl(member), " is not usable JSON: ", canonical.status().message());
      }
    }
  }
  if (entry.refused) {
    bool alike = !refusal.empty() && new_outcome == outcome && again->kind == kind &&
                 (entry.refused_reason == refusal || entry.refused_reason == refused_member);
    if (alike) {
      return skipped(RecheckResult::kSame,
                     absl::StrCat("an invalid decision, refused as recorded: ", refusal));
    }
    return skipped(
        RecheckResult::kDifferent,
        absl::StrCat("recorded as an invalid decision (", ToAbsl(entry.refused_reason), "), now ",
                     ToAbsl(ev.rechecked), refusal.empty() ? "" : ", refused: ", ToAbsl(refusal)));
  }
  if (!refusal.empty()) {
    return skipped(RecheckResult::kDifferent,
                   absl::StrCat("now an invalid decision: ", ToAbsl(refusal)));
  }
  if (new_outcome != outcome ||
      (outcome == ToString(PolicyOutcome::kRequireApproval) && again->kind != kind)) {
    return skipped(RecheckResult::kDifferent,
                   absl::StrCat("was ", ToAbsl(ev.recorded), ", now ", ToAbsl(ev.rechecked)));
  }
  if (outcome == ToString(PolicyOutcome::kRequireApproval)) {
    // The recorded approval is over the recorded request, the new one over the request as
    // re-checked (the current spec under current tools).
    ev.recorded_hash = ApprovalHash(kind, p.capability_json, p.presentation_json, recorded_request);
    ev.rechecked_hash = ApprovalHash(again->kind, capability, presentation, request_json);
    if (ev.recorded_hash != ev.rechecked_hash) {
      return skipped(RecheckResult::kDifferent,
                     "the same outcome, but a different approval (capability, presentation or "
                     "request changed)");
    }
  }
  return skipped(RecheckResult::kSame, "");
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
  RecheckReport report;
  report.policy_id = policy.Id();
  if (absl::Status id = rows::CheckPolicyId(report.policy_id); !id.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("re-check: ", id.message()));
  }
  // The current tools' specs, asked once each.
  std::map<std::string, CurrentTool, std::less<>> current;
  if (current_tools != nullptr) {
    report.spec_source = "current";
    for (std::size_t i = 0; i < current_tools->size(); ++i) {
      Tool* tool = (*current_tools)[i];
      if (tool == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("re-check: current tool ", i, " is null"));
      }
      ToolSpec spec = tool->Spec();
      std::string name = spec.name;
      if (current.contains(name)) {
        return absl::InvalidArgumentError(absl::StrCat("re-check: duplicate current tool \"",
                                                       ToAbsl(json::Sanitize(name)), "\""));
      }
      current.emplace(std::move(name), CurrentTool{tool, RecordSpec(spec)});
    }
  }

  // Read in this order, so whatever a later read finds covers what an earlier one named (a run
  // still going on may have moved on in between; it is re-checked up to its events).
  std::optional<Run> run;
  AGENTRT_RETURN_IF_ERROR(store.Read([&](store::Transaction& tx) -> absl::Status {
    AGENTRT_ASSIGN_OR_RETURN(run, rows::ReadCappedRun(tx, run_id, store::Store::kMaxPageText));
    return absl::OkStatus();
  }));
  if (!run.has_value()) {
    return absl::NotFoundError(absl::StrCat("run ", ToAbsl(json::Sanitize(run_id)), " not found"));
  }
  AGENTRT_ASSIGN_OR_RETURN(Scan scan, ScanEvents(store, run_id));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<Step> steps, ReadAllSteps(store, run_id));
  std::map<std::string, std::size_t, std::less<>> step_by_id;
  for (std::size_t i = 0; i < steps.size(); ++i) step_by_id.emplace(steps[i].id, i);
  // Only as many approvals as the largest view counted are read, whole.
  std::int64_t wanted = 0;
  for (const Entry& entry : scan.entries) {
    if (entry.policy && entry.policy->view) {
      wanted = std::max(wanted, entry.policy->view->approvals);
    }
  }
  wanted = std::min(wanted, kMaxApprovalsRead);
  ApprovalPage approvals;
  if (wanted > 0) {
    AGENTRT_ASSIGN_OR_RETURN(approvals, ListApprovalsPage(store, run_id, false, wanted, 0));
  }

  report.run_id = run->id;
  report.run_status = run->status;
  report.run_unknown_status = run->unknown_status;
  if (!IsTerminal(run->status)) {
    report.notes.push_back(absl::StrCat("the run is ", ToAbsl(ToString(run->status)),
                                        ": re-checked up to its current state"));
  }
  Context context{store,
                  *run,
                  policy,
                  scan,
                  steps,
                  step_by_id,
                  approvals.approvals,
                  approvals.total,
                  current_tools != nullptr ? &current : nullptr};
  bool any_rechecked = false, any_unknown = false, any_changed = false, pre_migration = false;
  for (std::size_t i = 0; i < scan.entries.size(); ++i) {
    RecheckedEvaluation ev = RecheckOne(context, i, pre_migration);
    if (ev.result == RecheckResult::kSame || ev.result == RecheckResult::kDifferent) {
      any_rechecked = true;
      if (ev.policy_id.empty() || report.policy_id.empty()) {
        any_unknown = true;
      } else if (ev.policy_id != report.policy_id) {
        any_changed = true;
      }
    }
    if (ev.result == RecheckResult::kSame) ++report.same;
    if (ev.result == RecheckResult::kDifferent) ++report.different;
    if (ev.result == RecheckResult::kNotRecheckable) ++report.not_recheckable;
    report.evaluations.push_back(std::move(ev));
  }
  if (pre_migration || (scan.created_seen && !scan.created_cut && !scan.created_has_tools)) {
    report.notes.push_back(absl::StrCat(
        ToAbsl(kRecordedBefore),
        ": evaluations written before it carry no run view or spec and are not re-checked"));
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
                       .StringIfSet("recorded_hash", ev.recorded_hash)
                       .StringIfSet("rechecked_hash", ev.rechecked_hash)
                       .StringIfSet("detail", ev.detail)
                       .StringIfSet("spec_source", ev.spec_source)
                       .String("policy_id", ev.policy_id)
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
      .String("run_status", report.run_unknown_status.empty() ? ToString(report.run_status)
                                                              : report.run_unknown_status)
      .String("policy_id", report.policy_id)
      .String("identity", report.identity)
      .String("spec_source", report.spec_source)
      .Int("same", report.same)
      .Int("different", report.different)
      .Int("not_recheckable", report.not_recheckable)
      .Bool("complete", report.Complete())
      .Raw("evaluations", evaluations)
      .Raw("notes", notes)
      .Build();
}

std::string FormatRecheck(const RecheckReport& report) {
  std::string out = absl::StrCat(
      "run ", ToAbsl(json::Sanitize(report.run_id)), " ",
      ToAbsl(view::DisplayStatus(ToString(report.run_status), report.run_unknown_status)), ": ",
      report.different, " of ", report.same + report.different,
      " re-checked evaluations differ; policy identity ", ToAbsl(report.identity), "; ",
      ToAbsl(report.spec_source), " specs\n");
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
