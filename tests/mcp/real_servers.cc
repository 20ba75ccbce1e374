#include "tests/mcp/real_servers.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "mcp/pin.h"
#include "runtime/base/string_view.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp::real_servers {
namespace {

std::map<std::string, std::string, std::less<>> OurPath() {
  const char* path = std::getenv("PATH");
  return {{"PATH", path != nullptr ? path : "/usr/bin:/bin"}};
}

}  // namespace

std::string Script(std::string_view package) {
  return absl::StrCat(AGENTRT_SERVERS_DIR, "/", ToAbsl(package), "/dist/index.js");
}

Server NodeServer(std::string name, std::string_view package,
                  std::initializer_list<std::string> args) {
  Server server;
  server.name = std::move(name);
  server.command = {"node", Script(package)};
  server.command.insert(server.command.end(), args);
  server.connect_timeout = absl::Seconds(30);
  server.default_timeout = absl::Seconds(10);
  return server;
}

Server Filesystem(const std::string& sandbox) {
  return NodeServer("fs", "server-filesystem", {sandbox});
}

Server Everything() { return NodeServer("everything", "server-everything"); }

Server Memory(const std::string& memory_file) {
  Server server = NodeServer("memory", "server-memory");
  server.env = {"MEMORY_FILE_PATH=" + memory_file};
  return server;
}

Rules Classify(std::initializer_list<std::string> tools, SideEffect side_effect,
               absl::Duration timeout) {
  Rules rules;
  for (const std::string& tool : tools) {
    Rule rule;
    rule.side_effect = side_effect;
    rule.timeout = timeout;
    rules.emplace(tool, rule);
  }
  return rules;
}

RealWorld::RealWorld() : environment_(OurPath()) {}

McpTool* Named(LoadResult& loaded, std::string_view name) {
  for (const auto& tool : loaded.tools) {
    if (tool->Spec().name == name) return tool.get();
  }
  ADD_FAILURE() << "Load registered no tool " << name;
  return nullptr;
}

absl::StatusOr<ToolResult> CallTool(McpTool& tool, std::string_view args, const world::Clock& clock,
                                    absl::Duration within) {
  ToolCall call;
  call.args = std::string(args);
  call.clock = &clock;
  call.deadline = clock.Now() + within;
  return tool.Call(call);
}

Manifest PinOrFail(const Server& server, const world::World& world) {
  absl::StatusOr<Manifest> manifest = Pin(server, world);
  EXPECT_OK(manifest);
  return manifest.ok() ? *std::move(manifest) : Manifest();
}

bool GroupGone(pid_t pid) { return ::kill(-pid, 0) != 0 && errno == ESRCH; }

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

int Count(std::string_view text, std::string_view what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

}  // namespace agentrt::mcp::real_servers
