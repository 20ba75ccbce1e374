// tools/agentrt/sim_script.h
//
// The script `agentrt sim record` plays as its agent (docs/formats/sim-script.md): the run's
// goal, the agent's decisions in order (tool calls by the names the model would see, then
// completing or failing the run) and the run's step limit. It is read as strictly as every file
// agentrt reads: strict JSON intake, every field known, each step exactly one kind of decision,
// so a misspelt field is refused by name rather than quietly changing the run. Every error
// names the file and the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/types.h"

namespace agentrt::cli {

struct SimScript {
  std::string goal;
  std::vector<Decision> steps;  // in order; tool calls' args are canonical JSON
  Limits limits;                // the runtime's defaults, max_steps as the script says
};

// ParseSimScript reads a script's bytes; `name` names the file in errors. Errors,
// InvalidArgument, each starting `script <name>: `:
//   `not usable JSON: <intake error>`, `the script is not a JSON object`
//   `unknown field "<f>"`, `steps[<i>]: unknown field "<f>"`
//   `"goal" is required`, `"goal" is not a string`, `"goal" is empty`
//   `"steps" is required`, `"steps" is not a list`, `"steps" is empty`
//   `"max_steps" is not a positive integer up to 100000`
//   `steps[<i>]: not a JSON object`
//   `steps[<i>]: exactly one of "tool", "complete" or "fail" is required`
//   `steps[<i>]: "tool" is not a tool name`, `steps[<i>]: "args" is not a JSON object`,
//   `steps[<i>]: "reason" is not a string`, `steps[<i>]: "fail" is not a string`
//   `steps[<i>]: "args" is only for a tool call` (and "reason")
absl::StatusOr<SimScript> ParseSimScript(std::string_view bytes, std::string_view name);

}  // namespace agentrt::cli
