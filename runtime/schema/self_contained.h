// runtime/schema/self_contained.h
//
// The self-contained rule: a schema that arrived from outside (an MCP server's inputSchema, a
// file) may not point anywhere but inside itself, so compiling it can never read, fetch or
// depend on anything else. Checked before anything else is done with the schema.
//
// Every value of the document is walked, including inside `default`, `examples`, `enum` and
// `const`, because deciding what is a subschema is the compiler's job and the compiler must not
// be reached first. For each object member whose value is a string:
//   - `$ref`, `$dynamicRef`, `$recursiveRef`: must start with '#';
//   - `$id`: must start with '#' or be a well-known draft URI;
//   - `$schema`: must be a well-known draft URI;
//   - `id` (only when the root declares draft-04): must not contain ':' or start with "//".
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "runtime/json/document.h"

namespace agentrt::schema {

// IsWellKnownDraftUri: http(s)://json-schema.org/ + one of draft-04/schema, draft-06/schema,
// draft-07/schema, draft/2019-09/schema, draft/2020-12/schema, schema; one trailing '#' allowed.
bool IsWellKnownDraftUri(std::string_view uri);

// CheckSelfContained returns OK, or InvalidArgument naming the first offending member (in
// sorted key order, depth first) by keyword, location and value.
absl::Status CheckSelfContained(json::Value root);

}  // namespace agentrt::schema
