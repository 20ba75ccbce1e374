// runtime/schema/internal/compiler.h
//
// Compiling a parsed schema document into the node graph of compiled.h. Schema::Compile wraps
// this with intake, the self-contained rule and the metaschema check. Internal.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/json/document.h"
#include "runtime/schema/internal/compiled.h"
#include "runtime/schema/schema.h"

namespace agentrt::schema {

struct Registry::Entry {
  std::shared_ptr<const json::Document> document;
};

namespace internal {

// CompileDocument compiles `document` (its root is the schema). Documents outside it are
// found only in `options.registry` and the bundled metaschemas.
absl::StatusOr<std::shared_ptr<const Schema::Compiled>> CompileDocument(
    std::shared_ptr<const json::Document> document, const CompileOptions& options);

// DraftOfSchemaUri maps a `$schema` value to its draft: the five known draft URIs, or a
// metaschema in `registry` whose own `$schema` is one (test-only custom metaschemas).
absl::StatusOr<Draft> DraftOfSchemaUri(std::string_view uri, const Registry* registry);

// BundledMetaschema is the compiled metaschema of `draft`, built once per process from the
// bundled documents (constant data; thread-safe).
const Schema::Compiled& BundledMetaschema(Draft draft);

}  // namespace internal
}  // namespace agentrt::schema
