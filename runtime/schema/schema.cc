#include "runtime/schema/schema.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/schema/internal/compiler.h"
#include "runtime/schema/self_contained.h"

namespace agentrt::schema {

std::string_view DraftName(Draft draft) {
  switch (draft) {
    case Draft::k4:
      return "draft-04";
    case Draft::k6:
      return "draft-06";
    case Draft::k7:
      return "draft-07";
    case Draft::k2019_09:
      return "2019-09";
    case Draft::k2020_12:
      return "2020-12";
  }
  return "unknown";
}

std::string ValidationResult::Summary() const {
  std::string out;
  for (const ValidationError& e : errors) {
    absl::StrAppend(&out, e.instance_location.empty() ? "(root)" : ToAbsl(e.instance_location),
                    ": ", ToAbsl(e.message));
    if (!e.keyword.empty()) {
      absl::StrAppend(&out, " (", ToAbsl(e.keyword), " at ", ToAbsl(e.schema_location), ")");
    }
    out += "\n";
  }
  if (errors_truncated) out += "(more errors not shown)\n";
  return out;
}

absl::StatusOr<Schema> Schema::Compile(std::string_view schema_json,
                                       const CompileOptions& options) {
  if (schema_json.size() > options.limits.max_schema_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("schema: ", schema_json.size(),
                                                   " bytes is larger than the limit of ",
                                                   options.limits.max_schema_bytes));
  }
  absl::StatusOr<json::Document> parsed = json::Parse(schema_json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("schema: ", parsed.status().message()));
  }
  auto document = std::make_shared<const json::Document>(*std::move(parsed));
  json::Value root = document->root();
  if (!root.is_object() && !root.is_bool()) {
    return absl::InvalidArgumentError("schema: a schema must be an object or a boolean");
  }
  // Production schemas must not reach outside themselves; checked before anything else.
  if (options.registry == nullptr) AGENTRT_RETURN_IF_ERROR(CheckSelfContained(root));

  if (options.check_metaschema) {
    Draft draft = options.default_draft;
    std::optional<json::Value> declared = root.is_object() ? root.Find("$schema") : std::nullopt;
    if (declared) {
      if (!declared->is_string()) {
        return absl::InvalidArgumentError("schema: $schema must be a string");
      }
      AGENTRT_ASSIGN_OR_RETURN(
          draft, internal::DraftOfSchemaUri(declared->string_value(), options.registry));
    }
    ValidationResult against = internal::Validate(internal::BundledMetaschema(draft), root, 3);
    if (!against.valid) {
      std::string reasons;
      for (const ValidationError& e : against.errors) {
        absl::StrAppend(&reasons, reasons.empty() ? "" : "; ",
                        e.instance_location.empty() ? "#" : ToAbsl("#" + e.instance_location), ": ",
                        ToAbsl(e.message));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("schema: not a valid ", ToAbsl(DraftName(draft)), " schema: ", reasons));
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(std::shared_ptr<const Compiled> compiled,
                           internal::CompileDocument(std::move(document), options));
  return Schema(std::move(compiled));
}

Draft Schema::draft() const { return compiled_->draft; }

bool Schema::IsValid(json::Value instance) const { return internal::IsValid(*compiled_, instance); }

ValidationResult Schema::Validate(json::Value instance, std::size_t max_errors) const {
  return internal::Validate(*compiled_, instance, max_errors);
}

}  // namespace agentrt::schema
