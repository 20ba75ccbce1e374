// runtime/schema/schema.h
//
// JSON Schema, compiled once and validated many times. Every tool argument the agent sends is
// checked here before policy sees it, so the validator fails closed: a schema it cannot honour
// exactly (an unknown draft, a pattern RE2 cannot run, a reference outside the document, a
// schema invalid against its draft's metaschema) is refused at compile, never half-applied.
//
// Drafts 4, 6, 7, 2019-09 and 2020-12, chosen by `$schema`; without one, 2020-12. Every
// assertion keyword of those drafts is enforced; `format` is an annotation (never asserted),
// as 2019-09 and later specify; content keywords are annotations.
//
// Production compiles are self-contained: a `$ref`, `$dynamicRef` or `$recursiveRef` must be a
// fragment of the document, an `$id` a fragment or a well-known draft URI, a `$schema` a known
// draft URI, and under draft-04 an `id` must not name a scheme or host. Only a test-only
// `Registry` passed explicitly can supply other documents; nothing is ever fetched or opened.
//
// A compiled Schema is immutable and may be shared by any number of threads.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"

namespace agentrt::schema {

enum class Draft { k4, k6, k7, k2019_09, k2020_12 };
std::string_view DraftName(Draft draft);  // "draft-04", ..., "2020-12"

struct CompileLimits {
  std::size_t max_schema_bytes = std::size_t{4} << 20;
  std::size_t max_nodes = 100'000;  // compiled subschemas, after following references
  // Keyword evaluations allowed for one validation: a hostile schema (anyOf chains through
  // $ref) can make work exponential in its size; past the budget the instance is invalid.
  std::size_t max_evaluations_per_validation = 5'000'000;
};

// Registry supplies documents by absolute URI for tests (the official suite's remotes). It is
// the only way a compile can see anything outside the schema document, and production code
// never creates one. Not thread-safe while being filled.
class Registry {
 public:
  Registry();
  ~Registry();
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  // Add parses `json` and makes it resolvable as `uri` (no fragment). Errors: intake errors.
  absl::Status Add(std::string_view uri, std::string_view json);

  struct Entry;
  const Entry* Find(std::string_view uri) const;

 private:
  std::map<std::string, std::shared_ptr<const Entry>, std::less<>> entries_;
};

struct CompileOptions {
  const Registry* registry = nullptr;  // test-only; disables the self-contained rule
  Draft default_draft = Draft::k2020_12;
  bool check_metaschema = true;  // validate the schema against its draft's metaschema first
  CompileLimits limits;
};

struct ValidationError {
  std::string instance_location;  // JSON Pointer into the instance, "" for the root
  std::string schema_location;    // JSON Pointer of the failing keyword in its document
  std::string keyword;            // e.g. "required"
  std::string message;            // one short sentence; instance text escaped and cut
};

struct ValidationResult {
  bool valid = true;
  std::vector<ValidationError> errors;  // at most `max_errors` of them
  bool errors_truncated = false;        // more errors existed than were reported

  // Summary renders the errors one per line, "<instance>: <message> (<keyword> at <schema>)".
  std::string Summary() const;
};

class Schema {
 public:
  struct Compiled;

  // Compile parses and compiles `schema_json`. Errors: InvalidArgument naming where in the
  // schema and why it was refused (intake, self-contained rule, metaschema, pattern, limits).
  static absl::StatusOr<Schema> Compile(std::string_view schema_json,
                                        const CompileOptions& options = {});

  Draft draft() const;

  // IsValid is the fast check: no errors are built and evaluation stops at the first failure.
  bool IsValid(json::Value instance) const;
  // Validate reports up to `max_errors` errors, each at most ~300 bytes.
  ValidationResult Validate(json::Value instance, std::size_t max_errors = 10) const;

 private:
  explicit Schema(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace agentrt::schema
