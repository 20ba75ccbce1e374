// mcp/report.h
//
// What loading a server did with each of its tools (docs/mcp.md, "Check"): which were
// registered and under what name and class (and which contradiction the operator allowed),
// which were refused and why, which the manifest does not pin, and which no rule classifies.
// The fields keep the server's text as received; Text() is for a terminal, so every piece a
// server chose is escaped there (json::Sanitize) and each entry is exactly one line, whatever
// a tool's name holds.
#pragma once

#include <string>
#include <vector>

#include "runtime/types.h"

namespace agentrt::mcp {

struct Registered {
  std::string tool;  // the server's name for it
  std::string name;  // the name the model sees
  SideEffect side_effect = SideEffect::kReadOnly;
  std::string hint_mismatch;  // the contradiction the rule allowed; "" when none
};

struct Refused {
  std::string tool;
  std::string reason;
};

struct Report {
  std::string server;
  std::vector<Registered> registered;
  std::vector<Refused> refused;
  std::vector<std::string> unpinned;      // listed live, not in the manifest: ignored
  std::vector<std::string> unclassified;  // pinned, without a rule: not registered

  // Text is one line per entry, each ending in "\n": every registered tool, then every refused,
  // unclassified and unpinned one, in the vectors' order:
  //   <server>: registered <tool> as <name> (<class>)[ [hint mismatch allowed: <hint>]]
  //   <server>: refused <tool>: <reason>
  //   <server>: unclassified <tool>: no rule
  //   <server>: unpinned <tool>: not in the manifest
  std::string Text() const;

  // Json is the report as canonical JSON: `server`, then `registered` ({tool, name,
  // side_effect, hint_mismatch when set}), `refused` ({tool, reason}), `unpinned`,
  // `unclassified`, each left out when empty. Text as received (valid JSON either way).
  std::string Json() const;
};

}  // namespace agentrt::mcp
