#include "mcp/proxy/proxy_policy.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/approvals.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sha256.h"

namespace agentrt::proxy {
namespace {

std::string FixedJson(const std::map<std::string, std::string>& fixed) {
  json::JsonObject o;
  for (const auto& [name, value] : fixed) o.Raw(name, value);
  return o.Build();
}

}  // namespace

std::string Attempt::Json() const {
  return json::JsonObject()
      .String("run_id", run_id)
      .String("step_id", step_id)
      .String("started_at", started_at)
      .String("ended", ended)
      .Build();
}

std::string Attempt::How() const {
  if (ended == "timed_out") return "timed out before the server answered";
  if (ended == "no_answer") return "failed without an answer from the server";
  return "was cut off before its outcome was recorded";
}

std::string PolicyId(const mcp::Config& config) {
  json::JsonObject policy;
  std::map<SideEffect, PolicyOutcome> classes = mcp::DefaultProxyPolicy();
  for (const auto& [side_effect, outcome] : config.policy) classes[side_effect] = outcome;
  for (const auto& [side_effect, outcome] : classes) {
    policy.String(ToString(side_effect), ToString(outcome));
  }
  std::map<std::string, std::string> servers;  // by name
  for (const mcp::ServerConfig& s : config.servers) {
    json::JsonObject rules;
    for (const auto& [tool, rule] : s.rules) {
      json::JsonObject r;
      r.String("side_effect", rule.side_effect ? ToString(*rule.side_effect) : "");
      if (rule.outcome) r.String("outcome", ToString(*rule.outcome));
      if (!rule.fixed.empty()) r.Raw("fixed", FixedJson(rule.fixed));
      r.StringIfSet("rename", rule.rename);
      rules.Raw(tool, r.Build());
    }
    servers[s.name] = json::JsonObject().String("name", s.name).Raw("rules", rules.Build()).Build();
  }
  std::vector<std::string> sorted;
  for (auto& [name, server] : servers) sorted.push_back(std::move(server));
  std::string identity = json::JsonObject()
                             .Raw("policy", policy.Build())
                             .Raw("servers", json::JsonArray(sorted))
                             .Build();
  return "agentrt-proxy/sha256:" + json::Sha256Hex(identity);
}

ProxyPolicy::ProxyPolicy(std::map<SideEffect, PolicyOutcome> classes,
                         std::vector<GovernedTool> tools, std::string id)
    : classes_(std::move(classes)), tools_(std::move(tools)), id_(std::move(id)) {}

const GovernedTool* ProxyPolicy::Find(std::string_view name) const {
  for (const GovernedTool& t : tools_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::optional<std::pair<PolicyOutcome, std::string>> ProxyPolicy::Decide(
    std::string_view name) const {
  const GovernedTool* tool = Find(name);
  if (tool == nullptr) return std::nullopt;
  if (tool->outcome) {
    return std::make_pair(
        *tool->outcome, absl::StrCat("tool ", ToAbsl(name), " is ",
                                     ToAbsl(ToString(*tool->outcome)), " by the operator's rule"));
  }
  auto it = classes_.find(tool->side_effect);
  if (it == classes_.end()) {
    return std::make_pair(
        PolicyOutcome::kDeny,
        absl::StrCat("no policy for side effect \"", ToAbsl(ToString(tool->side_effect)), "\""));
  }
  return std::make_pair(it->second,
                        absl::StrCat("side effect ", ToAbsl(ToString(tool->side_effect)), " is ",
                                     ToAbsl(ToString(it->second)), " by policy"));
}

std::string ProxyPolicy::Capability(const GovernedTool& tool, std::string_view args,
                                    const Attempt* attempt) const {
  json::JsonObject o;
  o.String("server", tool.server)
      .String("tool", tool.upstream)
      .String("name", tool.name)
      .String("side_effect", ToString(tool.side_effect))
      .Raw("args", args);
  if (!tool.fixed.empty()) o.Raw("fixed", FixedJson(tool.fixed));
  if (attempt != nullptr) o.Raw("interrupted", attempt->Json());
  return o.Build();
}

PolicyDecision ProxyPolicy::Interruption(const GovernedTool& tool, std::string_view args,
                                         const Attempt& attempt) const {
  PolicyDecision d;
  d.outcome = PolicyOutcome::kRequireApproval;
  d.outcome_text = "require_approval";
  d.kind = kInterruptedSideEffectKind;
  d.reason = kInterruptedReason;
  d.capability = Capability(tool, args, &attempt);
  json::JsonObject p;
  p.String("question", absl::StrCat("Run ", ToAbsl(tool.upstream), " on server ",
                                    ToAbsl(tool.server), " again with these arguments?"))
      .String("server", tool.server)
      .String("tool", tool.upstream)
      .String("name", tool.name)
      .String("side_effect", ToString(tool.side_effect))
      .Raw("args", args)
      .Raw("interrupted", attempt.Json())
      .String("reason", d.reason)
      .String("notice",
              absl::StrCat("An earlier attempt of this exact call started at ",
                           ToAbsl(attempt.started_at), " in run ", ToAbsl(attempt.run_id), " and ",
                           ToAbsl(attempt.How()),
                           ", so it may have taken effect. Approving runs it again, once, when "
                           "the model calls it again; rejecting ends the request, and an "
                           "identical call later asks an operator again whatever the policy."));
  if (!tool.fixed.empty()) p.Raw("fixed", FixedJson(tool.fixed));
  d.presentation = p.Build();
  return d;
}

std::unique_ptr<ProxyPolicy> RulesPolicy(const mcp::Config& config) {
  std::vector<GovernedTool> tools;
  for (const mcp::ServerConfig& server : config.servers) {
    for (const auto& [name, rule] : server.rules) {
      if (!rule.side_effect) continue;  // unclassified: never offered
      GovernedTool g;
      g.server = server.name;
      g.upstream = name;
      g.name =
          rule.rename.empty() ? absl::StrCat(ToAbsl(server.name), "_", ToAbsl(name)) : rule.rename;
      g.side_effect = *rule.side_effect;
      g.fixed = rule.fixed;
      g.outcome = rule.outcome;
      g.repeat_window = rule.repeat_window.value_or(config.repeat_window);
      tools.push_back(std::move(g));
    }
  }
  return std::make_unique<ProxyPolicy>(config.policy, std::move(tools), PolicyId(config));
}

void ProxyPolicy::RegisterPrior(std::string_view run_id, Attempt attempt) {
  absl::MutexLock lock(&mu_);
  prior_.insert_or_assign(std::string(run_id), std::move(attempt));
}

void ProxyPolicy::RegisterPriorsOf(std::string_view run_id,
                                   const std::vector<Approval>& approvals) {
  for (const Approval& a : approvals) {
    std::optional<Attempt> attempt = InterruptedAttempt(a);
    if (a.kind == kInterruptedSideEffectKind && attempt && attempt->step_id != a.step_id) {
      RegisterPrior(run_id, *attempt);
    }
  }
}

std::optional<Attempt> InterruptedAttempt(const Approval& approval) {
  absl::StatusOr<json::Document> capability = json::Parse(approval.capability);
  if (!capability.ok() || !capability->root().is_object()) return std::nullopt;
  std::optional<json::Value> attempt = capability->root().Find("interrupted");
  if (!attempt || !attempt->is_object()) return std::nullopt;
  return Attempt{json::MemberText(*attempt, "run_id"), json::MemberText(*attempt, "step_id"),
                 json::MemberText(*attempt, "started_at"), json::MemberText(*attempt, "ended")};
}

std::optional<Attempt> ProxyPolicy::PriorOf(const ToolRequest& request, const RunView& view) const {
  const Approval* latest = nullptr;
  for (const Approval& a : view.approvals) {
    if (a.step_id == request.step_id) latest = &a;
  }
  if (latest != nullptr && latest->kind == kInterruptedSideEffectKind) {
    if (std::optional<Attempt> named = InterruptedAttempt(*latest)) return named;
    // The runtime's own pause names no attempt: the step itself was cut off.
    return Attempt{request.run_id, request.step_id, "", "cut_off"};
  }
  absl::MutexLock lock(&mu_);
  auto it = prior_.find(request.run_id);
  // The attempt's own step is not a re-run of itself (a re-check walks it too).
  if (it == prior_.end() || it->second.step_id == request.step_id) return std::nullopt;
  return it->second;
}

absl::StatusOr<PolicyDecision> ProxyPolicy::Evaluate(const ToolRequest& request,
                                                     const RunView& view) {
  PolicyDecision d;
  const GovernedTool* tool = Find(request.spec.name);
  std::optional<std::pair<PolicyOutcome, std::string>> decided = Decide(request.spec.name);
  if (tool == nullptr || !decided) {
    d.outcome = PolicyOutcome::kDeny;
    d.outcome_text = "deny";
    d.reason = absl::StrCat("tool \"", ToAbsl(request.spec.name), "\" is not offered");
    return d;
  }
  auto [outcome, reason] = *std::move(decided);
  if (outcome == PolicyOutcome::kDeny) {
    d.outcome = outcome;
    d.outcome_text = "deny";
    d.reason = std::move(reason);
    return d;
  }
  if (std::optional<Attempt> prior = PriorOf(request, view)) {
    return Interruption(*tool, request.args, *prior);
  }
  if (outcome == PolicyOutcome::kAllow) {
    d.outcome = outcome;
    d.outcome_text = "allow";
    d.reason = std::move(reason);
    return d;
  }
  d.outcome = PolicyOutcome::kRequireApproval;
  d.outcome_text = "require_approval";
  d.reason = std::move(reason);
  d.kind = std::string(ToString(tool->side_effect));
  d.capability = Capability(*tool, request.args, nullptr);
  json::JsonObject p;
  p.String("question", absl::StrCat("May the model call ", ToAbsl(tool->upstream), " on server ",
                                    ToAbsl(tool->server), " with these arguments?"))
      .String("server", tool->server)
      .String("tool", tool->upstream)
      .String("name", tool->name)
      .String("side_effect", ToString(tool->side_effect))
      .Raw("args", request.args)
      .String("reason", d.reason);
  if (!tool->fixed.empty()) p.Raw("fixed", FixedJson(tool->fixed));
  d.presentation = p.Build();
  return d;
}

}  // namespace agentrt::proxy
