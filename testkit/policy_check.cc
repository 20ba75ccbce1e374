#include "testkit/policy_check.h"

#include <exception>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/stored_forms.h"
#include "runtime/tool_registry.h"
#include "testkit/schema_fuzz.h"

namespace agentrt::testkit {
namespace {

// The tools as the driver registers them: each spec checked and compiled once.
absl::StatusOr<std::map<std::string, RecordedSpec, std::less<>>> Register(
    const std::vector<Tool*>& tools) {
  std::map<std::string, RecordedSpec, std::less<>> specs;
  for (Tool* tool : tools) {
    AGENTRT_ASSIGN_OR_RETURN(RecordedSpec spec, RecordSpec(tool->Spec()));
    std::string name = spec.spec.name;
    if (!specs.emplace(name, std::move(spec)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate tool \"", ToAbsl(json::Sanitize(name)), "\""));
    }
  }
  return specs;
}

RunView ViewFor(const std::function<void(RunView&)>& shape) {
  RunView view = DefaultView();
  if (shape) shape(view);
  return view;
}

// Asks the policy as the driver's Judge does: canonical arguments, the run's id, a step id,
// the spec as the tool gave it; an exception is an error, never a decision.
absl::StatusOr<PolicyDecision> Ask(Policy& policy, const RecordedSpec& spec, std::string_view args,
                                   const RunView& view) {
  ToolRequest request;
  request.run_id = view.run.id;
  request.step_id = "testkit-step";
  request.spec = spec.spec;
  AGENTRT_ASSIGN_OR_RETURN(request.args, json::Canonicalize(Blank(args) ? "{}" : args));
  try {
    AGENTRT_ASSIGN_OR_RETURN(PolicyDecision d, policy.Evaluate(request, view));
    if (d.outcome_text.empty()) d.outcome_text = std::string(ToString(d.outcome));
    return d;
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("policy threw: ", e.what()));
  } catch (...) {
    return absl::InternalError("policy threw a non-standard exception");
  }
}

std::string OutcomeText(const PolicyDecision& d) {
  if (d.outcome == PolicyOutcome::kUnknown) return absl::StrCat("unknown \"", d.outcome_text, "\"");
  std::string text(ToString(d.outcome));
  if (d.outcome == PolicyOutcome::kRequireApproval) absl::StrAppend(&text, " (", d.kind, ")");
  return text;
}

bool Agrees(const Expected& expected, const PolicyDecision& got) {
  if (expected.refused || got.outcome != expected.outcome) return false;
  return got.outcome != PolicyOutcome::kRequireApproval || expected.kind.empty() ||
         expected.kind == got.kind;
}

}  // namespace

std::string Expected::Text() const {
  if (refused) return "refused";
  std::string text(ToString(outcome));
  if (outcome == PolicyOutcome::kRequireApproval && !kind.empty()) {
    absl::StrAppend(&text, " (", kind, ")");
  }
  return text;
}

Expected Allow() { return Expected{false, PolicyOutcome::kAllow, ""}; }
Expected Deny() { return Expected{false, PolicyOutcome::kDeny, ""}; }
Expected Abort() { return Expected{false, PolicyOutcome::kAbort, ""}; }
Expected RequireApproval(std::string kind) {
  return Expected{false, PolicyOutcome::kRequireApproval, std::move(kind)};
}
Expected Refused() { return Expected{true, PolicyOutcome::kDeny, ""}; }

RunView DefaultView() {
  RunView view;
  view.run.id = "testkit-run";
  view.run.goal = "policy conformance";
  view.run.status = RunStatus::kRunning;
  view.run.step_count = 1;
  view.run.created_at = absl::FromUnixSeconds(1'800'000'000);
  return view;
}

absl::StatusOr<Report> CheckPolicy(Policy& policy, const std::vector<Tool*>& tools,
                                   const std::vector<PolicyCase>& table) {
  AGENTRT_ASSIGN_OR_RETURN(auto specs, Register(tools));
  Report report;
  report.title = "policy conformance";
  report.header = {"row", "expected", "got", "reason"};
  for (const PolicyCase& row : table) {
    ++report.checked;
    auto disagree = [&](std::string got, std::string reason) {
      report.failures.push_back({row.name, row.expect.Text(), std::move(got), std::move(reason)});
    };
    auto spec = specs.find(row.tool);
    if (spec == specs.end()) {
      // The driver answers an unknown tool as an invalid decision: refused.
      if (!row.expect.refused) disagree("refused", absl::StrCat("unknown tool \"", row.tool, "\""));
      continue;
    }
    if (absl::Status accepted = CheckArgs(spec->second, row.args); !accepted.ok()) {
      if (!row.expect.refused) disagree("refused", std::string(ToStd(accepted.message())));
      continue;
    }
    absl::StatusOr<PolicyDecision> got = Ask(policy, spec->second, row.args, ViewFor(row.view));
    if (!got.ok()) {
      disagree("policy error", std::string(ToStd(got.status().message())));
    } else if (!Agrees(row.expect, *got)) {
      disagree(OutcomeText(*got), got->reason);
    }
  }
  return report;
}

absl::StatusOr<Report> Never(Policy& policy, const std::vector<Tool*>& tools,
                             const Forbidden& forbidden, const NeverOptions& options) {
  AGENTRT_ASSIGN_OR_RETURN(auto specs, Register(tools));
  Report report;
  report.title = "never";
  report.header = {"tool", "args", "got", "reason"};
  RunView view = ViewFor(options.view);
  std::uint64_t salt = 0;
  for (const auto& [name, spec] : specs) {
    absl::StatusOr<std::vector<std::string>> generated = Valid(
        spec.spec.input_schema, options.seed + 0x9e3779b97f4a7c15ULL * ++salt, options.per_tool);
    if (!generated.ok()) {
      return absl::Status(generated.status().code(),
                          absl::StrCat("tool \"", ToAbsl(json::Sanitize(name)),
                                       "\": ", generated.status().message()));
    }
    for (const std::string& args : *generated) {
      ++report.checked;
      absl::StatusOr<PolicyDecision> got = Ask(policy, spec, args, view);
      if (!got.ok()) {
        report.failures.push_back(
            {name, args, "policy error", std::string(ToStd(got.status().message()))});
        continue;
      }
      ToolRequest request;
      request.run_id = view.run.id;
      request.step_id = "testkit-step";
      request.spec = spec.spec;
      request.args = args;
      if (forbidden(request, *got)) {
        report.failures.push_back({name, args, OutcomeText(*got), got->reason});
      }
    }
  }
  return report;
}

}  // namespace agentrt::testkit
