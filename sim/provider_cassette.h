// sim/provider_cassette.h
//
// A real conversation as a scenario's provider side: `provider { cassette: "FILE" }` names a
// cassette recorded by `agentrt demo live --record` (or any recording of a run whose model was a
// provider adapter), and its provider's HTTP answers become the provider's exchanges, in recorded
// order: each request's status, response headers and body as the provider sent them, and a body
// that broke off as a cut one. A production conversation so becomes a regression scenario the
// simulator plays through the real adapter, which a swarm perturbs like any other.
//
// The provider's requests are told from the run's other HTTP by their path (Anthropic's
// /v1/messages, OpenAI's /chat/completions, Ollama's /api/chat). The file is a name in the
// scenario's own folder, never a path elsewhere: a scenario is untrusted input, and naming a file
// is reading it.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "runtime/world/filesystem.h"
#include "sim/proto/scenario.pb.h"

namespace agentrt::sim {

// LoadProviderCassette fills `provider`'s exchanges from its cassette (which must be set), read
// through `files` from the folder of the scenario at `scenario_path`, and clears `cassette`, so
// the scenario holds its provider's bytes itself. Errors name the scenario, the field and the
// reason: InvalidArgument for a name that is not a plain file name, a scenario that gives
// exchanges too, or a cassette with no request of the provider's kind; the cassette reader's
// errors otherwise.
absl::Status LoadProviderCassette(world::Filesystem& files, const std::string& scenario_path,
                                  v1::Provider& provider);

}  // namespace agentrt::sim
