#include "runtime/tool_registry.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/sha256.h"
#include "runtime/records/stored_forms.h"

namespace agentrt {
namespace {

bool UsableName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// Every field of a spec as given, length-prefixed so no two specs share a key.
std::string RawKey(const ToolSpec& spec) {
  return absl::StrCat(spec.name.size(), ":", ToAbsl(spec.name), spec.description.size(), ":",
                      ToAbsl(spec.description), spec.input_schema.size(), ":",
                      ToAbsl(spec.input_schema), ToAbsl(ToString(spec.side_effect)), ":",
                      absl::ToInt64Nanoseconds(spec.timeout), ":", spec.terminal ? 1 : 0);
}

}  // namespace

absl::StatusOr<std::string> SpecJson(const ToolSpec& spec) {
  AGENTRT_ASSIGN_OR_RETURN(std::string schema_json, json::Canonicalize(spec.input_schema));
  json::JsonObject o;
  o.String("name", spec.name)
      .String("description", spec.description)
      .Raw("input_schema", schema_json)
      .String("side_effect", ToString(spec.side_effect))
      .Int("timeout", absl::ToInt64Nanoseconds(spec.timeout));
  if (spec.terminal) o.Bool("terminal", true);
  return o.Build();
}

absl::Status CheckToolSpec(const ToolSpec& spec) { return RecordSpec(spec).status(); }

absl::StatusOr<RecordedSpec> RecordSpec(const ToolSpec& spec) {
  std::string name = absl::StrCat("tool \"", ToAbsl(json::Sanitize(spec.name)), "\"");
  if (!UsableName(spec.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": the name must be 1 to 128 characters of A-Z a-z 0-9 _ - ."));
  }
  if (spec.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": timeout is required"));
  }
  if (spec.input_schema.find_first_not_of(" \t\r\n") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": input schema is required"));
  }
  absl::StatusOr<schema::Schema> compiled = schema::Schema::Compile(spec.input_schema);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": input schema refused: ", compiled.status().message()));
  }
  RecordedSpec recorded;
  recorded.spec = spec;
  // The schema is kept canonical, as it is stored: a policy handed the spec (live, on resume
  // or on a re-check) reads the same bytes whichever way the tool spelled it.
  AGENTRT_ASSIGN_OR_RETURN(recorded.spec.input_schema, json::Canonicalize(spec.input_schema));
  AGENTRT_ASSIGN_OR_RETURN(recorded.json, SpecJson(spec));
  recorded.hash = json::Sha256Hex(recorded.json);
  recorded.schema = std::make_shared<const schema::Schema>(*std::move(compiled));
  return recorded;
}

absl::Status CheckArgs(const RecordedSpec& spec, std::string_view args) {
  absl::StatusOr<json::Document> parsed = json::Parse(Blank(args) ? "{}" : args);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments are not usable JSON: ", parsed.status().message()));
  }
  schema::ValidationResult result = spec.schema->Validate(parsed->root(), 5);
  if (result.valid) return absl::OkStatus();
  // One line for the agent: the validator's errors joined by ';'.
  std::string summary = result.Summary();
  while (!summary.empty() && summary.back() == '\n') summary.pop_back();
  for (char& c : summary) {
    if (c == '\n') c = ';';
  }
  return absl::InvalidArgumentError(absl::StrCat("arguments do not match schema: ", summary));
}

absl::StatusOr<std::shared_ptr<const RecordedSpec>> SpecCache::Record(const ToolSpec& spec) {
  std::string raw = RawKey(spec);
  {
    absl::MutexLock lock(&mu_);
    if (auto it = by_raw_.find(raw); it != by_raw_.end()) return it->second;
  }
  // Recorded outside the lock; two threads recording one spec at once keep the first.
  AGENTRT_ASSIGN_OR_RETURN(RecordedSpec recorded, RecordSpec(spec));
  auto shared = std::make_shared<const RecordedSpec>(std::move(recorded));
  absl::MutexLock lock(&mu_);
  return by_raw_.emplace(std::move(raw), std::move(shared)).first->second;
}

std::size_t SpecCache::size() const {
  absl::MutexLock lock(&mu_);
  return by_raw_.size();
}

absl::StatusOr<std::shared_ptr<const RecordedSpec>> ToolRegistry::Record(const ToolSpec& spec) {
  if (cache_ != nullptr) return cache_->Record(spec);
  AGENTRT_ASSIGN_OR_RETURN(RecordedSpec recorded, RecordSpec(spec));
  return std::make_shared<const RecordedSpec>(std::move(recorded));
}

absl::StatusOr<ToolRegistry> ToolRegistry::Create(const std::vector<Tool*>& tools,
                                                  SpecCache* cache) {
  ToolRegistry registry;
  registry.cache_ = cache;
  for (Tool* tool : tools) {
    ToolSpec spec = tool->Spec();
    if (registry.tools_.contains(spec.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate tool \"", ToAbsl(json::Sanitize(spec.name)), "\""));
    }
    AGENTRT_ASSIGN_OR_RETURN(std::shared_ptr<const RecordedSpec> recorded, registry.Record(spec));
    registry.tools_.emplace(spec.name, tool);
    registry.specs_.push_back(*recorded);
    // Found by the spec as the tool gives it, so Current never canonicalizes it again.
    registry.by_raw_.emplace(RawKey(spec), recorded.get());
    registry.by_json_.emplace(recorded->json, std::move(recorded));
  }
  std::sort(registry.specs_.begin(), registry.specs_.end(),
            [](const RecordedSpec& a, const RecordedSpec& b) { return a.spec.name < b.spec.name; });
  return registry;
}

Tool* ToolRegistry::Find(std::string_view name) const {
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : it->second;
}

absl::StatusOr<const RecordedSpec*> ToolRegistry::Current(Tool* tool) {
  ToolSpec spec = tool->Spec();
  // The usual case is the very spec seen before: find it by its fields as given, without
  // canonicalizing the schema again (this runs at every tool_call step).
  std::string raw = RawKey(spec);
  if (auto it = by_raw_.find(raw); it != by_raw_.end()) return it->second;
  // Spelled differently but the same spec: the canonical form finds it.
  const RecordedSpec* result = nullptr;
  if (absl::StatusOr<std::string> json = SpecJson(spec); json.ok()) {
    if (auto it = by_json_.find(*json); it != by_json_.end()) result = it->second.get();
  }
  if (result == nullptr) {
    AGENTRT_ASSIGN_OR_RETURN(std::shared_ptr<const RecordedSpec> recorded, Record(spec));
    result = recorded.get();
    by_json_.emplace(recorded->json, std::move(recorded));
  }
  by_raw_.emplace(std::move(raw), result);
  return result;
}

}  // namespace agentrt
