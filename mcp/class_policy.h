// mcp/class_policy.h
//
// The operator's policy by side-effect class, as an MCP configuration writes it (its
// `policy`, and a rule's `outcome` for one tool; docs/mcp.md, "The configuration"): every request
// of a class gets the class's outcome — allow, deny, or require approval — unless the tool's rule
// says otherwise. An approval it requires binds the tool and its arguments (capability {"tool",
// "args"}) and shows the operator the question, the tool, its class and the arguments.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/policy.h"
#include "runtime/types.h"

namespace agentrt::mcp {

class ClassPolicy final : public Policy {
 public:
  // `classes`: the outcome of each class (a class left out is denied); `tools`: outcomes for
  // model-visible tool names that override their class.
  ClassPolicy(std::map<SideEffect, PolicyOutcome> classes,
              std::map<std::string, PolicyOutcome> tools = {});

  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView& view) override;
  // "mcp-class-policy/1:" and the hash of the table, so a re-check knows a changed policy.
  std::string Id() const override { return id_; }

 private:
  const std::map<SideEffect, PolicyOutcome> classes_;
  const std::map<std::string, PolicyOutcome> tools_;
  const std::string id_;
};

}  // namespace agentrt::mcp
