// The MCP client's cost against floors measured in the same run (figures in
// docs/performance.md):
//  - BM_PinLoad/1000_tools: Pin then Load of an in-process server offering 1,000 tools (the
//    pinned filesystem server's 14 schemas repeated under distinct names), every tool
//    classified. Floor BM_ListingIntakeFloor/1000_tools: the same listing's bytes through strict
//    intake and each input schema written canonical, twice (Pin lists once, Load again).
//  - BM_McpCall/in_process: one tools/call through McpTool to the in-process server. Floor
//    BM_PipeRoundTripFloor/in_process: the call's request and response lines written into a
//    pipe and read back.
//  - BM_McpCall/filesystem: read_text_file of a small file through the real filesystem server
//    (node). Floor BM_CatRoundTripFloor/filesystem: the same two lines written to a `cat` child
//    and read back from it: one hand-off to another process and back. Reference
//    BM_BareServerRoundTrip/filesystem: the same request written straight to the server and its
//    answer read, without the client or the launcher: the server's own share.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_launcher.h"
#include "tests/support/in_process_mcp.h"
#include "tests/support/tap_launcher.h"

extern char** environ;

namespace agentrt::mcp {
namespace {

constexpr int kTools = 1000;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The pinned filesystem server's listing (fixtures/schemas/), its 14 tools repeated under
// distinct names until there are `count`: `read_file_0000`, `read_text_file_0001`, ...
std::string RepeatedTools(int count) {
  absl::StatusOr<json::Document> captured = json::Parse(ReadFile(
      std::filesystem::path(AGENTRT_SOURCE_DIR) / "fixtures/schemas/server-filesystem-tools.json"));
  if (!captured.ok()) return "[]";
  json::Value tools = captured->root();
  std::string out = "[";
  for (int i = 0; i < count; ++i) {
    json::Value tool = tools.element(i % tools.size());
    json::JsonObject copy;
    for (std::size_t m = 0; m < tool.size(); ++m) {
      if (tool.key(m) == "name") {
        char suffix[8];
        std::snprintf(suffix, sizeof(suffix), "_%04d", i);
        copy.String("name", absl::StrCat(ToAbsl(tool.member(m).string_value()), suffix));
      } else {
        copy.Raw(tool.key(m), json::WriteCanonical(tool.member(m)));
      }
    }
    if (i > 0) out += ",";
    out += copy.Build();
  }
  return out + "]";
}

// A rule for each listed tool, by what its hints claim (the operator agreeing with the server),
// so that every one registers.
Rules ClassifyByHints(const Manifest& manifest) {
  Rules rules;
  for (const auto& [name, tool] : manifest.tools) {
    Rule rule;
    rule.timeout = absl::Seconds(5);
    rule.side_effect = SideEffect::kLocalMutation;
    if (tool.annotations && tool.annotations->read_only_hint == true) {
      rule.side_effect = SideEffect::kReadOnly;
    } else if (tool.annotations && tool.annotations->destructive_hint == true) {
      rule.side_effect = SideEffect::kDestructive;
    }
    rules.emplace(name, rule);
  }
  return rules;
}

Server InProcessServer() {
  Server server;
  server.name = "fs";
  server.command = {"in-process"};
  server.connect_timeout = absl::Seconds(30);
  return server;
}

void BM_PinLoad(benchmark::State& state) {
  world::RealClock clock;
  test_support::InProcessMcpLauncher launcher(RepeatedTools(kTools), "{}");
  world::World w{.clock = &clock, .launcher = &launcher};
  Server server = InProcessServer();
  absl::StatusOr<Manifest> pinned = Pin(server, w);
  if (!pinned.ok()) {
    state.SkipWithError(std::string(pinned.status().message()).c_str());
    return;
  }
  Rules rules = ClassifyByHints(*pinned);
  for (auto _ : state) {
    absl::StatusOr<Manifest> manifest = Pin(server, w);
    LoadResult loaded = Load(server, &*manifest, rules, w);
    if (!loaded.status.ok() || loaded.tools.size() != kTools) {
      state.SkipWithError(loaded.status.ok() ? "not every tool registered"
                                             : std::string(loaded.status.message()).c_str());
      break;
    }
    loaded.connection->Close();
  }
  state.SetItemsProcessed(state.iterations() * kTools);
  state.SetLabel("items = tools");
}

void BM_ListingIntakeFloor(benchmark::State& state) {
  const std::string listing = absl::StrCat(R"({"tools":)", RepeatedTools(kTools), "}");
  for (auto _ : state) {
    for (int pass = 0; pass < 2; ++pass) {  // Pin's listing, then Load's
      absl::StatusOr<json::Document> doc = json::Parse(listing);
      json::Value tools = *doc->root().Find("tools");
      for (std::size_t i = 0; i < tools.size(); ++i) {
        benchmark::DoNotOptimize(json::WriteCanonical(*tools.element(i).Find("inputSchema")));
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * kTools);
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(listing.size()));
  state.SetLabel("items = tools");
}

// A server pinned and loaded with a rule for read_text_file alone, through a tap, and one call
// made: the tool to call, and the bytes of that call's request and response lines.
struct LoadedCall {
  world::RealClock clock;
  std::unique_ptr<test_support::TapLauncher> tap;
  Manifest manifest;
  LoadResult loaded;
  McpTool* tool = nullptr;
  std::string args;
  // The session's lines as sent, each with its newline: the client's initialize request and
  // initialized notification, and the one call's request and response.
  struct Lines {
    std::string initialize, initialized, request, response;
    std::string initialize_answer;
  };
  Lines lines;
  std::string error;

  LoadedCall(world::Launcher& launcher, world::Environment* environment, const Server& server,
             std::string call_args)
      : tap(std::make_unique<test_support::TapLauncher>(launcher)), args(std::move(call_args)) {
    world::World w{.clock = &clock, .launcher = tap.get(), .environment = environment};
    absl::StatusOr<Manifest> pinned = Pin(server, w);
    if (!pinned.ok()) {
      error = std::string(pinned.status().message());
      return;
    }
    manifest = *std::move(pinned);
    Rule rule;
    rule.side_effect = SideEffect::kReadOnly;
    rule.timeout = absl::Seconds(5);
    loaded = Load(server, &manifest, {{"read_text_file", rule}}, w);
    if (!loaded.status.ok()) {
      error = std::string(loaded.status.message());
      return;
    }
    tool = loaded.tools[0].get();
    absl::StatusOr<ToolResult> first = Call();
    if (!first.ok()) {
      error = std::string(first.status().message());
      return;
    }
    test_support::Tapped tapped = tap->last();
    std::vector<std::string> written = Split(tapped.written);
    std::vector<std::string> read = Split(tapped.read);
    if (written.size() < 2 || read.empty()) {
      error = "the session's lines were not tapped";
      return;
    }
    lines = {written[0], written[1], written.back(), read.back(), read.front()};
  }
  ~LoadedCall() {
    if (loaded.connection) loaded.connection->Close();
  }

  absl::StatusOr<ToolResult> Call() {
    ToolCall call;
    call.args = args;
    call.clock = &clock;
    call.deadline = clock.Now() + absl::Seconds(10);
    return tool->Call(call);
  }

  // The whole lines of `bytes`, each with its newline.
  static std::vector<std::string> Split(const std::string& bytes) {
    std::vector<std::string> out;
    for (std::size_t start = 0, end; (end = bytes.find('\n', start)) != std::string::npos;
         start = end + 1) {
      out.push_back(bytes.substr(start, end - start + 1));
    }
    return out;
  }
};

void CallLoop(benchmark::State& state, LoadedCall& call) {
  if (!call.error.empty()) {
    state.SkipWithError(call.error.c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<ToolResult> result = call.Call();
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
  }
  state.SetLabel(
      absl::StrCat(call.lines.request.size() + call.lines.response.size(), " bytes a call"));
}

// What the real filesystem server answers read_text_file of a 6-byte file.
constexpr char kReadResult[] =
    R"({"content":[{"type":"text","text":"hello\n"}],"structuredContent":{"content":"hello\n"}})";
constexpr char kReadArgs[] = R"({"path":"/srv/sandbox/hello.txt"})";

// The in-process stand-in for the filesystem server: its captured 14 tools, and the answer
// above to every call.
test_support::InProcessMcpLauncher InProcessFilesystem() {
  return test_support::InProcessMcpLauncher(
      ReadFile(std::filesystem::path(AGENTRT_SOURCE_DIR) /
               "fixtures/schemas/server-filesystem-tools.json"),
      kReadResult);
}

void BM_McpCall_InProcess(benchmark::State& state) {
  test_support::InProcessMcpLauncher launcher = InProcessFilesystem();
  LoadedCall call(launcher, nullptr, InProcessServer(), kReadArgs);
  CallLoop(state, call);
}

// Writes `bytes` to `out` and reads as many back from `in`. False on any failure.
bool RoundTrip(int out, int in, const std::string& bytes, std::string& buffer) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    ssize_t n = ::write(out, bytes.data() + sent, bytes.size() - sent);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  for (std::size_t got = 0; got < bytes.size();) {
    ssize_t n = ::read(in, buffer.data() + got, buffer.size() - got);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

void BM_PipeRoundTripFloor_InProcess(benchmark::State& state) {
  test_support::InProcessMcpLauncher launcher = InProcessFilesystem();
  LoadedCall call(launcher, nullptr, InProcessServer(), kReadArgs);
  if (!call.error.empty()) {
    state.SkipWithError(call.error.c_str());
    return;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    state.SkipWithError("pipe failed");
    return;
  }
  const std::string exchange = call.lines.request + call.lines.response;
  std::string buffer(exchange.size(), '\0');
  for (auto _ : state) {
    if (!RoundTrip(fds[1], fds[0], exchange, buffer)) {
      state.SkipWithError("the pipe failed");
      break;
    }
  }
  ::close(fds[0]);
  ::close(fds[1]);
  state.SetLabel(absl::StrCat(exchange.size(), " bytes a call"));
}

// A sandbox with hello.txt, removed when this goes.
struct Sandbox {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("agentrt_mcp_bench_", ::getpid());
  Sandbox() {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "hello.txt") << "hello\n";
  }
  ~Sandbox() { std::filesystem::remove_all(dir); }
};

// This process's PATH, where node is found, and nothing else of its environment.
world::FixedEnvironment OurPath() {
  const char* path = std::getenv("PATH");
  return world::FixedEnvironment(std::map<std::string, std::string, std::less<>>{
      {"PATH", path != nullptr ? path : "/usr/bin:/bin"}});
}

Server FilesystemServer(const Sandbox& sandbox) {
  Server server;
  server.name = "fs";
  server.command = {"node", absl::StrCat(AGENTRT_SERVERS_DIR, "/server-filesystem/dist/index.js"),
                    sandbox.dir.string()};
  server.connect_timeout = absl::Seconds(30);
  return server;
}

void BM_McpCall_Filesystem(benchmark::State& state) {
  Sandbox sandbox;
  world::RealClock clock;
  world::RealLauncher launcher(clock);
  world::FixedEnvironment environment = OurPath();
  LoadedCall call(launcher, &environment, FilesystemServer(sandbox),
                  json::JsonObject().String("path", (sandbox.dir / "hello.txt").string()).Build());
  CallLoop(state, call);
}

// A child started with posix_spawn, its stdin and stdout pipes of ours and its stderr
// /dev/null: nothing of the launcher's (no thread, no clock) between the benchmark and it.
class PipedChild {
 public:
  explicit PipedChild(std::vector<std::string> argv) {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0) return;
    if (::pipe2(from_child, O_CLOEXEC) != 0) {
      ::close(to_child[0]);
      ::close(to_child[1]);
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char*> args;
    for (std::string& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    if (::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) == 0) pid_ = pid;
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
  }
  ~PipedChild() {
    ::close(in_);  // the child reads end of input and exits
    ::close(out_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  PipedChild(const PipedChild&) = delete;
  PipedChild& operator=(const PipedChild&) = delete;

  bool ok() const { return pid_ > 0; }
  int in() const { return in_; }
  int out() const { return out_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
};

// Reads `size` bytes from `fd`. False on end of file or an error.
bool ReadExactly(int fd, std::string& buffer, std::size_t size) {
  buffer.resize(size);
  for (std::size_t got = 0; got < size;) {
    ssize_t n = ::read(fd, buffer.data() + got, size - got);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

// The real filesystem server's call, pinned and loaded through the client, made once: its
// request and response lines (and the session's opening lines) for the floors.
absl::StatusOr<LoadedCall::Lines> FilesystemCallLines(const Sandbox& sandbox) {
  world::RealClock clock;
  world::RealLauncher launcher(clock);
  world::FixedEnvironment environment = OurPath();
  LoadedCall call(launcher, &environment, FilesystemServer(sandbox),
                  json::JsonObject().String("path", (sandbox.dir / "hello.txt").string()).Build());
  if (!call.error.empty()) return absl::UnavailableError(call.error);
  return call.lines;
}

void BM_CatRoundTripFloor_Filesystem(benchmark::State& state) {
  Sandbox sandbox;
  absl::StatusOr<LoadedCall::Lines> lines = FilesystemCallLines(sandbox);
  if (!lines.ok()) {
    state.SkipWithError(std::string(lines.status().message()).c_str());
    return;
  }
  PipedChild cat({"cat"});
  if (!cat.ok()) {
    state.SkipWithError("cat did not start");
    return;
  }
  const std::string exchange = lines->request + lines->response;
  std::string buffer(exchange.size(), '\0');
  for (auto _ : state) {
    if (!RoundTrip(cat.in(), cat.out(), exchange, buffer)) {
      state.SkipWithError("the round trip through cat failed");
      break;
    }
  }
  state.SetLabel(absl::StrCat(exchange.size(), " bytes a call"));
}

// Not a floor but a reference: the same request written straight to a filesystem server (node,
// started without the launcher, opened with the client's own handshake lines) and its response
// read back. What BM_McpCall/filesystem adds to it is the client's and the launcher's.
void BM_BareServerRoundTrip_Filesystem(benchmark::State& state) {
  Sandbox sandbox;
  absl::StatusOr<LoadedCall::Lines> lines = FilesystemCallLines(sandbox);
  if (!lines.ok()) {
    state.SkipWithError(std::string(lines.status().message()).c_str());
    return;
  }
  PipedChild node(FilesystemServer(sandbox).command);
  std::string opening = lines->initialize + lines->initialized;
  std::string buffer;
  if (!node.ok() ||
      ::write(node.in(), opening.data(), opening.size()) != static_cast<ssize_t>(opening.size()) ||
      !ReadExactly(node.out(), buffer, lines->initialize_answer.size())) {
    state.SkipWithError("the filesystem server did not start");
    return;
  }
  for (auto _ : state) {
    bool sent = ::write(node.in(), lines->request.data(), lines->request.size()) ==
                static_cast<ssize_t>(lines->request.size());
    if (!sent || !ReadExactly(node.out(), buffer, lines->response.size()) ||
        buffer != lines->response) {
      state.SkipWithError("the filesystem server did not answer as it did the client");
      break;
    }
  }
  state.SetLabel(absl::StrCat(lines->request.size() + lines->response.size(), " bytes a call"));
}

// A reference too: the same request through the real launcher's Process (its writer and reader
// threads), without the client. What BM_McpCall/filesystem adds to it is the client's alone.
void BM_LauncherRoundTrip_Filesystem(benchmark::State& state) {
  Sandbox sandbox;
  absl::StatusOr<LoadedCall::Lines> lines = FilesystemCallLines(sandbox);
  if (!lines.ok()) {
    state.SkipWithError(std::string(lines.status().message()).c_str());
    return;
  }
  world::RealClock clock;
  world::RealLauncher launcher(clock);
  world::FixedEnvironment environment = OurPath();
  world::LaunchSpec spec;
  spec.argv = FilesystemServer(sandbox).command;
  spec.env = {absl::StrCat("PATH=", *environment.Get("PATH"))};
  absl::StatusOr<std::unique_ptr<world::Process>> node = launcher.Start(spec);
  // Reads until `size` bytes came, within five seconds.
  auto read = [&](std::size_t size) {
    std::string got;
    absl::Time deadline = clock.Now() + absl::Seconds(5);
    while (got.size() < size) {
      absl::StatusOr<std::string> chunk = (*node)->Read(deadline);
      if (!chunk.ok() || chunk->empty()) break;
      got += *chunk;
    }
    return got;
  };
  if (!node.ok() ||
      !(*node)
           ->Write(lines->initialize + lines->initialized, clock.Now() + absl::Seconds(5))
           .ok() ||
      read(lines->initialize_answer.size()).size() != lines->initialize_answer.size()) {
    state.SkipWithError("the filesystem server did not start");
    return;
  }
  for (auto _ : state) {
    absl::Status sent = (*node)->Write(lines->request, clock.Now() + absl::Seconds(5));
    if (!sent.ok() || read(lines->response.size()) != lines->response) {
      state.SkipWithError("the filesystem server did not answer as it did the client");
      break;
    }
  }
  (*node)->Close();
  state.SetLabel(absl::StrCat(lines->request.size() + lines->response.size(), " bytes a call"));
}

BENCHMARK(BM_PinLoad)->Name("BM_PinLoad/1000_tools")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListingIntakeFloor)
    ->Name("BM_ListingIntakeFloor/1000_tools")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_McpCall_InProcess)->Name("BM_McpCall/in_process");
BENCHMARK(BM_PipeRoundTripFloor_InProcess)->Name("BM_PipeRoundTripFloor/in_process");
BENCHMARK(BM_McpCall_Filesystem)->Name("BM_McpCall/filesystem")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CatRoundTripFloor_Filesystem)
    ->Name("BM_CatRoundTripFloor/filesystem")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BareServerRoundTrip_Filesystem)
    ->Name("BM_BareServerRoundTrip/filesystem")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LauncherRoundTrip_Filesystem)
    ->Name("BM_LauncherRoundTrip/filesystem")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentrt::mcp

BENCHMARK_MAIN();
