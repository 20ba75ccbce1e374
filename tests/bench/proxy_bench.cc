// The governing proxy's cost per call against the bare MCP round trip, in the same run (figures
// in docs/performance.md):
//  - BM_ProxyCall/{memory,file}: one host tools/call line through the proxy's stdio front
//    (HostFront), deciding it (request key, the key's index rows, the policy), a run begun and
//    the call executed through the gate (recorded, validated, judged, started and finished,
//    each a transaction; on a file, the start synced) and its answer line written: a read-only
//    call allowed by policy, to an in-process MCP server (tests/support/in_process_mcp.h).
//  - BM_GateRunFloor/{memory,file}: the same call as a one-step run through the gate alone
//    (Driver::Begin, Step, Propose, Execute), with no host, no index and no proxy rules: the
//    proxy's own share is the difference from BM_ProxyCall.
//  - BM_McpCallFloor: the same call through the same MCP client (McpTool::Call) with nothing
//    governing it.
// Every benchmark runs a fixed 300 iterations: a store's commit still grows with what it holds
// (docs/performance.md, issue 27), so figures are compared at equal sizes.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "mcp/proxy/host_front.h"
#include "mcp/proxy/proxy.h"
#include "runtime/base/string_view.h"
#include "runtime/driver.h"
#include "runtime/policy.h"
#include "runtime/records/schema.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/support/in_process_mcp.h"

