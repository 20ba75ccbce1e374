// testkit/policy_check.h
//
// Policy conformance: a product states, as a table, what its policy must decide for requests
// its agent could make ("a write outside the workspace is denied", "a payment needs approval
// of kind payment"), and CheckPolicy asks the policy exactly as the driver would. Each row is
// first validated against the tool's schema with the driver's own acceptance (CheckArgs): a
// request the runtime refuses never reaches the policy, so such a row can only expect
// Refused(). The policy then gets the canonical arguments and the row's run view.
//
// Never checks a property over requests nobody wrote: for every tool it generates valid
// arguments from the tool's input schema (schema_fuzz.h) and reports each decision the
// predicate says must never happen.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/policy.h"
#include "runtime/tool.h"
#include "runtime/types.h"
#include "testkit/report.h"

namespace agentrt::testkit {

// What a row expects: an outcome (with the approval kind for require_approval, "" meaning any
// kind), or that the runtime refuses the request before the policy is asked.
struct Expected {
  bool refused = false;
  PolicyOutcome outcome = PolicyOutcome::kDeny;
  std::string kind;

  std::string Text() const;  // "allow", "require_approval (payment)", "refused", ...
};
Expected Allow();
Expected Deny();
Expected Abort();
Expected RequireApproval(std::string kind = "");
Expected Refused();

struct PolicyCase {
  std::string name;  // names the row in the report
  std::string tool;
  std::string args;  // the agent's bytes; "" or blank counts as {} (as the driver does)
  Expected expect;
  // Optional: shapes the run view the policy sees (starts from DefaultView()).
  std::function<void(RunView&)> view;
};

// The view a row's policy sees unless the row shapes it: a RUNNING run "testkit-run" at its
// first step (step_count 1, default limits), no steps before, no approvals.
RunView DefaultView();

// CheckPolicy asks `policy` every row of `table` and reports each disagreement as one row of
// a table (row, expected, got, reason). Errors (not failures): a tool the driver would refuse
// to register, two tools with one name.
absl::StatusOr<Report> CheckPolicy(Policy& policy, const std::vector<Tool*>& tools,
                                   const std::vector<PolicyCase>& table);

struct NeverOptions {
  std::uint64_t seed = 1;
  int per_tool = 50;                   // generated requests per tool (fewer if the schema
                                       // admits fewer distinct documents)
  std::function<void(RunView&)> view;  // optional, as PolicyCase::view
};

// What must never happen: true for a decision the product forbids for that request.
using Forbidden = std::function<bool(const ToolRequest&, const PolicyDecision&)>;

// Never asks `policy` about generated valid requests for every tool and reports each decision
// `forbidden` matches, and each request the policy failed on (an error or an exception is
// never a decision). Errors: a tool refused at registration, a schema no document can satisfy.
absl::StatusOr<Report> Never(Policy& policy, const std::vector<Tool*>& tools,
                             const Forbidden& forbidden, const NeverOptions& options = {});

}  // namespace agentrt::testkit
