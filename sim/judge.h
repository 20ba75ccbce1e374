// sim/judge.h
//
// What `agentrt sim run`, `sim swarm` and `sim shrink` decide about a scenario.
//  - Judge, as written (the default): played twice; it passes when the first play is what it
//    expects, breaks no invariant (verdict.h), and the second play ends on the same chain head
//    with the same events (determinism is the product: a scenario that differs between two
//    plays is a failure however right each one looks).
//  - Judge, perturbed: the scenario under a swarm seed's perturbations. Outcomes may change (a
//    delay past a timeout refuses a tool), so only the invariants are checked, and the
//    expectations too when the scenario says they are robust.
//  - Perturb: the perturbations a seed stands for, written into a copy of the scenario, so a
//    failing seed is also a scenario file anyone can play. The seed's whole sequence (the
//    unperturbed play, Perturb, Judge) is swarm.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "runtime/types.h"
#include "sim/play.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

struct Verdict {
  std::string name;
  bool passed = false;
  // The first difference from the expectation, the first broken invariant, or the
  // simulator's own error; "" when it passed.
  std::string difference;
  std::vector<std::string> broken;  // every broken invariant
  std::string chain_head;           // of the first play ("" with no run)
  std::optional<RunStatus> status;  // the run's status, nullopt when the play made no run
  absl::Duration virtual_time;      // how far the first play moved the virtual clock
  std::size_t events = 0;
  std::size_t effects = 0;    // tools/call requests that reached a server
  std::uint32_t answers = 0;  // how many answers the servers sent (what a seed can perturb)
  std::uint32_t answers_before_run = 0;  // of which during pin and load
  int restarts = 0;                      // how many times the runtime was restarted
  int disk_faults = 0;                   // disk faults that fired (Outcome::disk_faults)
  std::string pin_error;                 // the first, "" when none
  std::string load_error;                // the first, "" when none
};

struct JudgeOptions {
  // Where the audit databases go (`<dir>/<name>.db`, `<name>.2.db` for the second play); ""
  // keeps them in memory. Each is created new (PlayOptions::db_path): a file already there, of
  // an earlier run, of another scenario of the same name, or any other, fails the play and is
  // left as it was. They are written through `files`, which must then be set.
  std::string db_dir;
  world::Filesystem* files = nullptr;
  // Optional, not owned, one judge at a time: the database plays empty and reuse (play.h).
  PlayDatabase* reuse = nullptr;
  // False: the scenario as written, its expectations checked before the invariants. True: the
  // scenario under perturbations, the invariants checked first and the expectations only when
  // the scenario says they are robust.
  bool perturbed = false;
  // Play a second time and require the same chain head, events and effects.
  bool determinism = true;
};

// The options of a perturbed play, played once: what a swarm's seed and a shrink's candidate
// are judged with.
inline JudgeOptions PerturbedOnce(PlayDatabase* reuse = nullptr) {
  return JudgeOptions{.reuse = reuse, .perturbed = true, .determinism = false};
}

// StatusText is how a verdict's status is shown and written: the run's status, or "no run".
std::string_view StatusText(const Verdict& verdict);

// Judge plays `scenario` (twice with `options.determinism`) and judges it as `options` says.
// Databases go where `options` says. Never fails: the simulator's own error is a verdict.
Verdict Judge(const v1::Scenario& scenario, const JudgeOptions& options = {});

// The kinds of perturbation a seed (or a fuzzer's byte) chooses among.
inline constexpr std::uint32_t kPerturbationKinds = 7;

// SetPerturbation makes `p` perturbation kind `kind % kPerturbationKinds`: a delay of
// `amount % 60000 + 1` ms, garbage first, stderr noise, a drop, an answer in two pieces, a
// reordering, or a clock jump of `amount % 600 + 1` s.
void SetPerturbation(std::uint32_t kind, std::uint64_t amount, v1::Perturbation* p);

// Perturb returns `scenario` with the perturbations of `seed` added: one to three of delays,
// garbage lines, stderr noise, dropped connections, answers in two pieces, independent
// deliveries reordered and clock jumps, at
// answers drawn from the unperturbed play's (`base`): all of them, or for a scenario whose
// expectations are robust only the run's (pin and load must go as written for the
// expectations to be about the run); and, one seed in four when calls reached a server and the
// scenario has no crash, a crash after one of them. The same inputs always give the same
// scenario, on every machine.
v1::Scenario Perturb(const v1::Scenario& scenario, std::uint64_t seed, const Verdict& base);

}  // namespace agentrt::sim
