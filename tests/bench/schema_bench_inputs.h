// tests/bench/schema_bench_inputs.h
//
// The inputs both schema benchmark programs measure, so agentrt's validator and the peer
// library see exactly the same bytes: the 14 tool schemas of the pinned filesystem MCP server
// (fixtures/schemas/server-filesystem-tools.json) with a valid argument object for each, and
// one large generated draft-07 schema with a valid instance.
#pragma once

#include <string>
#include <vector>

namespace agentrt::bench {

struct SchemaCase {
  std::string name;
  std::string schema;    // JSON text, draft-07
  std::string instance;  // JSON text, valid against schema
};

// The filesystem server's tools, read once; aborts if the fixture is missing or malformed.
const std::vector<SchemaCase>& FilesystemToolCases();

// A generated schema of 500 properties (nested objects, arrays, enums, patterns, bounds) and
// a valid instance for it, built once.
const SchemaCase& LargeGeneratedCase();

}  // namespace agentrt::bench
