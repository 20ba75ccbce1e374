#include "sim/judge.h"

#include <filesystem>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "sim/scenario_file.h"
#include "sim/verdict.h"

namespace agentrt::sim {
namespace {

Verdict Describe(const v1::Scenario& scenario, const Outcome& outcome) {
  Verdict verdict;
  verdict.name = scenario.name();
  verdict.chain_head = outcome.chain_head;
  if (outcome.run) verdict.status = outcome.run->status;
  verdict.virtual_time = outcome.virtual_time;
  verdict.events = outcome.events.size();
  verdict.effects = outcome.effects.size();
  verdict.answers = outcome.answers;
  verdict.answers_before_run = outcome.answers_before_run;
  verdict.restarts = outcome.restarts;
  verdict.disk_faults = outcome.disk_faults;
  if (!outcome.pin_errors.empty()) verdict.pin_error = outcome.pin_errors[0];
  if (!outcome.load_errors.empty()) verdict.load_error = outcome.load_errors[0];
  verdict.broken = BrokenInvariants(outcome);
  return verdict;
}

Verdict Failed(const v1::Scenario& scenario, const absl::Status& status) {
  Verdict verdict;
  verdict.name = scenario.name();
  verdict.difference = absl::StrCat("the simulator failed: ", status.message());
  return verdict;
}

// The second play must be the first, byte for byte where it matters.
std::string Determinism(const Outcome& first, const Outcome& second) {
  if (first.chain_head != second.chain_head) {
    return absl::StrCat("not deterministic: chain head ", first.chain_head, " then ",
                        second.chain_head);
  }
  if (first.events.size() != second.events.size() ||
      first.effects.size() != second.effects.size()) {
    return absl::StrCat("not deterministic: ", first.events.size(), " events and ",
                        first.effects.size(), " effects, then ", second.events.size(), " and ",
                        second.effects.size());
  }
  return "";
}

// The database file of the `play`-th play of `name` in `dir` ("" keeps it in memory). The name
// was checked when the scenario was read; it is checked again here because it is about to
// become a path, whoever built the scenario. Play creates the file, and only ever a new one.
absl::StatusOr<std::string> DbPath(const std::string& dir, const std::string& name, int play) {
  if (dir.empty()) return std::string();
  if (absl::Status s = CheckScenarioName(name); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the scenario's name cannot name a database file: ", s.message()));
  }
  std::string file = play == 1 ? absl::StrCat(name, ".db") : absl::StrCat(name, ".", play, ".db");
  return (std::filesystem::path(dir) / file).string();
}

// Plays `scenario` with its `play`-th database in `options`.
absl::StatusOr<Outcome> PlayNumbered(const v1::Scenario& scenario, const JudgeOptions& options,
                                     int play) {
  PlayOptions play_options;
  play_options.reuse = options.reuse;
  play_options.files = options.files;
  AGENTRT_ASSIGN_OR_RETURN(play_options.db_path, DbPath(options.db_dir, scenario.name(), play));
  return Play(scenario, play_options);
}

}  // namespace

std::string_view StatusText(const Verdict& verdict) {
  return verdict.status ? ToString(*verdict.status) : "no run";
}

Verdict Judge(const v1::Scenario& scenario, const JudgeOptions& options) {
  absl::StatusOr<Outcome> first = PlayNumbered(scenario, options, 1);
  if (!first.ok()) return Failed(scenario, first.status());
  Verdict verdict = Describe(scenario, *first);
  std::string invariant =
      verdict.broken.empty() ? "" : absl::StrCat("invariant broken: ", verdict.broken[0]);
  std::string expected = !options.perturbed || scenario.expect().robust()
                             ? FirstDifference(scenario.expect(), *first)
                             : "";
  // Under perturbations an invariant comes first: it is what a swarm is looking for.
  const std::string& before = options.perturbed ? invariant : expected;
  const std::string& after = options.perturbed ? expected : invariant;
  verdict.difference = before.empty() ? after : before;
  if (verdict.difference.empty() && options.determinism) {
    absl::StatusOr<Outcome> second = PlayNumbered(scenario, options, 2);
    verdict.difference = second.ok()
                             ? Determinism(*first, *second)
                             : absl::StrCat("the second play failed: ", second.status().message());
  }
  verdict.passed = verdict.difference.empty();
  return verdict;
}

void SetPerturbation(std::uint32_t kind, std::uint64_t amount, v1::Perturbation* p) {
  switch (kind % kPerturbationKinds) {
    case 0:
      p->set_delay(absl::StrCat(amount % 60000 + 1, "ms"));
      break;
    case 1:
      p->set_garbage_before(true);
      break;
    case 2:
      p->set_stderr_noise(true);
      break;
    case 3:
      p->set_drop(true);
      break;
    case 4:
      p->set_partial_write(true);
      break;
    case 5:
      p->set_reorder(true);
      break;
    default:
      p->set_clock_jump(absl::StrCat(amount % 600 + 1, "s"));
      break;
  }
}

v1::Scenario Perturb(const v1::Scenario& scenario, std::uint64_t seed, const Verdict& base) {
  v1::Scenario perturbed = scenario;
  // mt19937_64's sequence is fixed by the standard (the distributions are not, so none is used).
  std::mt19937_64 random(seed);
  auto below = [&](std::uint64_t n) { return n == 0 ? 0 : random() % n; };
  std::uint32_t first = scenario.expect().robust() ? base.answers_before_run : 0;
  std::uint32_t answers = base.answers > first ? base.answers - first : 0;
  std::size_t calls = base.effects;
  if (answers > 0) {
    std::uint64_t count = 1 + below(3);
    for (std::uint64_t i = 0; i < count; ++i) {
      v1::Perturbation* p = perturbed.add_perturbations();
      p->set_at_answer(static_cast<std::uint32_t>(first + 1 + below(answers)));
      SetPerturbation(static_cast<std::uint32_t>(below(kPerturbationKinds)), random(), p);
    }
  }
  if (calls > 0 && scenario.crash().after_call() == 0 && below(4) == 0) {
    perturbed.mutable_crash()->set_after_call(static_cast<std::uint32_t>(1 + below(calls)));
  }
  return perturbed;
}

}  // namespace agentrt::sim
