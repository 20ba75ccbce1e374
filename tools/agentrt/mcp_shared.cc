#include "tools/agentrt/mcp_shared.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"

namespace agentrt::cli {
namespace {

// Pads `text` to `width` characters (code points, not bytes), never cutting it.
std::string Pad(const std::string& text, std::size_t width) {
  std::size_t chars = 0;
  for (unsigned char c : text) chars += json::IsContinuationByte(c) ? 0 : 1;
  return chars >= width ? text : text + std::string(width - chars, ' ');
}

}  // namespace

mcp::Server ServerOf(const mcp::ServerConfig& config) {
  mcp::Server server;
  server.name = config.name;
  server.command = config.command;
  server.endpoint = config.endpoint;
  server.env = config.env;
  server.inherit_env = config.inherit_env;
  server.connect_timeout = config.connect_timeout;
  server.default_timeout = config.default_timeout;
  return server;
}

void ConfiguredTools::Close() {
  for (mcp::LoadResult& result : loaded) {
    if (result.connection) result.connection->Close();
  }
}

ConfiguredTools LoadConfigured(const mcp::Config& config,
                               const std::vector<mcp::Manifest>& manifests,
                               const world::World& world) {
  ConfiguredTools out;
  mcp::ToolNames names;  // one model-visible name, one tool, across the servers
  mcp::LoadOptions options;
  options.names = &names;
  for (std::size_t s = 0; s < config.servers.size() && s < manifests.size(); ++s) {
    const mcp::ServerConfig& server = config.servers[s];
    out.loaded.push_back(mcp::Load(ServerOf(server), &manifests[s], server.rules, world, options));
    mcp::LoadResult& result = out.loaded.back();
    if (result.report) out.reports += result.report->Text();
    if (!result.status.ok()) {
      absl::StrAppend(&out.reports, json::Sanitize(ToStd(result.status.message())), "\n");
      continue;
    }
    // Registered tools and their report entries are in the same order.
    for (std::size_t i = 0; i < result.tools.size(); ++i) {
      out.tools.push_back(result.tools[i].get());
      const mcp::Rule& rule = server.rules.at(result.report->registered[i].tool);
      if (rule.outcome) out.outcomes[result.tools[i]->Spec().name] = *rule.outcome;
    }
  }
  return out;
}

std::string OneLine(std::string_view text, int max_bytes) {
  std::string collapsed;
  bool space = false;
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !collapsed.empty()) collapsed.push_back(' ');
    space = false;
    collapsed.push_back(c);
  }
  return json::Truncate(json::Sanitize(collapsed), max_bytes);
}

std::string HintsText(const std::optional<mcp::Annotations>& annotations) {
  if (!annotations.has_value()) return "no hints";
  std::vector<std::string> hints;
  if (annotations->read_only_hint == true) hints.push_back("read-only");
  if (annotations->destructive_hint == true) hints.push_back("destructive");
  if (annotations->destructive_hint == false) hints.push_back("not destructive");
  if (annotations->idempotent_hint == true) hints.push_back("idempotent");
  if (annotations->open_world_hint == true) hints.push_back("open-world");
  if (annotations->open_world_hint == false) hints.push_back("closed-world");
  return hints.empty() ? "no hints" : absl::StrJoin(hints, ", ");
}

std::string ListingLines(const std::vector<mcp::ListedTool>& tools,
                         const std::vector<std::string>& extra) {
  std::string out;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const mcp::ListedTool& tool = tools[i];
    absl::StrAppend(&out, "  ", Pad(json::Sanitize(tool.name), 28), "  ",
                    Pad(HintsText(tool.annotations), 38), "  ");
    if (i < extra.size() && !extra[i].empty()) absl::StrAppend(&out, extra[i], "  ");
    absl::StrAppend(&out, OneLine(tool.description, 72), "\n");
  }
  return out;
}

}  // namespace agentrt::cli
