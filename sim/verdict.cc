#include "sim/verdict.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/base/string_view.h"
#include "runtime/events.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/equal.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/observe/trace/format.h"
#include "runtime/operator/executions.h"
#include "runtime/reasons.h"
#include "runtime/records/event_payloads.h"
#include "sim/fake_auth_server.h"

namespace agentrt::sim {
namespace {

std::string ListText(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& item : items) quoted.push_back(json::Quoted(item));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

std::string Status(const Outcome& outcome) {
  if (!outcome.run) return "no run";
  std::string status(ToString(outcome.run->status));
  if (!outcome.run->reason.empty()) absl::StrAppend(&status, " (", outcome.run->reason, ")");
  return status;
}

std::string ErrorDifference(const std::string& what, const std::string& expected,
                            const std::vector<std::string>& errors) {
  if (expected.empty()) {
    return errors.empty() ? ""
                          : absl::StrCat(what, ": expected none, got ", json::Quoted(errors[0]));
  }
  for (const std::string& error : errors) {
    if (absl::StrContains(error, expected)) return "";
  }
  return absl::StrCat(what, ": expected one containing ", json::Quoted(expected), ", got ",
                      errors.empty() ? "none" : json::Quoted(errors[0]));
}

// The first of `wanted` not found as a substring of one of `texts`, each after the text the one
// before it was found in; nullopt when all are.
std::optional<std::string> FirstNotInOrder(
    const google::protobuf::RepeatedPtrField<std::string>& wanted,
    const std::vector<std::string>& texts) {
  std::size_t next = 0;
  for (const std::string& want : wanted) {
    while (next < texts.size() && !absl::StrContains(texts[next], want)) ++next;
    if (next == texts.size()) return want;
    ++next;
  }
  return std::nullopt;
}

// Whether every member of `subset` (an object) is in `superset` with an equal value.
bool ArgumentsWithin(std::string_view subset, std::string_view superset) {
  absl::StatusOr<json::Document> small = json::Parse(subset);
  absl::StatusOr<json::Document> large = json::Parse(superset);
  if (!small.ok() || !large.ok()) return false;
  if (!small->root().is_object() || !large->root().is_object()) return false;
  for (std::size_t i = 0; i < small->root().size(); ++i) {
    std::optional<json::Value> found = large->root().Find(small->root().key(i));
    if (!found || !json::Equal(small->root().member(i), *found)) return false;
  }
  return true;
}

// Invariant 1.
void CheckEffects(const Outcome& outcome, const Executions& executions,
                  std::vector<std::string>& broken) {
  // The model-visible name of each (server, tool), as the runtime that made the call registered
  // it: the first one, or the one restarted after a crash (which loaded the servers again).
  using Names = std::map<std::pair<std::string, std::string>, std::string>;
  auto names_of = [](const std::vector<mcp::Report>& reports) {
    Names names;
    for (const mcp::Report& report : reports) {
      for (const mcp::Registered& r : report.registered) names[{report.server, r.tool}] = r.name;
    }
    return names;
  };
  const Names first = names_of(outcome.reports);
  const Names restarted = names_of(outcome.restart_reports);
  // Each start is used by one effect at most: a second effect matching it ran twice.
  std::vector<bool> used(executions.starts.size(), false);
  for (std::size_t i = 0; i < outcome.effects.size(); ++i) {
    const Effect& effect = outcome.effects[i];
    const Names& names = effect.after_restart ? restarted : first;
    auto name = names.find({effect.server, effect.tool});
    std::string described =
        absl::StrCat("call ", i + 1, " to ", json::Quoted(effect.server), "/",
                     json::Quoted(effect.tool), " ", json::Sanitize(effect.arguments));
    if (name == names.end()) {
      broken.push_back(absl::StrCat("effect without authority: ", described,
                                    " reached a tool that was never registered"));
      continue;
    }
    std::size_t match = 0;
    while (match < executions.starts.size() &&
           (used[match] || executions.starts[match].tool != name->second ||
            !ArgumentsWithin(executions.starts[match].args, effect.arguments))) {
      ++match;
    }
    if (match == executions.starts.size()) {
      broken.push_back(absl::StrCat("effect without authority or twice: ", described,
                                    " matches no call the runtime started and has not used"));
      continue;
    }
    used[match] = true;
    if (!executions.starts[match].authorized) {
      broken.push_back(absl::StrCat("effect without authority: ", described,
                                    " ran though neither the policy nor an operator allowed it"));
    }
  }
}

// Invariant 2.
void CheckAccounted(const Outcome& outcome, std::vector<std::string>& broken) {
  auto accounted = [&](const std::string& server, const std::string& tool) {
    for (const std::string& error : outcome.load_errors) {
      if (absl::StartsWith(error, absl::StrCat(server, ": ")) &&
          std::none_of(outcome.reports.begin(), outcome.reports.end(),
                       [&](const mcp::Report& r) { return r.server == server; })) {
        return true;  // the load failed before any report: its reason covers every tool
      }
    }
    for (const mcp::Report& report : outcome.reports) {
      if (report.server != server) continue;
      for (const auto& r : report.registered) {
        if (r.tool == tool) return true;
      }
      for (const auto& r : report.refused) {
        if (r.tool == tool) return true;
      }
      if (std::find(report.unpinned.begin(), report.unpinned.end(), tool) !=
              report.unpinned.end() ||
          std::find(report.unclassified.begin(), report.unclassified.end(), tool) !=
              report.unclassified.end()) {
        return true;
      }
    }
    return false;
  };
  for (const auto* list : {&outcome.offered, &outcome.pinned}) {
    for (const auto& [server, tools] : *list) {
      for (const std::string& tool : tools) {
        if (!accounted(server, tool)) {
          broken.push_back(absl::StrCat("tool not accounted for: ", json::Quoted(server), "/",
                                        json::Quoted(tool),
                                        " is neither registered nor in the report"));
        }
      }
    }
  }
}

void CheckLine(const std::string& what, std::string_view line, std::vector<std::string>& broken) {
  if (json::Sanitize(line) != line) {
    broken.push_back(absl::StrCat("unescaped text in ", what, ": ", json::QuoteBytes(line, 200)));
  }
}

// Invariant 5.
void CheckPrintable(const Outcome& outcome, std::vector<std::string>& broken) {
  for (const store::Event& event : outcome.events) {
    std::string line = trace::TextLine(event);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    CheckLine(absl::StrCat("the trace line of event ", event.seq), line, broken);
  }
  for (const mcp::Report& report : outcome.reports) {
    std::string text = report.Text();
    // One line per entry: a newline a server chose would split an entry into clean-looking
    // lines, each of which passes the check below.
    std::size_t entries = report.registered.size() + report.refused.size() +
                          report.unpinned.size() + report.unclassified.size();
    if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) != entries) {
      broken.push_back(absl::StrCat("unescaped text in the report of ", json::Quoted(report.server),
                                    ": ", entries, " entries but a different number of lines"));
    }
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      CheckLine("a report line", ToStd(line), broken);
    }
  }
  for (const auto* errors : {&outcome.pin_errors, &outcome.load_errors}) {
    for (const std::string& error : *errors) CheckLine("an error", error, broken);
  }
}

