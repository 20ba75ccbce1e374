// tests/mcp/real_servers.h
//
// What the tests against the real, pinned Node MCP servers (fixtures/servers/) share: each
// server as the operator would configure it, started with `node` from this process's PATH, and
// the real world they run in (the system clock, real child processes seen through a tap, the
// PATH and nothing else of this process's environment). The facts the tests assert are the ones
// fixtures/servers/README.md writes down. Test-only.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/load.h"
#include "mcp/rules.h"
#include "mcp/server.h"
#include "runtime/tool.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_launcher.h"
#include "runtime/world/world.h"
#include "tests/support/tap_launcher.h"

namespace agentrt::mcp::real_servers {

// The entry script of a pinned server package ("server-filesystem", ...).
std::string Script(std::string_view package);

// A server named `name` started as `node <script> <args...>`, with generous bounds: these are
// real processes on a shared machine.
Server NodeServer(std::string name, std::string_view package,
                  std::initializer_list<std::string> args = {});

// The filesystem server confined to `sandbox`, named "fs" as in the MCP demonstration.
Server Filesystem(const std::string& sandbox);
// The everything server over stdio, named "everything".
Server Everything();
// The memory server keeping its graph in `memory_file` (always set: without it the server
// writes into its installed package), named "memory".
Server Memory(const std::string& memory_file);

// Rules classifying each of `tools` as `side_effect` with `timeout`.
Rules Classify(std::initializer_list<std::string> tools, SideEffect side_effect,
               absl::Duration timeout = absl::Seconds(10));

// The real world of these tests. Close every session before it goes.
class RealWorld {
 public:
  RealWorld();
  world::World world() {
    return {.clock = &clock_, .launcher = &tap_, .environment = &environment_};
  }
  const world::Clock& clock() const { return clock_; }
  world::Launcher& launcher() { return launcher_; }  // untapped
  world::Environment& environment() { return environment_; }
  const test_support::TapLauncher& tap() const { return tap_; }

 private:
  world::RealClock clock_;
  world::FixedEnvironment environment_;
  // Servers that keep running at end of input get a short grace before SIGTERM.
  world::RealLauncher launcher_{clock_,
                                {.stdin_grace = absl::Seconds(1), .term_grace = absl::Seconds(1)}};
  test_support::TapLauncher tap_{launcher_};
};

// The tool the model knows as `name`; fails the test and returns null when Load did not
// register it.
McpTool* Named(LoadResult& loaded, std::string_view name);

// Calls `tool` with `args`, as the driver would after validation, bounded by `within` on
// `clock`.
absl::StatusOr<ToolResult> CallTool(McpTool& tool, std::string_view args, const world::Clock& clock,
                                    absl::Duration within = absl::Seconds(20));

// Pins `server` in `world`; fails the test and returns an empty manifest when Pin fails.
Manifest PinOrFail(const Server& server, const world::World& world);

// Whether no process of `pid`'s process group is left: the server and whatever it started.
bool GroupGone(pid_t pid);

// A file's bytes ("" when it cannot be read), and writing them.
std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, std::string_view bytes);

// How many times `what` occurs in `text`.
int Count(std::string_view text, std::string_view what);

}  // namespace agentrt::mcp::real_servers
