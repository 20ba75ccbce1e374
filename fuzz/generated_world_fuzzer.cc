// Coverage-guided search over generated worlds (sim/generate.h): the input's bytes are the
// generator's choices (ByteChoices), so the fuzzer searches the same space `agentrt sim swarm
// --generate` samples — servers, hostile behaviours, rules, policy, agent, operator's actions,
// crashes, stale owners, storage faults — and the world is played by the real MCP client,
// runtime and store on the simulated world. A broken invariant (sim/verdict.h) or a simulator
// failure is a crash.
//
// Beyond new code, an input is kept when it reaches something new of what the run did: a pair
// of consecutive event types, a refusal reason of a load report, the reason a run ended, a
// tool failure. Each becomes one of kFeatures distinct code locations (a function template
// instantiated once per slot), so libFuzzer's own coverage counts them as new edges: no
// feature API is needed, and the features show in the fuzzer's coverage figures.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "sim/generate.h"
#include "sim/judge.h"
#include "sim/play.h"
#include "sim/verdict.h"

namespace {

constexpr std::size_t kFeatures = 1024;

// One code location per slot: calling slot i covers an edge no other slot covers.
template <std::size_t I>
__attribute__((noinline)) void Feature() {
  static volatile std::size_t hits = 0;
  hits = hits + I + 1;
}

template <std::size_t... I>
constexpr std::array<void (*)(), sizeof...(I)> MakeFeatures(std::index_sequence<I...>) {
  return {&Feature<I>...};
}

constexpr std::array<void (*)(), kFeatures> kTable =
    MakeFeatures(std::make_index_sequence<kFeatures>());

// FNV-1a: stable across runs and machines, so a corpus means the same features everywhere.
std::uint64_t Hash(std::string_view text, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

void Reached(std::string_view kind, std::string_view what) {
  kTable[Hash(what, Hash(kind)) % kFeatures]();
}

// What the play did, as features.
void Features(const agentrt::sim::Outcome& outcome) {
  std::string previous = "(start)";
  for (const agentrt::store::Event& event : outcome.events) {
    Reached("events", previous + " " + event.type);
    previous = event.type;
  }
  for (const agentrt::mcp::Report& report : outcome.reports) {
    for (const agentrt::mcp::Refused& refused : report.refused) {
      // The reason's first words: a kind of refusal, not the tool it named.
      Reached("refused", refused.reason.substr(0, refused.reason.find(':')).substr(0, 40));
    }
  }
  if (outcome.run) Reached("run", outcome.run->reason);
  for (const std::string& observation : outcome.observations) {
    std::size_t failure = observation.find("\"failure\":\"");
    if (failure != std::string::npos) Reached("failure", observation.substr(failure, 24));
    Reached("observation", observation.substr(0, observation.find(' ')));
  }
  if (outcome.crashed) Reached("fault", "crashed");
  if (outcome.restarts > 1) Reached("fault", "restarted again");
  if (outcome.disk_faults > 0) Reached("fault", "disk");
  if (!outcome.stale_session.empty()) Reached("fault", "stale owner woke");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static agentrt::sim::PlayDatabase* database = agentrt::sim::PlayDatabase::Create()->release();
  agentrt::sim::ByteChoices choices(std::string_view(reinterpret_cast<const char*>(data), size));
  agentrt::sim::v1::Scenario world = agentrt::sim::GenerateWorld(choices, "fuzzed");
  absl::StatusOr<agentrt::sim::Outcome> outcome = agentrt::sim::Play(world, {.reuse = database});
  if (!outcome.ok()) {
    std::fprintf(stderr, "generated_world_fuzzer: the simulator failed: %s\n",
                 std::string(outcome.status().message()).c_str());
    std::abort();
  }
  std::vector<std::string> broken = agentrt::sim::BrokenInvariants(*outcome);
  if (!broken.empty()) {
    std::fprintf(stderr, "generated_world_fuzzer: invariant broken: %s\n", broken[0].c_str());
    std::abort();
  }
  Features(*outcome);
  return 0;
}