// Invariant 6: no secret of a simulated authorization (a token its server issued, the operator's
// client secret) reaches the audit log, a report or an error.
void CheckSecrets(const Outcome& outcome, std::vector<std::string>& broken) {
  auto check = [&](std::string_view where, std::string_view text) {
    for (std::string_view secret : {std::string_view("sim-token-"), kSimClientSecret}) {
      if (text.find(secret) != std::string_view::npos) {
        broken.push_back(absl::StrCat("a secret of the authorization (", ToAbsl(secret),
                                      "...) is in ", ToAbsl(where)));
        return;
      }
    }
  };
  for (const store::Event& event : outcome.events) {
    check(absl::StrCat("the payload of event ", event.seq), event.payload_json);
  }
  for (const mcp::Report& report : outcome.reports) check("a report", report.Text());
  for (const auto* errors : {&outcome.pin_errors, &outcome.load_errors}) {
    for (const std::string& error : *errors) check("an error", error);
  }
}

// Invariant 7: every reason the runtime gives is one of its vocabulary (runtime/reasons.h, the
// tool failures of runtime/types.h): a refusal a program cannot read is a refusal nobody acts on.
void CheckVocabulary(const Outcome& outcome, std::vector<std::string>& broken) {
  auto known = [](std::string_view r) {
    return std::find(reason::kAll.begin(), reason::kAll.end(), r) != reason::kAll.end();
  };
  if (outcome.run && IsTerminal(outcome.run->status) && !known(outcome.run->reason)) {
    broken.push_back(absl::StrCat("the run ended with a reason outside the vocabulary: ",
                                  json::Quoted(outcome.run->reason)));
  }
  for (const store::Event& event : outcome.events) {
    if (std::optional<records::RunFinished> finished =
            records::DecodeIf<records::RunFinished>(event);
        finished && !known(finished->reason)) {
      broken.push_back(absl::StrCat("event ", event.seq, " ends the run with a reason outside ",
                                    "the vocabulary: ", json::Quoted(finished->reason)));
    }
  }
  for (std::size_t i = 0; i < outcome.observations.size(); ++i) {
    // An observation reads "<kind> <content>" (play.h).
    std::string_view observation = outcome.observations[i];
    const std::string_view kind = ToString(ObservationKind::kToolError);
    if (!observation.starts_with(kind) || observation.substr(kind.size(), 1) != " ") continue;
    absl::StatusOr<json::Document> content = json::Parse(observation.substr(kind.size() + 1));
    if (!content.ok() || !content->root().is_object()) continue;
    std::optional<json::Value> failure = content->root().Find("failure");
    if (!failure) continue;
    bool named = failure->is_string() && ParseToolFailure(failure->string_value()).has_value();
    if (!named) {
      broken.push_back(absl::StrCat("step ", i + 1, "'s tool failure is outside the vocabulary: ",
                                    json::Quoted(json::Truncate(observation, 200))));
    }
  }
}

