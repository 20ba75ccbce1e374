// sim/fake_provider.h
//
// The fake endpoint of a scenario's model provider (scenario.proto, Provider): the host
// `provider.sim` on the simulated network (sim_network.h), which answers each request the real
// adapter sends with the scenario's next exchange, in exact order, as recorded provider traffic
// is played back. It notes the first difference between what the adapter sent and what the
// scenario expects (a substring the request must hold; a request past the last exchange), and
// the play fails naming it. Its answers count among the answers a swarm perturbs (Perturber):
// one can come later, after a clock jump, in two pieces, or broken off (sim_network.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/world/network.h"
#include "sim/fake_server.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

inline constexpr std::string_view kProviderHost = "provider.sim";

// The model a scenario's provider of `kind` plays when it names none: one the adapter can price
// (Anthropic's default name must be in its price table).
std::string_view DefaultProviderModel(std::string_view kind);

class FakeProvider {
 public:
  // `config` and `perturber` (which may be null: nothing is perturbed) must outlive this.
  FakeProvider(const v1::Provider& config, Perturber* perturber)
      : config_(config), perturber_(perturber) {}

  // The base URL the adapter of `config.kind` is given: https for the ones that send a key
  // (plain http carries a key only to loopback), with OpenAI's "/v1".
  std::string BaseUrl() const;

  // What answers `request`: the scenario's next exchange and what a swarm does to it (a default
  // perturbation when none applies), or nullopt when the scenario has none left; either way a
  // difference is noted when there is one and none was before.
  struct Answer {
    const v1::ProviderExchange* exchange;
    v1::Perturbation perturbation;
  };
  std::optional<Answer> Next(const world::HttpRequest& request);

  // The first difference ("" when none): "provider request <n>: <what>".
  const std::string& difference() const { return difference_; }

 private:
  void Differ(std::string what);

  const v1::Provider& config_;
  Perturber* perturber_;
  int requests_ = 0;
  std::string difference_;
};

}  // namespace agentrt::sim
