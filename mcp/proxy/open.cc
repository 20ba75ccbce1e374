#include "mcp/proxy/open.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "mcp/manifest.h"
#include "mcp/mcp_tool.h"
#include "mcp/proxy/proxy_policy.h"
#include "mcp/proxy/reach_check.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/records/schema.h"
#include "runtime/world/filesystem.h"

namespace agentrt::proxy {

OpenedProxy::~OpenedProxy() { Close(); }

void OpenedProxy::Close() {
  if (proxy) proxy->Stop();
  proxy.reset();
  tools.Close();
  store.reset();
}

absl::Status CheckDatabaseFile(world::Filesystem& files, const std::string& path) {
  absl::StatusOr<world::FileInfo> info = files.Lstat(path);
  if (absl::IsNotFound(info.status())) return absl::OkStatus();
  if (!info.ok())
    return absl::FailedPreconditionError(absl::StrCat("database: ", info.status().message()));
  std::string shown = json::Sanitize(path);
  if (info->type == world::FileInfo::Type::kSymlink) {
    return absl::FailedPreconditionError(
        absl::StrCat("database: ", shown, " is a symbolic link; name the database file itself"));
  }
  if (info->type != world::FileInfo::Type::kRegular) {
    return absl::FailedPreconditionError(
        absl::StrCat("database: ", shown, " is not a regular file"));
  }
  if ((info->mode & 022) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("database: ", shown, " has mode ", absl::StrFormat("%04o", info->mode),
                     ", which lets its group or others write it: chmod go-w it"));
  }
  if (info->owner != files.user()) {
    return absl::FailedPreconditionError(absl::StrCat("database: ", shown, " is owned by uid ",
                                                      info->owner, ", not by the current user"));
  }
  return absl::OkStatus();
}

ProxySettings ProxySettingsOf(const mcp::Config& config) {
  ProxySettings s;
  s.session = config.session;
  s.policy = config.policy;
  s.policy_id = PolicyId(config);
  s.hold = config.hold;
  s.max_pending = config.max_pending;
  s.approval_ttl = config.approval_ttl;
  s.grant_ttl = config.grant_ttl;
  s.lease_ttl = config.lease_ttl;
  s.status_tool = config.status_tool;
  s.database = config.database;
  return s;
}

GovernedTool Govern(mcp::McpTool& tool, const mcp::Rules& rules, absl::Duration repeat_window) {
  ToolSpec spec = tool.Spec();
  GovernedTool g;
  g.tool = &tool;
  g.server = tool.connection()->server();
  g.upstream = tool.remote_name();
  g.name = spec.name;
  g.side_effect = spec.side_effect;
  g.repeat_window = repeat_window;
  if (auto rule = rules.find(tool.remote_name()); rule != rules.end()) {
    g.fixed = rule->second.fixed;
    g.outcome = rule->second.outcome;
    if (rule->second.repeat_window) g.repeat_window = *rule->second.repeat_window;
  }
  return g;
}

std::vector<GovernedTool> GovernedTools(const mcp::Config& config,
                                        const mcp::ConfiguredTools& tools) {
  std::vector<GovernedTool> out;
  for (std::size_t i = 0; i < tools.loaded.size() && i < config.servers.size(); ++i) {
    for (const std::unique_ptr<mcp::McpTool>& t : tools.loaded[i].tools) {
      out.push_back(Govern(*t, config.servers[i].rules, config.repeat_window));
    }
  }
  return out;
}

absl::StatusOr<OpenedProxy> OpenProxy(const mcp::Config& config, const world::World& world,
                                      std::function<void(std::string_view)> log,
                                      std::string* reports) {
  if (world.filesystem == nullptr) {
    return absl::InvalidArgumentError("proxy: the world needs a filesystem");
  }
  world::Filesystem& files = *world.filesystem;
  AGENTRT_RETURN_IF_ERROR(CheckDatabaseFile(files, config.database));
  AGENTRT_RETURN_IF_ERROR(CheckReach(config, files, world.environment));
  std::vector<mcp::Manifest> manifests;
  for (const mcp::ServerConfig& s : config.servers) {
    absl::StatusOr<mcp::Manifest> manifest = mcp::ReadManifest(files, s.manifest);
    if (!manifest.ok()) {
      return absl::Status(manifest.status().code(),
                          absl::StrCat("server \"", json::Sanitize(s.name),
                                       "\": manifest: ", manifest.status().message()));
    }
    manifests.push_back(*std::move(manifest));
  }
  OpenedProxy opened;
  opened.tools = mcp::LoadConfigured(config, manifests, world);
  if (reports != nullptr) *reports = opened.tools.reports;
  for (std::size_t i = 0; i < opened.tools.loaded.size(); ++i) {
    const mcp::LoadResult& loaded = opened.tools.loaded[i];
    if (!loaded.status.ok()) return loaded.status;
    for (const std::unique_ptr<mcp::McpTool>& t : loaded.tools) {
      if (t->Spec().name == config.status_tool) {
        return absl::InvalidArgumentError(absl::StrCat(
            "server \"", json::Sanitize(config.servers[i].name), "\" registers tool \"",
            json::Sanitize(t->remote_name()), "\" under \"", json::Sanitize(config.status_tool),
            "\", the status tool's name: rename one (status_tool or the rule's rename)"));
      }
    }
  }
  AGENTRT_ASSIGN_OR_RETURN(opened.store, records::OpenStore(config.database, *world.clock));
  AGENTRT_RETURN_IF_ERROR(CheckDatabaseFile(files, config.database));
  AGENTRT_ASSIGN_OR_RETURN(opened.proxy,
                           Proxy::Create(*opened.store, world, ProxySettingsOf(config),
                                         GovernedTools(config, opened.tools), std::move(log)));
  return opened;
}

}  // namespace agentrt::proxy
