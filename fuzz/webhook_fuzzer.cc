// The approval webhook's request handling, attacked as a network peer would: any method, path,
// query, headers and body, either unsigned (the signature check must refuse it without
// crashing) or correctly signed (so routing and the decision body parser are reached). Every
// answer must be a well-formed status with a JSON or text body; nothing may crash.
//
// Input: byte 0 chooses the method and whether to sign; then lines: path, header values for the
// three signature headers (unsigned inputs only), and the rest is the body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "runtime/operator/approver/local.h"
#include "runtime/operator/approver/webhook/handler.h"
#include "runtime/operator/approver/webhook/signature.h"
#include "runtime/records/schema.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"

namespace {

using agentrt::approver::webhook::Handler;

constexpr std::string_view kSecret = "fuzzing-secret-that-is-long-enough-000000";

struct World {
  World() : clock(absl::FromUnixSeconds(1'800'000'000)) {
    store = *agentrt::records::OpenStoreInMemory(clock);
    approver = std::make_unique<agentrt::approver::Local>(*store, clock);
    agentrt::approver::webhook::Config config;
    config.approver = approver.get();
    config.secret = std::string(kSecret);
    config.clock = &clock;
    config.rate = 1e9;  // the limiters are not what is fuzzed here
    config.burst = 1'000'000;
    config.failure_rate = 1e9;
    config.failure_burst = 1'000'000;
    handler = *Handler::Create(config);
  }
  agentrt::world::ManualClock clock;
  std::unique_ptr<agentrt::store::Store> store;
  std::unique_ptr<agentrt::approver::Local> approver;
  std::unique_ptr<Handler> handler;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World* world = new World();
  if (size == 0) return 0;
  // Move past the skew window each time, so remembered signatures are forgotten.
  world->clock.Advance(absl::Minutes(6));
  std::uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<absl::string_view> lines =
      absl::StrSplit(absl::string_view(rest.data(), rest.size()), absl::MaxSplits('\n', 4));
  static constexpr const char* kMethods[] = {"GET", "POST", "PUT", "DELETE"};
  agentrt::world::ServerRequest request;
  request.method = kMethods[mode & 3];
  request.path = lines.empty() ? std::string("/") : std::string(lines[0]);
  request.remote = "127.0.0.1:1";
  bool sign = (mode & 4) != 0;
  if (sign) {
    request.body = std::string(lines.size() > 1 ? rest.substr(lines[0].size() + 1) : "");
    std::int64_t now = absl::ToUnixSeconds(world->clock.Now());
    request.headers = {{"X-Approval-Timestamp", std::to_string(now)},
                       {"X-Approval-Nonce", "fuzz"},
                       {"X-Approval-Signature",
                        agentrt::approver::webhook::Sign(kSecret, now, "fuzz", request.method,
                                                         request.path, request.body)}};
  } else {
    static constexpr const char* kHeaders[] = {"X-Approval-Timestamp", "X-Approval-Nonce",
                                               "X-Approval-Signature"};
    for (std::size_t i = 1; i < lines.size() && i <= 3; ++i) {
      request.headers.emplace_back(kHeaders[i - 1], std::string(lines[i]));
    }
    if (lines.size() > 4) request.body = std::string(lines[4]);
  }
  if ((mode & 8) != 0) request.query.emplace_back("format", "text");
  if (request.body.size() > world->handler->max_body()) {
    agentrt::world::ServerResponse refused = world->handler->Refused(request, 413);
    if (refused.status != 413) std::abort();
    return 0;
  }
  agentrt::world::ServerResponse response = world->handler->Handle(request);
  if (response.status < 200 || response.status > 599) std::abort();
  if (!sign && response.status < 400) std::abort();  // an unsigned request never succeeds
  return 0;
}