// Invariant 8: what reaches a server is what the operator's authority allows. A tool never
// pinned is never called; a parameter the rules deny never arrives, and a fixed one arrives with
// its fixed value whatever the agent wrote; a granted approval runs exactly the call it was
// shown, once.
void CheckAuthorityKept(const Outcome& outcome, const Executions& executions,
                        std::vector<std::string>& broken) {
  for (std::size_t i = 0; i < outcome.effects.size(); ++i) {
    const Effect& effect = outcome.effects[i];
    std::string described = absl::StrCat("call ", i + 1, " to ", json::Quoted(effect.server), "/",
                                         json::Quoted(effect.tool));
    bool pinned = std::any_of(outcome.pinned.begin(), outcome.pinned.end(), [&](const auto& p) {
      return p.first == effect.server &&
             std::find(p.second.begin(), p.second.end(), effect.tool) != p.second.end();
    });
    if (!pinned) broken.push_back(absl::StrCat(described, " reached a tool that was never pinned"));
    auto rules = outcome.rules.find(effect.server);
    if (rules == outcome.rules.end()) continue;
    auto rule = rules->second.find(effect.tool);
    if (rule == rules->second.end()) continue;
    absl::StatusOr<json::Document> args = json::Parse(effect.arguments);
    if (!args.ok() || !args->root().is_object()) continue;
    for (const std::string& denied : rule->second.deny) {
      if (!rule->second.fixed.contains(denied) && args->root().Find(denied)) {
        broken.push_back(
            absl::StrCat(described, " carried the denied parameter ", json::Quoted(denied)));
      }
    }
    for (const auto& [name, value] : rule->second.fixed) {
      std::optional<json::Value> got = args->root().Find(name);
      absl::StatusOr<json::Document> want = json::Parse(value);
      if (!want.ok() || !got || !json::Equal(*got, want->root())) {
        broken.push_back(absl::StrCat(described, " did not carry the fixed parameter ",
                                      json::Quoted(name), " as fixed (", value, ")"));
      }
    }
  }
  for (const ToolStart& start : executions.starts) {
    if (start.approval_id.empty()) continue;
    auto approval = std::find_if(outcome.approvals.begin(), outcome.approvals.end(),
                                 [&](const Approval& a) { return a.id == start.approval_id; });
    if (approval == outcome.approvals.end()) {
      broken.push_back(absl::StrCat("event ", start.seq, " runs under approval ", start.approval_id,
                                    ", which the run does not have"));
      continue;
    }
    absl::StatusOr<json::Document> request = json::Parse(approval->request);
    std::optional<json::Value> args;
    if (request.ok() && request->root().is_object()) args = request->root().Find("args");
    std::string shown = args ? json::WriteCanonical(*args) : "";
    absl::StatusOr<std::string> ran = json::Canonicalize(start.args);
    if (!ran.ok() || shown != *ran || approval->step_id != start.step_id) {
      broken.push_back(absl::StrCat("event ", start.seq, " runs a call other than approval ",
                                    start.approval_id, " was shown"));
    }
  }
  for (const auto& [approval, starts] : executions.starts_by_grant) {
    if (starts > 1) {
      broken.push_back(absl::StrCat("approval ", approval, " ran ", starts, " times"));
    }
  }
  if (!outcome.operator_difference.empty()) broken.push_back(outcome.operator_difference);
  if (outcome.stale_events > 0) {
    broken.push_back(absl::StrCat("a stale owner wrote ", outcome.stale_events,
                                  " events after another had taken its run over"));
  }
}

}  // namespace

