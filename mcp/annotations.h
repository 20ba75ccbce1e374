// mcp/annotations.h
//
// A tool's annotations: what its server claims the tool does (readOnlyHint, destructiveHint, ...,
// as MCP's specification names them). A claim is never trusted to grant anything: the operator's
// rule classifies the tool, and a claim can only contradict that classification and so refuse the
// tool (docs/mcp.md, "Check"). The object is recorded in the manifest as it was received.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"
#include "runtime/types.h"

namespace agentrt::mcp {

struct Annotations {
  // Each hint as the server sent it; nullopt when it sent none (or null).
  std::optional<bool> read_only_hint;
  std::optional<bool> destructive_hint;
  std::optional<bool> idempotent_hint;
  std::optional<bool> open_world_hint;
  std::optional<std::string> title;
  // The canonical JSON of the object as received, members this code does not know included.
  std::string json;

  bool operator==(const Annotations&) const = default;
};

// ParseAnnotations reads an annotations object. Keys match exactly (`ReadOnlyHint` is not a
// hint; like any unknown key it is kept in `json` and otherwise ignored). Errors:
// InvalidArgument `annotations are not a JSON object`, `annotation "<key>" is not a boolean`,
// `annotation "title" is not a string`.
absl::StatusOr<Annotations> ParseAnnotations(json::Value object);

// HintMismatch is "" when the server's claims do not contradict `rule`, else why they do, the
// first that applies:
//   `classified read_only, but the server does not claim readOnlyHint`
//     (the rule is read_only and readOnlyHint is not true, an empty object included);
//   `classified <class>, but the server claims destructiveHint`
//     (the rule is not destructive, readOnlyHint is not true and destructiveHint is true).
// Absent annotations (nullopt) contradict nothing.
std::string HintMismatch(SideEffect rule, const std::optional<Annotations>& annotations);

}  // namespace agentrt::mcp
