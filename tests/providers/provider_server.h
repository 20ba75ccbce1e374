// A loopback HTTP peer standing in for a model provider in the adapters' tests: it answers each
// request it gets with the next canned answer, exactly as written (status line, headers, body),
// and keeps every request so a test can check the exact JSON the adapter sent. An answer may cut
// the connection after its head, or say nothing at all. Built on tests/runtime/world/raw_server.h
// and reached through the real network (CurlNetwork), so the adapters' bytes cross a socket.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "runtime/model.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "runtime/world/environment.h"
#include "runtime/world/world.h"
#include "tests/runtime/world/raw_server.h"

namespace agentrt::test_support {

// One request as the peer received it.
struct ReceivedRequest {
  std::string method;
  std::string path;  // with the query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Header: the first value of `name` (case-insensitive), "" when absent.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
};

// One canned answer.
struct CannedAnswer {
  // The bytes written as they are; Reply() builds them for the common case.
  std::string bytes;
  // Close the connection after writing them (a body cut short when `bytes` declares more).
  bool cut = true;
};

// Reply: "HTTP/1.1 <status> <reason>", Content-Type, Content-Length, the extra headers, then
// `body`.
CannedAnswer Reply(int status, std::string_view body,
                   std::vector<std::pair<std::string, std::string>> headers = {},
                   std::string_view content_type = "application/json");
// CutAfterHead: a 200 whose head declares `declared` body bytes, of which only `sent` come.
CannedAnswer CutAfterHead(std::string_view sent, std::size_t declared);

class ProviderServer {
 public:
  explicit ProviderServer(std::vector<CannedAnswer> answers);
  ~ProviderServer();

  // The base URL: http://127.0.0.1:<port> (no trailing '/').
  std::string Url() const;
  // The requests received so far, in order.
  std::vector<ReceivedRequest> Requests() const;
  // How many connections were made.
  int connections() const { return server_->connections(); }

 private:
  void Serve(world::RawConnection& connection);

  mutable std::mutex mu_;
  std::deque<CannedAnswer> answers_;
  std::vector<ReceivedRequest> requests_;
  std::unique_ptr<world::RawServer> server_;
};

// A world for an adapter under test: the real network (loopback-only by default) on the real
// clock, seeded entropy, and a fixed environment.
class ProviderWorld {
 public:
  explicit ProviderWorld(std::map<std::string, std::string, std::less<>> environment = {},
                         world::CurlNetworkOptions options = {.loopback_only = true,
                                                              .proxy_from_environment = false});
  const world::World& world() const { return world_; }
  world::RealClock& clock() { return clock_; }

 private:
  world::RealClock clock_;
  world::SeededEntropy entropy_{7};
  world::FixedEnvironment environment_;
  std::unique_ptr<world::CurlNetwork> network_;
  world::World world_;
};

// A network that answers nothing and notes the deadline each Send was given: how a test sees
// which deadline an adapter chose, on a manual clock, without waiting for it.
class DeadlineNetwork final : public world::Network {
 public:
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time deadline) override {
    deadlines.push_back(deadline);
    return absl::DeadlineExceededError("no answer by the deadline");
  }
  std::vector<absl::Time> deadlines;
};

// A world on a manual clock at `start` whose network is `network`.
struct ManualWorld {
  explicit ManualWorld(world::Network& network,
                       absl::Time start = absl::FromUnixSeconds(1'800'000'000))
      : clock(start) {
    world.clock = &clock;
    world.entropy = &entropy;
    world.network = &network;
  }
  world::ManualClock clock;
  world::SeededEntropy entropy{1};
  world::World world;
};

// What one Generate returned, and what the peer received meanwhile.
struct Exchange {
  absl::StatusOr<ModelResponse> result;
  std::vector<ReceivedRequest> requests;
};

// The one-message request ("Hello.") most adapter tests send.
ModelRequest HelloRequest();

// A deadline on the real clock that a test's call does not reach.
inline absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

// The adapter `created` holds, or null after failing the test with the error.
template <typename Model>
std::unique_ptr<Model> Created(absl::StatusOr<std::unique_ptr<Model>> created) {
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? *std::move(created) : nullptr;
}

}  // namespace agentrt::test_support
