// mcp/proxy/open.h
//
// Starting the proxy from its configuration (docs/proxy.md, "Startup"), in order:
//  1. the database file: absent is fine (the store makes it owner-only); a symbolic link, a
//     file that is not regular, or one others may write or someone else owns is refused;
//  2. the reach check (reach_check.h);
//  3. each server in order: its manifest read (owner-only, strict), its tools loaded against
//     the pin and the rules (mcp::LoadAll, so one name is one tool across servers); a server
//     that registers nothing stops the start; a tool registered under the status tool's name
//     is refused;
//  4. the store opened (and migrated: the proxy's index is migration 7), the file checked again;
//  5. the proxy built over it (proxy.h).
// Whatever was opened is closed again on a failure; the load reports are kept either way.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mcp/config.h"
#include "mcp/load_all.h"
#include "mcp/mcp_tool.h"
#include "mcp/proxy/proxy.h"
#include "runtime/store/store.h"
#include "runtime/world/world.h"

namespace agentrt::proxy {

struct OpenedProxy {
  std::unique_ptr<store::Store> store;
  mcp::ConfiguredTools tools;  // the upstream sessions; Close ends them
  std::unique_ptr<Proxy> proxy;

  OpenedProxy() = default;
  OpenedProxy(OpenedProxy&&) = default;
  OpenedProxy& operator=(OpenedProxy&&) = default;
  ~OpenedProxy();
  // Close: the proxy first, then the upstream sessions, then the store.
  void Close();
};

// CheckDatabaseFile is step 1 (and 4): OK for an absent file; FailedPrecondition `database:
// <path> is a symbolic link; name the database file itself`, `database: <path> is not a regular
// file`, `database: <path> has mode ..., which lets its group or others write it` or `... is
// owned by uid ...`.
absl::Status CheckDatabaseFile(world::Filesystem& files, const std::string& path);

// ProxySettingsOf: the configuration's settings for the proxy.
ProxySettings ProxySettingsOf(const mcp::Config& config);

// OpenProxy runs the startup above in `world` (its filesystem, launcher, network and
// environment are used). `reports` gets each load's report, one line each, even on failure.
// `log` as Proxy::Create's.
absl::StatusOr<OpenedProxy> OpenProxy(const mcp::Config& config, const world::World& world,
                                      std::function<void(std::string_view)> log,
                                      std::string* reports);

// Govern: what the proxy governs of one loaded tool, with its server's rules (the fixed values,
// and a configuration rule's outcome and repeat window, else `repeat_window`).
GovernedTool Govern(mcp::McpTool& tool, const mcp::Rules& rules, absl::Duration repeat_window);

// GovernedTools: what the proxy governs of a configuration's loaded tools.
std::vector<GovernedTool> GovernedTools(const mcp::Config& config,
                                        const mcp::ConfiguredTools& tools);

}  // namespace agentrt::proxy
