#include "mcp/load_all.h"

#include "absl/strings/str_cat.h"
#include "mcp/tool_names.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {

Server ServerOf(const ServerConfig& config) {
  Server server;
  server.name = config.name;
  server.command = config.command;
  server.endpoint = config.endpoint;
  server.env = config.env;
  server.inherit_env = config.inherit_env;
  server.connect_timeout = config.connect_timeout;
  server.default_timeout = config.default_timeout;
  server.auth = config.auth;
  return server;
}

std::vector<LoadResult> LoadAll(std::span<const ServerToLoad> servers, const world::World& world,
                                SpecCache* specs) {
  ToolNames names;  // one model-visible name, one tool, across the servers
  LoadOptions options;
  options.names = &names;
  options.specs = specs;
  std::vector<LoadResult> loaded;
  loaded.reserve(servers.size());
  for (const ServerToLoad& s : servers) {
    loaded.push_back(Load(s.server, s.manifest, *s.rules, world, options));
  }
  return loaded;
}

void ConfiguredTools::Close() {
  for (LoadResult& result : loaded) {
    if (result.connection) result.connection->Close();
  }
}

ConfiguredTools LoadConfigured(const Config& config, const std::vector<Manifest>& manifests,
                               const world::World& world, SpecCache* specs) {
  std::vector<ServerToLoad> servers;
  for (std::size_t s = 0; s < config.servers.size() && s < manifests.size(); ++s) {
    servers.push_back({ServerOf(config.servers[s]), &manifests[s], &config.servers[s].rules});
  }
  ConfiguredTools out;
  out.loaded = LoadAll(servers, world, specs);
  for (std::size_t s = 0; s < out.loaded.size(); ++s) {
    const LoadResult& result = out.loaded[s];
    if (result.report) out.reports += result.report->Text();
    if (!result.status.ok()) {
      absl::StrAppend(&out.reports, json::Sanitize(ToStd(result.status.message())), "\n");
      continue;
    }
    // Registered tools and their report entries are in the same order.
    for (std::size_t i = 0; i < result.tools.size(); ++i) {
      out.tools.push_back(result.tools[i].get());
      const Rule& rule = config.servers[s].rules.at(result.report->registered[i].tool);
      if (rule.outcome) out.outcomes[result.tools[i]->Spec().name] = *rule.outcome;
    }
  }
  return out;
}

}  // namespace agentrt::mcp
