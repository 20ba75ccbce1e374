// A product embedding agentrt: it registers a tool, runs a scripted agent over an in-memory
// store and verifies the audit chain, and makes the real network (so libcurl is linked through
// the package). Exit 0 and "ok <seq> <hash>" when the run completed with the tool called once,
// the chain intact and the network refusing a request it must not send.
#include <iostream>
#include <memory>

#include "runtime/driver.h"
#include "runtime/records/schema.h"
#include "runtime/scripted_agent.h"
#include "runtime/store/store.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"

namespace {

class Lookup final : public agentrt::Tool {
 public:
  agentrt::ToolSpec Spec() const override {
    return {"lookup",
            "Look a word up.",
            R"({"type":"object","properties":{"word":{"type":"string"}},"required":["word"]})",
            agentrt::SideEffect::kReadOnly,
            absl::Seconds(5),
            false};
  }
  absl::StatusOr<agentrt::ToolResult> Call(const agentrt::ToolCall& call) override {
    ++calls;
    return agentrt::ToolResult{R"({"meaning":"a word"})", "looked up"};
  }
  int calls = 0;
};

}  // namespace

int main() {
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  agentrt::world::SeededEntropy entropy(1);
  absl::StatusOr<std::unique_ptr<agentrt::store::Store>> store =
      agentrt::records::OpenStoreInMemory(clock);
  if (!store.ok()) {
    std::cerr << store.status() << "\n";
    return 1;
  }
  Lookup lookup;
  agentrt::ScriptedAgent agent({agentrt::scripted::Call("lookup", R"({"word":"agent"})"),
                                agentrt::scripted::Complete(R"({"done":true})")});
  std::unique_ptr<agentrt::Policy> policy = agentrt::DefaultPolicy();
  agentrt::DriverOptions options;
  options.agent = &agent;
  options.policy = policy.get();
  options.tools = {&lookup};
  options.scheduler = &clock;
  absl::StatusOr<std::unique_ptr<agentrt::Driver>> driver =
      agentrt::Driver::Create(**store, clock, entropy, options);
  if (!driver.ok()) {
    std::cerr << driver.status() << "\n";
    return 1;
  }
  absl::StatusOr<agentrt::Run> run = (*driver)->Start("look a word up");
  if (!run.ok() || run->status != agentrt::RunStatus::kCompleted || lookup.calls != 1) {
    std::cerr << "the run did not complete as scripted\n";
    return 1;
  }
  absl::StatusOr<agentrt::store::ChainReport> chain = (*store)->VerifyEvents();
  if (!chain.ok() || chain->broken.has_value() || chain->checked < 5) {
    std::cerr << "the chain does not verify\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<agentrt::world::CurlNetwork>> network =
      agentrt::world::CurlNetwork::Create(clock, {.loopback_only = true});
  if (!network.ok() ||
      (*network)->Send({.url = "ftp://example.com/"}, clock.Now()).status().code() !=
          absl::StatusCode::kInvalidArgument) {
    std::cerr << "the network did not refuse an ftp URL\n";
    return 1;
  }
  std::cout << "ok " << chain->to << " " << chain->hash << "\n";
  return 0;
}
