// Coverage-guided simulation: the input's bytes choose one of the fixture scenarios
// (fixtures/scenarios) and perturb its world — answers delayed, preceded by garbage, split in
// two, dropped, reordered with the lines before them, stderr noise, the virtual clock jumping,
// the runtime crashing after a call —
// and the scenario is played by the real MCP client, runtime and store on the simulated world.
// Whatever the perturbations, no invariant may break (sim/verdict.h: no effect without
// authority or twice, every tool accounted for, the chain verifies, the run ended or paused
// within its limits, nothing server-chosen printed unescaped); a broken one is a crash.
//
// Input: byte 0 picks the scenario; then 4 bytes per perturbation: the answer it applies to
// (2 bytes), its kind, and its size; a leading 0xff byte of a group crashes the runtime after
// the call its next byte names instead.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/world/real_filesystem.h"
#include "sim/judge.h"
#include "sim/scenario_file.h"

namespace {

std::vector<agentrt::sim::v1::Scenario>* LoadFixtures() {
  auto* scenarios = new std::vector<agentrt::sim::v1::Scenario>();
  std::string folder = std::string(AGENTRT_SOURCE_DIR) + "/fixtures/scenarios";
  agentrt::world::RealFilesystem disk;
  absl::StatusOr<std::vector<std::string>> files = agentrt::sim::ScenarioFiles(disk, {folder});
  if (!files.ok()) {
    std::fprintf(stderr, "scenario_fuzzer: %s\n", std::string(files.status().message()).c_str());
    std::abort();
  }
  for (const std::string& file : *files) {
    absl::StatusOr<agentrt::sim::v1::Scenario> scenario = agentrt::sim::ReadScenario(disk, file);
    if (!scenario.ok()) {
      std::fprintf(stderr, "scenario_fuzzer: %s\n",
                   std::string(scenario.status().message()).c_str());
      std::abort();
    }
    // Thousands of tools make a play slow; the fuzzer's time is better spent elsewhere.
    bool large = false;
    for (const auto& server : scenario->servers()) {
      for (const auto& tool : server.tools()) large = large || tool.repeat() > 50;
    }
    if (!large) scenarios->push_back(*std::move(scenario));
  }
  return scenarios;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<agentrt::sim::v1::Scenario>* fixtures = LoadFixtures();
  static agentrt::sim::PlayDatabase* database = agentrt::sim::PlayDatabase::Create()->release();
  if (size == 0 || fixtures->empty()) return 0;
  agentrt::sim::v1::Scenario scenario = (*fixtures)[data[0] % fixtures->size()];
  for (std::size_t i = 1; i + 4 <= size && scenario.perturbations_size() < 8; i += 4) {
    if (data[i] == 0xff) {
      if (scenario.crash().after_call() == 0) {
        scenario.mutable_crash()->set_after_call(1 + data[i + 1] % 8);
      }
      continue;
    }
    auto* p = scenario.add_perturbations();
    p->set_at_answer(1 + (static_cast<std::uint32_t>(data[i]) << 8 | data[i + 1]) % 64);
    // The size byte scales to delays up to a minute and jumps up to ten minutes.
    agentrt::sim::SetPerturbation(data[i + 2], std::uint64_t{data[i + 3]} * 250, p);
  }
  agentrt::sim::Verdict verdict =
      agentrt::sim::Judge(scenario, agentrt::sim::PerturbedOnce(database));
  // Outcomes may change under perturbation; an invariant, and the simulator itself, may not.
  if (!verdict.passed && (verdict.difference.rfind("invariant broken", 0) == 0 ||
                          verdict.difference.rfind("the simulator failed", 0) == 0)) {
    std::fprintf(stderr, "scenario %s: %s\n", scenario.name().c_str(), verdict.difference.c_str());
    std::abort();
  }
  return 0;
}
