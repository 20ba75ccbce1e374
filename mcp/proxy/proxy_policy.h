// mcp/proxy/proxy_policy.h
//
// The proxy's policy (docs/proxy.md, "Policy and approvals"), evaluated when a call is proposed
// and again when an approved one is collected:
//  - a tool the proxy does not offer is denied (`tool "<name>" is not offered`);
//  - the decider: the tool rule's outcome (`tool <name> is <outcome> by the operator's rule`),
//    else its class's (`side effect <class> is <outcome> by policy`), a class the map lacks
//    denied (`no policy for side effect "<class>"`); deny stays deny;
//  - a request that re-runs an attempt whose outcome is unknown needs an interruption approval
//    (kind interrupted_side_effect), whatever the policy says short of deny;
//  - otherwise allow, or an approval of the class's kind.
// An approval's capability binds the server, the upstream and model-visible names, the class, the
// arguments, the fixed values (so a fixed value changed between approval and collection asks
// again) and, for a re-run, the attempt it re-runs. A re-run's capability, presentation and reason
// are built alike at the pause and at collection, so the two hash alike.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "mcp/config.h"
#include "mcp/proxy/governed_tool.h"
#include "runtime/policy.h"

namespace agentrt::proxy {

// An earlier attempt of a request whose outcome is unknown.
struct Attempt {
  std::string run_id;
  std::string step_id;
  std::string started_at;  // RFC 3339 (the step's start)
  std::string ended;       // cut_off, timed_out, or no_answer

  std::string Json() const;
  // "timed out before the server answered", "failed without an answer from the server", "was
  // cut off before its outcome was recorded".
  std::string How() const;
};

// The reason of an interruption approval (also its policy reason).
inline constexpr std::string_view kInterruptedReason =
    "interrupted while executing; outcome unknown";

// PolicyId is `agentrt-proxy/sha256:` and the hash of what the policy decides from: the class
// map (the defaults under the configuration's) and, per server sorted by name, each rule's
// class, outcome, fixed values and rename. Descriptions, timeouts, windows, TTLs, the session,
// the database and how servers are reached do not change it.
std::string PolicyId(const mcp::Config& config);

class ProxyPolicy final : public Policy {
 public:
  ProxyPolicy(std::map<SideEffect, PolicyOutcome> classes, std::vector<GovernedTool> tools,
              std::string id);

  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView& view) override;
  std::string Id() const override { return id_; }

  // The decider alone: the outcome and its reason for the tool (nullopt: not offered).
  std::optional<std::pair<PolicyOutcome, std::string>> Decide(std::string_view name) const;
  const GovernedTool* Find(std::string_view name) const;

  // The interruption approval for re-running `attempt` of `request`.
  PolicyDecision Interruption(const GovernedTool& tool, std::string_view args,
                              const Attempt& attempt) const;

  // RegisterPrior makes every request of run `run_id` a re-run of `attempt` (the proxy calls it
  // before proposing a run that re-runs an unknown outcome). Thread-safe.
  void RegisterPrior(std::string_view run_id, Attempt attempt);
  // RegisterPriorsOf registers, for a re-check of run `run_id`, the earlier attempt each of its
  // interruption approvals names (one in another step than its own: a re-run's), as the proxy
  // registered it while proposing.
  void RegisterPriorsOf(std::string_view run_id, const std::vector<Approval>& approvals);

 private:
  std::optional<Attempt> PriorOf(const ToolRequest& request, const RunView& view) const;
  std::string Capability(const GovernedTool& tool, std::string_view args,
                         const Attempt* attempt) const;

  const std::map<SideEffect, PolicyOutcome> classes_;
  const std::vector<GovernedTool> tools_;
  const std::string id_;
  mutable absl::Mutex mu_;
  std::map<std::string, Attempt, std::less<>> prior_ ABSL_GUARDED_BY(mu_);
};

// RulesPolicy is the proxy's policy as a configuration's rules define it, without any server:
// each classified tool under its model-visible name (the rule's rename, else `<server>_<tool>`),
// with its class, outcome and fixed values (a re-check reads it; no tool can run under it).
std::unique_ptr<ProxyPolicy> RulesPolicy(const mcp::Config& config);

// InterruptedAttempt reads the attempt an interruption approval's capability names (nullopt when
// it names none).
std::optional<Attempt> InterruptedAttempt(const Approval& approval);

}  // namespace agentrt::proxy
