// mcp/hidden_params.h
//
// Hiding parameters from the model (docs/mcp.md, "Check"): a rule's `deny` and `fixed` names
// are taken out of the input schema the model sees. Taking a name out of `properties` only
// hides it if nothing else in the schema could still describe or require it, so hiding is
// refused when it would not be sound: the name must be a top-level property, no
// patternProperties may match it, and none of the combining or dependency keywords may mention
// it (a hidden parameter that `anyOf` still requires would make every call invalid, or let the
// model set it through the back door).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace agentrt::mcp {

// CheckHideable returns OK when every name of `hidden` (deny names in the rule's order, then
// fixed names sorted) can be hidden from the schema soundly; nothing hidden is always fine.
// InvalidArgument, the first that applies, in this order:
//   `the input schema cannot be restricted: <intake error>`
//   `the rule hides "<name>", which is not a top-level property of the input schema`
//   `the rule hides parameters and the input schema has patternProperties, which could still
//    match them`
//   `the rule hides "<name>" and the input schema's <keyword> mentions it` — keywords searched
//    in the order allOf, anyOf, oneOf, not, if, then, else, dependentRequired,
//    dependentSchemas, dependencies, $defs, definitions; "mentions" is any string value or
//    object key equal to the name anywhere beneath the keyword.
absl::Status CheckHideable(std::string_view schema_json, const std::vector<std::string>& hidden);

// Restrict returns the schema without the hidden names: each removed from the top-level
// `properties` and from the top-level `required` (which is dropped when it empties), as
// canonical JSON. With nothing hidden it returns `schema_json` unchanged. Errors:
// InvalidArgument (not JSON, or not a JSON object).
absl::StatusOr<std::string> Restrict(std::string_view schema_json,
                                     const std::vector<std::string>& hidden);

}  // namespace agentrt::mcp
