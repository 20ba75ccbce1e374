// mcp/manifest.h
//
// The manifest: what a server presented when the operator pinned it (docs/mcp.md, "Pin") — each
// tool's name, description and input schema, with the SHA-256 of the schema's canonical JSON and of
// the description's canonical JSON string. Load compares these hashes with what the server presents
// later: a changed schema or description is a refused tool, since the description and schema are
// sent to the model verbatim (a changed description is a prompt injection, not a cosmetic edit).
//
// The file is JSON, written readable and deterministic (ManifestJson) and read strictly
// (ParseManifest): strict intake, every field known, every hash well formed. It is an
// operator's file, so it is read only when no one else could have written it (ReadOwned).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/annotations.h"
#include "mcp/listing.h"
#include "runtime/world/filesystem.h"

namespace agentrt::mcp {

struct PinnedTool {
  std::string name;
  std::string description;
  std::string input_schema;                // canonical JSON
  std::string schema_hash;                 // lowercase hex SHA-256 of input_schema
  std::string description_hash;            // lowercase hex SHA-256 of json::JsonString(description)
  std::optional<Annotations> annotations;  // as received; outside the hashes

  bool operator==(const PinnedTool&) const = default;
};

struct Manifest {
  std::string server;
  absl::Time pinned_at = absl::InfinitePast();
  std::map<std::string, PinnedTool> tools;  // by name

  bool operator==(const Manifest&) const = default;
};

// PinTool pins one listed tool: its hashes are computed here, from the listed canonical schema
// and description (a missing description hashes as "" does).
PinnedTool PinTool(const ListedTool& tool);

// ManifestJson is the manifest file's text: canonical JSON (keys in canonical order, numbers
// and strings in canonical form) laid out with two-space indentation and a final newline, so
// the same manifest always writes the same bytes and a diff shows what changed. `pinned_at` is
// written as world::FormatTimestamp writes it. Every input_schema and annotations JSON must be
// canonical (as PinTool and ParseManifest make them).
std::string ManifestJson(const Manifest& manifest);

// ParseManifest reads a manifest file's bytes. Strict: intake's rules (one JSON value, no
// repeated key, valid UTF-8), an unknown field at the top or in a tool refused naming it,
// `server`, `pinned_at` (RFC 3339) and `tools` required, each tool's name, description,
// input_schema and both hashes required, each hash 64 lowercase hex digits, each tool filed
// under its own name. Errors: InvalidArgument naming the tool and field.
absl::StatusOr<Manifest> ParseManifest(std::string_view bytes);

// ReadManifest reads the file at `path` through ReadOwned and parses it. Errors name the file:
// `manifest: <ReadOwned error, which names the path>` or `manifest <path>: <parse error>`.
absl::StatusOr<Manifest> ReadManifest(world::Filesystem& files, const std::string& path);

// WriteManifest replaces the file at `path` with ManifestJson(manifest), atomically, mode 0600.
absl::Status WriteManifest(world::Filesystem& files, const std::string& path,
                           const Manifest& manifest);

}  // namespace agentrt::mcp
