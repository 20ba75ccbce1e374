// mcp/rules.h
//
// The operator's rules for one server's tools (docs/mcp.md, "Classify"): for each tool the operator
// lets an agent use, its side-effect class, timeout, and what the model may see and set. A tool
// with no rule is never registered: leaving a tool out of the rules is how the operator says
// no. The server's own claims about a tool (annotations.h) never stand in for a rule.
//
// Rules come from a rules file (ReadRules; docs/mcp.md, "Classify") or from a server's
// `rules` in the configuration file (config.h), which adds the proxy's `outcome` and
// `repeat_window`. Both are read strictly: an unknown field is refused by name, never ignored
// (a misspelt `denny` would otherwise silently let the model set a denied parameter).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/json/document.h"
#include "runtime/types.h"
#include "runtime/world/filesystem.h"

namespace agentrt::mcp {

struct Rule {
  // Required for registration, but a rule without one is read: Load refuses that tool alone,
  // with the runtime's reason.
  std::optional<SideEffect> side_effect;
  absl::Duration timeout = absl::ZeroDuration();  // 0: the server's default timeout
  bool terminal = false;                          // the tool's result completes the run
  std::string description;                        // replaces the server's, "" keeps it
  std::vector<std::string> deny;                  // parameters the model may not set
  std::map<std::string, std::string> fixed;       // parameter -> canonical JSON value
  std::string rename;                             // model-visible name, "" for <server>_<tool>
  bool allow_hint_mismatch = false;
  std::optional<PolicyOutcome> outcome;         // proxy: overrides the class's policy
  std::optional<absl::Duration> repeat_window;  // proxy: this tool's repeat window

  bool operator==(const Rule&) const = default;
};

// By the server's own tool name.
using Rules = std::map<std::string, Rule>;

// Which fields a rule may have: a rules file's, or a configuration's (those plus `outcome` and
// `repeat_window`).
enum class RuleFields { kRulesFile, kConfig };

// ParseRules reads a JSON object mapping tool name -> rule. Fields: side_effect (read_only,
// local_mutation, remote_mutation, destructive; "" counts as absent), timeout (a duration
// string, duration.h; "" is 0; a negative one is 0), terminal, description, deny (strings),
// fixed (parameter -> any JSON value), rename, allow_hint_mismatch; with kConfig also outcome
// (allow, require_approval, deny) and repeat_window (a duration string, not negative). Keys
// match exactly. Errors: InvalidArgument `<where>: ...`, naming the tool and field:
//   `<where>: tool "<t>": unknown field "denny"`
//   `<where>: tool "<t>": timeout: missing unit in duration "5"`
//   `<where>: tool "<t>": side_effect "<s>" is not read_only, local_mutation,
//    remote_mutation, or destructive`
//   `<where>: tool "<t>": outcome "<o>" is not allow, require_approval, or deny`
// Tools are read in sorted name order, so the first error is the same on every run.
absl::StatusOr<Rules> ParseRules(json::Value object, std::string_view where,
                                 RuleFields fields = RuleFields::kRulesFile);

// ReadRules reads a rules file through ReadOwned and strict intake. Errors name the file:
// `rules: <ReadOwned error, which names the path>`, `rules <path>: <intake or rule error>`.
absl::StatusOr<Rules> ReadRules(world::Filesystem& files, const std::string& path);

}  // namespace agentrt::mcp
