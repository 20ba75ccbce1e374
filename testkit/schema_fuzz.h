// testkit/schema_fuzz.h
//
// Schema fuzzing from a tool's input schema. Valid draws argument documents the runtime
// accepts — every one is checked against the compiled schema (runtime/schema), the validator
// the driver uses — deterministically (the same seed gives the same bytes) and bounded in
// size. Invalid builds the near misses: boundary cases and small edits of a valid document
// that the validator refuses (a required property missing, a wrong type, a number just out of
// range, a string one character too long, an extra property where none is allowed, a value
// outside an enum, ...). Check runs valid arguments through a tool and reports a tool that
// throws (or, isolated, crashes) as a panic, distinct from a tool that returns an error.
//
// Drawing understands the keywords tool schemas use (type, properties, required,
// additionalProperties, items, prefixItems, enum, const, bounds, lengths, multipleOf, simple
// patterns, $ref to the document, allOf/anyOf/oneOf); for anything else it draws and keeps
// only what the validator accepts, so a document it returns is always valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/tool.h"
#include "testkit/report.h"

namespace agentrt::testkit {

struct FuzzOptions {
  int max_depth = 4;               // nesting of drawn objects and arrays below the top
  int max_string = 16;             // characters a string gets beyond its minLength
  int max_items = 4;               // items an array gets beyond its minItems
  std::size_t max_bytes = 4096;    // no document is longer (canonical bytes)
  int attempts_per_document = 20;  // draws tried for each document asked for
};

// Valid returns up to `n` distinct documents (canonical JSON) that `schema` accepts; fewer
// when the schema admits fewer. Errors: InvalidArgument when the schema does not compile,
// FailedPrecondition when n > 0 and no document could be drawn (a schema that accepts
// nothing, or one drawing cannot satisfy within the bounds).
absl::StatusOr<std::vector<std::string>> Valid(std::string_view schema, std::uint64_t seed, int n,
                                               const FuzzOptions& options = {});

struct NearMiss {
  std::string what;  // e.g. "missing required \"path\" at /", "too long string at /name"
  std::string args;  // canonical JSON the schema refuses
};

// Invalid returns the boundary cases and near misses of `schema`, each refused by it, built
// around a valid document drawn with `seed`. Errors as Valid.
absl::StatusOr<std::vector<NearMiss>> Invalid(std::string_view schema, std::uint64_t seed,
                                              const FuzzOptions& options = {});

struct CheckOptions {
  std::uint64_t seed = 1;
  int calls = 25;  // valid documents tried
  FuzzOptions fuzz;
  // Run each call in a forked child process, so a tool that crashes the process (a signal) is
  // reported as a panic instead of ending the test. The tool's effects then stay in the
  // child; leave it off for a tool that talks to a live connection.
  bool isolate = false;
};

// Check calls `tool` with valid arguments drawn from its input schema (run "testkit-run",
// step "testkit-step-<i>", the tool's timeout on a fixed clock). A call that throws, or crashes
// its child when isolated, is a failure (a panic); an error status is the tool's answer and
// only counted. Notes give the counts of results, errors and panics. Errors: a spec the driver
// would refuse, a schema drawing cannot satisfy.
absl::StatusOr<Report> Check(Tool& tool, const CheckOptions& options = {});

}  // namespace agentrt::testkit
