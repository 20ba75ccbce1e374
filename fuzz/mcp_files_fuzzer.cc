// The operator's files from hostile bytes: the same input read as a manifest, as a rules file's
// JSON (both a rules file's fields and a configuration's), and as a configuration. Never
// crashes; a refusal is one line without raw C0 controls; a manifest that parses writes back
// with ManifestJson and parses again to the same manifest and the same bytes; every fixed value
// a rule keeps is canonical JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "mcp/config.h"
#include "mcp/manifest.h"
#include "mcp/rules.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace {

void CheckOneLine(const absl::Status& status) {
  if (status.message().empty()) std::abort();
  for (char c : status.message()) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) std::abort();
  }
}

void Manifests(std::string_view bytes) {
  absl::StatusOr<agentrt::mcp::Manifest> manifest = agentrt::mcp::ParseManifest(bytes);
  if (!manifest.ok()) {
    CheckOneLine(manifest.status());
    return;
  }
  std::string text = agentrt::mcp::ManifestJson(*manifest);
  absl::StatusOr<agentrt::mcp::Manifest> again = agentrt::mcp::ParseManifest(text);
  if (!again.ok()) std::abort();
  if (!(*again == *manifest)) std::abort();
  if (agentrt::mcp::ManifestJson(*again) != text) std::abort();
}

void Rules(std::string_view bytes) {
  absl::StatusOr<agentrt::json::Document> document = agentrt::json::Parse(bytes);
  if (!document.ok()) return;
  for (agentrt::mcp::RuleFields fields :
       {agentrt::mcp::RuleFields::kRulesFile, agentrt::mcp::RuleFields::kConfig}) {
    absl::StatusOr<agentrt::mcp::Rules> rules =
        agentrt::mcp::ParseRules(document->root(), "rules fuzz.json", fields);
    if (!rules.ok()) {
      CheckOneLine(rules.status());
      continue;
    }
    for (const auto& [tool, rule] : *rules) {
      if (rule.timeout < absl::ZeroDuration()) std::abort();
      for (const auto& [name, value] : rule.fixed) {
        absl::StatusOr<std::string> canonical = agentrt::json::Canonicalize(value);
        if (!canonical.ok() || *canonical != value) std::abort();
      }
    }
  }
}

void Configs(std::string_view bytes) {
  absl::StatusOr<agentrt::mcp::Config> config =
      agentrt::mcp::ParseConfig(bytes, "/fuzz/config.json");
  if (!config.ok()) {
    CheckOneLine(config.status());
    return;
  }
  if (config->servers.empty() || config->policy.size() != 4) std::abort();
  if (config->database.empty() || config->database.front() != '/') std::abort();
  for (const agentrt::mcp::ServerConfig& server : config->servers) {
    if (server.command.empty() == server.endpoint.empty()) std::abort();
    if (server.manifest.empty() || server.manifest.front() != '/') std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Manifests(bytes);
  Rules(bytes);
  Configs(bytes);
  return 0;
}
