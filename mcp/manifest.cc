#include "mcp/manifest.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "mcp/indented_json.h"
#include "mcp/internal/fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sha256.h"
#include "runtime/world/timestamp.h"

namespace agentrt::mcp {
namespace {

using internal::CheckKnownFields;
using internal::StringMember;
using internal::WithContext;

bool IsLowerHex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

absl::StatusOr<std::string> RequiredString(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::optional<std::string> value, StringMember(object, key));
  if (!value) return absl::InvalidArgumentError(absl::StrCat(Quote(key), " is required"));
  return *std::move(value);
}

absl::StatusOr<std::string> RequiredHash(json::Value object, std::string_view key) {
  AGENTRT_ASSIGN_OR_RETURN(std::string hash, RequiredString(object, key));
  if (!IsLowerHex64(hash)) {
    return absl::InvalidArgumentError(absl::StrCat(Quote(key), " is not 64 lowercase hex digits"));
  }
  return hash;
}

// Reads pinned_at: what FormatTimestamp writes, or any RFC 3339 time (a manifest another
// writer pinned), kept to the nanosecond so that writing it back and reading it again gives the
// same instant.
absl::StatusOr<absl::Time> ReadPinnedAt(std::string_view text) {
  absl::Time t;
  std::string ignored;
  if (text.empty() || !absl::ParseTime(absl::RFC3339_full, ToAbsl(text), &t, &ignored)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"pinned_at\" ", Quote(text), " is not an RFC 3339 time"));
  }
  absl::StatusOr<absl::Time> exact = world::ParseTimestamp(world::FormatTimestamp(t));
  if (!exact.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"pinned_at\" ", Quote(text), " is not between the years 1000 and 9999"));
  }
  return *exact;
}

absl::StatusOr<PinnedTool> ReadTool(json::Value entry) {
  if (!entry.is_object()) return absl::InvalidArgumentError("not a JSON object");
  AGENTRT_RETURN_IF_ERROR(CheckKnownFields(
      entry,
      {"name", "description", "input_schema", "schema_hash", "description_hash", "annotations"}));
  PinnedTool tool;
  AGENTRT_ASSIGN_OR_RETURN(tool.name, RequiredString(entry, "name"));
  AGENTRT_ASSIGN_OR_RETURN(tool.description, RequiredString(entry, "description"));
  std::optional<json::Value> schema = entry.Find("input_schema");
  if (!schema) return absl::InvalidArgumentError("\"input_schema\" is required");
  tool.input_schema = json::WriteCanonical(*schema);
  AGENTRT_ASSIGN_OR_RETURN(tool.schema_hash, RequiredHash(entry, "schema_hash"));
  AGENTRT_ASSIGN_OR_RETURN(tool.description_hash, RequiredHash(entry, "description_hash"));
  // The model is shown the stored schema and description while the hashes are what the live
  // server is held to: both must be the same thing, or an edited manifest could show the model
  // what was never pinned.
  if (json::Sha256Hex(tool.input_schema) != tool.schema_hash) {
    return absl::InvalidArgumentError(
        "\"schema_hash\" is not the hash of its \"input_schema\" (the manifest was edited)");
  }
  if (json::Sha256Hex(json::JsonString(tool.description)) != tool.description_hash) {
    return absl::InvalidArgumentError(
        "\"description_hash\" is not the hash of its \"description\" (the manifest was edited)");
  }
  if (std::optional<json::Value> a = internal::Member(entry, "annotations")) {
    AGENTRT_ASSIGN_OR_RETURN(tool.annotations, ParseAnnotations(*a));
  }
  return tool;
}

}  // namespace

PinnedTool PinTool(const ListedTool& tool) {
  PinnedTool pinned;
  pinned.name = tool.name;
  pinned.description = tool.description;
  pinned.input_schema = tool.input_schema;
  pinned.schema_hash = json::Sha256Hex(tool.input_schema);
  // The description is hashed as its canonical JSON string, quotes included: it is sent to the
  // model verbatim, so a changed description is a changed prompt.
  pinned.description_hash = json::Sha256Hex(json::JsonString(tool.description));
  pinned.annotations = tool.annotations;
  return pinned;
}

std::string ManifestJson(const Manifest& manifest) {
  json::JsonObject tools;
  for (const auto& [name, tool] : manifest.tools) {
    json::JsonObject entry;
    entry.String("name", tool.name)
        .String("description", tool.description)
        .Raw("input_schema", tool.input_schema)
        .String("schema_hash", tool.schema_hash)
        .String("description_hash", tool.description_hash);
    if (tool.annotations) entry.Raw("annotations", tool.annotations->json);
    tools.Raw(name, entry.Build());
  }
  json::JsonObject top;
  top.String("server", manifest.server)
      .String("pinned_at", world::FormatTimestamp(manifest.pinned_at))
      .Raw("tools", tools.Build());
  std::string out = IndentCanonical(top.Build());
  out.push_back('\n');
  return out;
}

absl::StatusOr<Manifest> ParseManifest(std::string_view bytes) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document document, json::Parse(bytes));
  json::Value root = document.root();
  if (!root.is_object()) return absl::InvalidArgumentError("the manifest is not a JSON object");
  AGENTRT_RETURN_IF_ERROR(CheckKnownFields(root, {"server", "pinned_at", "tools"}));
  Manifest manifest;
  AGENTRT_ASSIGN_OR_RETURN(manifest.server, RequiredString(root, "server"));
  if (manifest.server.empty()) return absl::InvalidArgumentError("\"server\" is empty");
  AGENTRT_ASSIGN_OR_RETURN(std::string pinned_at, RequiredString(root, "pinned_at"));
  AGENTRT_ASSIGN_OR_RETURN(manifest.pinned_at, ReadPinnedAt(pinned_at));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> tools, internal::ObjectMember(root, "tools"));
  if (!tools) return absl::InvalidArgumentError("\"tools\" is required");
  for (std::size_t i = 0; i < tools->size(); ++i) {
    std::string_view key = tools->key(i);
    std::string context = absl::StrCat("tool ", Quote(key));
    absl::StatusOr<PinnedTool> tool = ReadTool(tools->member(i));
    if (!tool.ok()) return WithContext(context, tool.status());
    // A reader that looked the live tool up by this key but called the server, and named the
    // tool for the model, by the entry's `name` could check one tool and call another when the
    // two differ; pin never writes such a manifest, so reading refuses it.
    if (tool->name != key) {
      return absl::InvalidArgumentError(
          absl::StrCat(context, ": its name ", Quote(tool->name), " is not its key"));
    }
    manifest.tools.emplace(std::string(key), *std::move(tool));
  }
  return manifest;
}

absl::StatusOr<Manifest> ReadManifest(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<std::string> bytes = files.ReadOwned(path, world::kDefaultMaxFileBytes);
  if (!bytes.ok()) return WithContext("manifest", bytes.status());
  absl::StatusOr<Manifest> manifest = ParseManifest(*bytes);
  if (!manifest.ok()) return WithContext(absl::StrCat("manifest ", path), manifest.status());
  return manifest;
}

absl::Status WriteManifest(world::Filesystem& files, const std::string& path,
                           const Manifest& manifest) {
  return files.WriteAtomically(path, ManifestJson(manifest), "manifest");
}

}  // namespace agentrt::mcp