std::string FirstDifference(const v1::Expect& expect, const Outcome& outcome) {
  if (expect.invariants_only()) return "";
  // The provider's side is part of what the scenario expects: a perturbed story may make the
  // model ask what the recorded conversation never answered, which only a robust scenario
  // promises against.
  if (!outcome.provider_difference.empty()) {
    return absl::StrCat("provider: ", outcome.provider_difference);
  }
  if (!outcome.host_difference.empty()) return absl::StrCat("host: ", outcome.host_difference);
  if (std::string d = ErrorDifference("pin error", expect.pin_error(), outcome.pin_errors);
      !d.empty()) {
    return d;
  }
  if (std::string d = ErrorDifference("load error", expect.load_error(), outcome.load_errors);
      !d.empty()) {
    return d;
  }
  std::vector<std::string> got_registered;
  for (const mcp::Report& report : outcome.reports) {
    for (const mcp::Registered& r : report.registered) got_registered.push_back(r.name);
  }
  if (expect.nothing_registered() && !got_registered.empty()) {
    return absl::StrCat("registered: expected nothing, got ", ListText(got_registered));
  }
  if (!expect.registered().empty()) {
    std::vector<std::string> got = got_registered;
    std::vector<std::string> want(expect.registered().begin(), expect.registered().end());
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want) {
      return absl::StrCat("registered: expected ", ListText(want), ", got ", ListText(got));
    }
  }
  for (const v1::Refusal& refusal : expect.refused()) {
    bool found = false;
    std::string nearest;
    for (const mcp::Report& report : outcome.reports) {
      if (!refusal.server().empty() && report.server != refusal.server()) continue;
      for (const mcp::Refused& r : report.refused) {
        if (r.tool != refusal.tool()) continue;
        nearest = r.reason;
        if (absl::StrContains(r.reason, refusal.reason())) found = true;
      }
    }
    if (!found) {
      return absl::StrCat("refused ", json::Quoted(refusal.tool()),
                          ": expected a reason containing ", json::Quoted(refusal.reason()),
                          ", got ", nearest.empty() ? "no refusal" : json::Quoted(nearest));
    }
  }
  auto in_reports = [&](const std::string& tool, bool unpinned) {
    for (const mcp::Report& report : outcome.reports) {
      const std::vector<std::string>& list = unpinned ? report.unpinned : report.unclassified;
      if (std::find(list.begin(), list.end(), tool) != list.end()) return true;
    }
    return false;
  };
  for (const std::string& tool : expect.unpinned()) {
    if (!in_reports(tool, true)) return absl::StrCat("unpinned: expected ", json::Quoted(tool));
  }
  for (const std::string& tool : expect.unclassified()) {
    if (!in_reports(tool, false))
      return absl::StrCat("unclassified: expected ", json::Quoted(tool));
  }
  if (!expect.status().empty()) {
    std::string got = outcome.run ? std::string(ToString(outcome.run->status)) : "no run";
    if (got != absl::AsciiStrToUpper(expect.status())) {
      return absl::StrCat("status: expected ", expect.status(), ", got ", Status(outcome));
    }
  }
  if (!expect.reason().empty() &&
      (!outcome.run || !absl::StrContains(outcome.run->reason + " " + outcome.run->reason_detail,
                                          expect.reason()))) {
    return absl::StrCat(
        "reason: expected one containing ", json::Quoted(expect.reason()), ", got ",
        Status(outcome),
        outcome.run ? absl::StrCat(" ", json::Quoted(outcome.run->reason_detail)) : "");
  }
  if (!expect.events().empty()) {
    std::vector<std::string> got;
    for (const store::Event& event : outcome.events) got.push_back(event.type);
    for (int i = 0; i < std::max<int>(expect.events_size(), static_cast<int>(got.size())); ++i) {
      std::string want = i < expect.events_size() ? expect.events(i) : "(the end)";
      std::string have = i < static_cast<int>(got.size()) ? got[i] : "(the end)";
      if (want != have) {
        return absl::StrCat("events[", i, "]: expected ", want, ", got ", have);
      }
    }
  }
  std::vector<std::string> payloads;
  for (const store::Event& event : outcome.events) payloads.push_back(event.payload_json);
  if (std::optional<std::string> missing = FirstNotInOrder(expect.payloads(), payloads)) {
    return absl::StrCat("payloads: no event (in order) contains ", json::Quoted(*missing));
  }
  if (std::optional<std::string> missing =
          FirstNotInOrder(expect.observations(), outcome.observations)) {
    return absl::StrCat(
        "observations: no step (in order) observed ", json::Quoted(*missing),
        outcome.observations.empty()
            ? ""
            : absl::StrCat("; the last was ",
                           json::Quoted(json::Truncate(outcome.observations.back(), 200))));
  }
  std::vector<std::string> received;
  for (const Effect& e : outcome.effects) {
    received.push_back(absl::StrCat(e.server, "/", e.tool, " ", e.arguments));
  }
  if (std::optional<std::string> missing = FirstNotInOrder(expect.received(), received)) {
    return absl::StrCat("received: no call (in order) the servers received contains ",
                        json::Quoted(*missing));
  }
  if (expect.has_effects() && static_cast<int>(outcome.effects.size()) != expect.effects()) {
    return absl::StrCat("effects: expected ", expect.effects(), ", got ", outcome.effects.size());
  }
  if (expect.has_steps()) {
    int got = outcome.run ? outcome.run->step_count : 0;
    if (got != expect.steps())
      return absl::StrCat("steps: expected ", expect.steps(), ", got ", got);
  }
  return "";
}