namespace agentrt::proxy {
namespace {

constexpr char kTools[] =
    R"([{"name":"balance","description":"Report an account's balance.",)"
    R"("annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":)"
    R"({"account":{"type":"string"}},"required":["account"],"additionalProperties":false}}])";
constexpr char kResult[] = R"({"content":[{"type":"text","text":"account A-1 holds 120.00 EUR"}]})";
constexpr char kCall[] =
    R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bank_balance",)"
    R"("arguments":{"account":"A-1"}}})";

// One loaded upstream tool and the world around it.
struct Upstream {
  world::ManualClock clock{absl::FromUnixSeconds(1'800'000'000), {.tick = absl::Microseconds(1)}};
  world::SeededEntropy entropy{1};
  test_support::InProcessMcpLauncher launcher{kTools, kResult};
  mcp::Manifest manifest;
  mcp::LoadResult loaded;
  std::string error;

  Upstream() {
    mcp::Server server;
    server.name = "bank";
    server.command = {"in-process"};
    server.connect_timeout = absl::Seconds(30);
    absl::StatusOr<mcp::Manifest> pinned = mcp::Pin(server, World());
    if (!pinned.ok()) {
      error = std::string(pinned.status().message());
      return;
    }
    manifest = *std::move(pinned);
    mcp::Rule rule;
    rule.side_effect = SideEffect::kReadOnly;
    rule.timeout = absl::Seconds(5);
    loaded = mcp::Load(server, &manifest, {{"balance", rule}}, World());
    if (!loaded.status.ok()) error = std::string(loaded.status.message());
  }
  ~Upstream() {
    if (loaded.connection) loaded.connection->Close();
  }
  world::World World() {
    return world::World{
        .clock = &clock, .scheduler = &clock, .entropy = &entropy, .launcher = &launcher};
  }
};

// The store a benchmark writes: in memory, or a file of its own, removed by the destructor.
struct BenchStore {
  std::string path;
  absl::StatusOr<std::unique_ptr<store::Store>> store;
  BenchStore(bool file, const world::Clock& clock, std::string_view name)
      : path(file ? absl::StrCat("/tmp/agentrt_", ToAbsl(name), "_", ::getpid(), ".db") : ""),
        store(file ? records::OpenStore(path, clock) : records::OpenStoreInMemory(clock)) {}
  ~BenchStore() {
    if (store.ok()) store->reset();
    if (path.empty()) return;
    for (const std::string& f : {path, path + "-wal", path + "-shm"}) std::remove(f.c_str());
  }
};

void BM_ProxyCall(benchmark::State& state, bool file) {
  Upstream upstream;
  if (!upstream.error.empty()) {
    state.SkipWithError(upstream.error.c_str());
    return;
  }
  BenchStore bench(file, upstream.clock, "proxy_bench");
  if (!bench.store.ok()) {
    state.SkipWithError(std::string(bench.store.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<store::Store>>& store = bench.store;
  GovernedTool tool;
  tool.tool = upstream.loaded.tools[0].get();
  tool.server = "bank";
  tool.upstream = "balance";
  tool.name = "bank_balance";
  tool.repeat_window = absl::Minutes(10);
  ProxySettings settings;
  settings.session = "bench";
  settings.policy = {{SideEffect::kReadOnly, PolicyOutcome::kAllow}};
  settings.hold = absl::ZeroDuration();
  absl::StatusOr<std::unique_ptr<Proxy>> proxy =
      Proxy::Create(**store, upstream.World(), settings, {tool}, [](std::string_view) {});
  if (!proxy.ok()) {
    state.SkipWithError(std::string(proxy.status().message()).c_str());
    return;
  }
  std::string answer;
  HostFront front(**proxy);
  Send send = [&](std::string line) { answer = std::move(line); };
  for (auto _ : state) {
    std::optional<std::function<void()>> task = front.Receive(kCall, send);
    if (!task) {
      state.SkipWithError("the call was not taken");
      break;
    }
    (*task)();
    if (answer.find("holds 120.00 EUR") == std::string::npos) {
      state.SkipWithError(answer.c_str());
      break;
    }
  }
  proxy->reset();
}

class AllowAll final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
    PolicyDecision d;
    d.outcome = PolicyOutcome::kAllow;
    d.outcome_text = "allow";
    return d;
  }
};

void BM_GateRunFloor(benchmark::State& state, bool file) {
  Upstream upstream;
  if (!upstream.error.empty()) {
    state.SkipWithError(upstream.error.c_str());
    return;
  }
  BenchStore bench(file, upstream.clock, "gate_bench");
  if (!bench.store.ok()) {
    state.SkipWithError(std::string(bench.store.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<store::Store>>& store = bench.store;
  TerminalTool read(upstream.loaded.tools[0].get());
  AllowAll policy;
  DriverOptions options;
  options.policy = &policy;
  options.tools = {&read};
  options.lease_owner = "bench";
  options.scheduler = &upstream.clock;
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Create(**store, upstream.clock, upstream.entropy, options);
  if (!driver.ok()) {
    state.SkipWithError(std::string(driver.status().message()).c_str());
    return;
  }
  Decision d;
  d.kind = "tool_call";
  d.tool = "bank_balance";
  d.args = R"({"account":"A-1"})";
  std::int64_t n = 0;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<GateSession>> session =
        (*driver)->Begin(absl::StrCat("bench.", n++), "call bank_balance");
    if (!session.ok() || !(*session)->Step().ok() || !(*session)->Propose(d).ok() ||
        !(*session)->Execute().ok()) {
      state.SkipWithError("the gate refused the call");
      break;
    }
  }
  driver->reset();
}

void BM_McpCallFloor(benchmark::State& state) {
  Upstream upstream;
  if (!upstream.error.empty()) {
    state.SkipWithError(upstream.error.c_str());
    return;
  }
  Tool* tool = upstream.loaded.tools[0].get();
  for (auto _ : state) {
    ToolCall call;
    call.args = R"({"account":"A-1"})";
    call.clock = &upstream.clock;
    call.deadline = upstream.clock.Now() + absl::Seconds(10);
    absl::StatusOr<ToolResult> result = tool->Call(call);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
  }
}

BENCHMARK_CAPTURE(BM_ProxyCall, memory, false)->Iterations(300);
BENCHMARK_CAPTURE(BM_GateRunFloor, memory, false)->Iterations(300);
BENCHMARK_CAPTURE(BM_ProxyCall, file, true)->Iterations(300);
BENCHMARK_CAPTURE(BM_GateRunFloor, file, true)->Iterations(300);
BENCHMARK(BM_McpCallFloor)->Iterations(300);

}  // namespace
}  // namespace agentrt::proxy

BENCHMARK_MAIN();
