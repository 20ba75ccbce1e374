// runtime/policy.h
//
// The operator's policy: it sees each tool request in canonical form (after schema validation)
// with the run as it stood when the step started, and answers allow, deny (an observation),
// abort (the run ends) or require_approval (the run pauses for a human, bound by hash to the
// request). The agent never sees or influences it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"
#include "runtime/step_list.h"
#include "runtime/types.h"

namespace agentrt {

struct ToolRequest {
  std::string run_id;
  std::string step_id;
  ToolSpec spec;
  std::string args;  // canonical JSON
};

struct RunView {
  Run run;                          // as read when the step started
  StepList steps;                   // the steps before this one (shared, read-only)
  std::vector<Approval> approvals;  // every approval of the run so far
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request,
                                                  const RunView& view) = 0;
  // A name and version for the recorded evaluation; "" when the policy has none.
  virtual std::string Id() const { return ""; }
};

// DefaultPolicy decides by the tool's side-effect class, which the operator assigned:
// read_only and local_mutation are allowed, remote_mutation requires approval (kind
// "remote_mutation"; capability and presentation {"args":…,"tool":…}), destructive is denied.
std::unique_ptr<Policy> DefaultPolicy();

// NeedApproval is the require_approval decision a consumer's policy returns: `capability` (what
// the grant allows) and `presentation` (what the operator is shown) are JSON texts, "{}" when
// empty, stored canonical and bound by the approval's hash. InvalidArgument naming which one
// is not JSON, and why.
absl::StatusOr<PolicyDecision> NeedApproval(std::string_view kind, std::string_view reason,
                                            std::string_view capability,
                                            std::string_view presentation);

// DecodePresentation parses an approval's presentation back, for a consumer that shows it its
// own way. InvalidArgument naming the approval when it is empty or not JSON.
absl::StatusOr<json::Document> DecodePresentation(const Approval& approval);

}  // namespace agentrt
