// agentrt-conformance-client: the MCP client library (mcp/) driven by the official conformance
// suite (docs/conformance.md). The suite runs it as `agentrt-conformance-client <url>` with the
// scenario in MCP_CONFORMANCE_SCENARIO; it speaks streamable HTTP to <url> through the real
// network, does what the scenario asks, and exits 0 only when every step succeeded.
//
//   initialize  the handshake, then close
//   tools_call  the handshake, tools/list, tools/call add_numbers {"a": 2, "b": 3}
//   sse-retry   the handshake, tools/list, tools/call test_reconnection (its answer stream is
//               cut; the session resumes it after the server's retry)
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"

namespace {

int Fail(const std::string& what, const absl::Status& status) {
  std::cerr << "agentrt-conformance-client: " << what << ": " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: agentrt-conformance-client URL (MCP_CONFORMANCE_SCENARIO names the "
                 "scenario)\n";
    return 2;
  }
  const char* scenario_env = std::getenv("MCP_CONFORMANCE_SCENARIO");
  std::string scenario = scenario_env == nullptr ? "" : scenario_env;
  if (scenario != "initialize" && scenario != "tools_call" && scenario != "sse-retry") {
    std::cerr << "agentrt-conformance-client: unknown scenario \"" << scenario << "\"\n";
    return 2;
  }
  agentrt::world::RealClock clock;
  absl::StatusOr<std::unique_ptr<agentrt::world::CurlNetwork>> network =
      agentrt::world::CurlNetwork::Create(clock);
  if (!network.ok()) return Fail("network", network.status());
  agentrt::mcp::Server server;
  server.name = "conformance";
  server.endpoint = argv[argc - 1];
  absl::Time deadline = clock.Now() + absl::Seconds(20);
  absl::StatusOr<std::unique_ptr<agentrt::mcp::Session>> session =
      agentrt::mcp::Connect(server, {.clock = &clock, .network = network->get()}, deadline);
  if (!session.ok()) return Fail("connect", session.status());
  if (scenario != "initialize") {
    absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", deadline);
    if (!tools.ok()) return Fail("tools/list", tools.status());
    std::string call = scenario == "tools_call"
                           ? R"({"arguments":{"a":2,"b":3},"name":"add_numbers"})"
                           : R"({"arguments":{},"name":"test_reconnection"})";
    absl::StatusOr<std::string> result = (*session)->Request("tools/call", call, deadline);
    if (!result.ok()) return Fail("tools/call", result.status());
    std::cout << *result << "\n";
    if (absl::StrContains(*result, "\"isError\":true")) {
      std::cerr << "agentrt-conformance-client: the tool call failed\n";
      return 1;
    }
  }
  (*session)->Close();
  return 0;
}
