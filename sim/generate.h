// sim/generate.h
//
// Generated worlds (`agentrt sim swarm --generate`, `sim run --generate`, `sim shrink
// --generate`; docs/simulator.md): a whole scenario built from a seed, where a hand-written one
// is a story a person wrote. The seed chooses everything a reviewer would otherwise write:
//  - the servers: how many (1 to 3), over which transport (stdio, HTTP answering JSON or
//    server-sent events, some behind authorization), and their tools, drawn from a corpus of
//    real shapes (the pinned filesystem server's listing among them) with the operator's rules
//    for each (a class, a timeout, a denied or fixed parameter, sometimes none at all);
//  - the hostile behaviours each server shows and when: rug pulls of a description or a
//    schema, dropped, renamed and added tools, hostile names and descriptions, hints that
//    contradict the operator, paging that loops or runs on, hangs, crashes, exits, wrong ids,
//    server requests and garbage before answers, lies and oversized results, lost sessions,
//    handshakes that hang or speak another version;
//  - the operator's policy, and the agent: a script of calls (valid arguments, arguments the
//    schema refuses, denied parameters set, tools that are not there), or a model in the loop
//    whose replies include malformed and adversarial tool uses;
//  - the operator's actions: approve, reject, cancel, approve late (past the approval's TTL),
//    approve twice;
//  - the faults: a crash after a call or at a commit, a stale owner, storage faults (a failed
//    write or sync, a full disk, a power cut), and perturbed answers.
// A generated world has no expectations: it is judged by the invariants alone (verdict.h).
//
// Deterministic: the same seed gives the same scenario on every machine (the choices come from
// mt19937_64, whose sequence the standard fixes, and no distribution of the library is used).
// A fuzzer drives the same generator with its own bytes (ByteChoices), so coverage guidance
// searches the same space the seeds sample.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// Where a generated world's choices come from.
class Choices {
 public:
  virtual ~Choices() = default;
  virtual std::uint64_t Next() = 0;
  // A number in [0, n); 0 when n is 0.
  std::uint64_t Below(std::uint64_t n) { return n == 0 ? 0 : Next() % n; }
  // True `percent` times in a hundred.
  bool Percent(std::uint64_t percent) { return Below(100) < percent; }
};

// The choices of a seed.
class SeededChoices final : public Choices {
 public:
  explicit SeededChoices(std::uint64_t seed) : random_(seed) {}
  std::uint64_t Next() override { return random_(); }

 private:
  std::mt19937_64 random_;
};

// The choices in a fuzzer's bytes, two at a time; zeros once they run out (the simplest world).
class ByteChoices final : public Choices {
 public:
  explicit ByteChoices(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t Next() override;

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// GenerateWorld builds a world from `choices`, named `name` (one harmless path component).
v1::Scenario GenerateWorld(Choices& choices, const std::string& name);

// GeneratedName is the name of the world of `seed`: "generated-<seed>".
std::string GeneratedName(std::int64_t seed);

// GenerateWorld of a seed: named GeneratedName(seed), with generated_from_seed set.
v1::Scenario GenerateWorld(std::int64_t seed);

}  // namespace agentrt::sim
