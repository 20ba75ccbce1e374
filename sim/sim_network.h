// sim/sim_network.h
//
// The simulator's Network: its hosts are fake MCP servers (fake_server.h) behind a simulated
// streamable HTTP endpoint, `http://<server name>.sim/mcp`, on the virtual clock, on the
// caller's thread. A POST carries one JSON-RPC message; the answer comes as JSON or as
// server-sent events (the scenario's `http.sse`), at the virtual time the reply chose: a Send or
// Read whose deadline comes first moves the clock to the deadline and fails as a real one would.
// What a scenario's `http` asks for is played here: every request redirected, a session lost
// (404) after some requests, a body declared past the client's cap, an event stream that ends
// before the answer. Like every Network it never follows a redirect and never cuts a body.
//
// A scenario's model provider answers at `provider.sim` (fake_provider.h): each request gets the
// next exchange, its head and body at the virtual time its delay says (a deadline that comes
// first moves the clock to it and fails as a real timeout would), its body cut short when the
// exchange says so.
//
// A server that requires authorization (scenario.proto's HttpAuth) is reached at
// https://<name>.sim/mcp; its metadata and token endpoint answer at the same host
// (fake_auth_server.h), and a request to /mcp without a token it issued is answered 401.
//
// Kill() is the runtime's death: every later Send fails and nothing more reaches a server.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/world/clock.h"
#include "runtime/world/network.h"
#include "sim/fake_auth_server.h"
#include "sim/fake_provider.h"
#include "sim/fake_server.h"

namespace agentrt::sim {

// The endpoint a simulated HTTP server named `name` is reached at.
std::string SimEndpoint(std::string_view name);

class SimNetwork final : public world::Network {
 public:
  // Not owned: the clock (moved by sends and reads) and the servers, by name.
  // `auth`: the authorization side of the servers that require it, by server name.
  SimNetwork(world::ManualClock& clock, std::map<std::string, FakeServer*> servers,
             FakeProvider* provider = nullptr, std::map<std::string, FakeAuthServer*> auth = {});

  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override;

  void Kill() { *dead_ = true; }

 private:
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> ServeProvider(
      const world::HttpRequest& request, absl::Time deadline);

  struct Host {
    FakeServer* server = nullptr;
    std::string session;             // the session id it gave; "" before initialize
    int sessions = 0;                // how many it gave
    std::uint32_t requests = 0;      // POSTs with a session since it was given
    bool lost = false;               // it already lost one session
    FakeAuthServer* auth = nullptr;  // when it requires authorization
  };

  world::ManualClock& clock_;
  std::map<std::string, Host> hosts_;  // by host name
  FakeProvider* provider_;             // not owned; may be null
  std::shared_ptr<bool> dead_ = std::make_shared<bool>(false);
};

}  // namespace agentrt::sim