std::vector<std::string> BrokenInvariants(const Outcome& outcome) {
  std::vector<std::string> broken;
  // The log's tool starts and their authority, read once for invariants 1 and 8.
  const Executions executions = ReadExecutions(outcome.events);
  CheckEffects(outcome, executions, broken);
  CheckAccounted(outcome, broken);
  if (!outcome.chain_break.empty()) {
    broken.push_back(absl::StrCat("the audit chain does not verify: ", outcome.chain_break));
  }
  if (!outcome.row_contradiction.empty()) {
    broken.push_back(
        absl::StrCat("a row contradicts the audit chain: ", outcome.row_contradiction));
  }
  if (outcome.run) {
    if (outcome.run->status == RunStatus::kRunning ||
        outcome.run->status == RunStatus::kInterrupted) {
      broken.push_back(absl::StrCat("the run was left ", ToAbsl(ToString(outcome.run->status))));
    }
    if (outcome.settled_after > outcome.settle_bound) {
      broken.push_back(absl::StrCat("the run took ", absl::FormatDuration(outcome.settled_after),
                                    " of virtual time to settle after its last fault, past its "
                                    "bound of ",
                                    absl::FormatDuration(outcome.settle_bound)));
    }
    if (outcome.run->step_count > outcome.max_steps) {
      broken.push_back(absl::StrCat("the run took ", outcome.run->step_count,
                                    " steps, past its limit of ", outcome.max_steps));
    }
  }
  CheckPrintable(outcome, broken);
  CheckSecrets(outcome, broken);
  CheckVocabulary(outcome, broken);
  CheckAuthorityKept(outcome, executions, broken);
  return broken;
}

}  // namespace agentrt::sim
