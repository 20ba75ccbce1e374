// providers/create_model.h
//
// One of the three adapters chosen by name, as a command line names it: "anthropic:<model>",
// "openai:<model>" or "ollama:<model>" (the model id may itself hold ':', as Ollama's tags do).
// For composition roots (`agentrt demo live`, a product's main) that let an operator pick the
// provider; code that knows its provider builds the adapter's config itself.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "providers/api_key.h"
#include "runtime/model.h"
#include "runtime/prices.h"
#include "runtime/world/world.h"

namespace agentrt::providers {

struct ModelChoice {
  std::string provider;  // "anthropic", "openai" or "ollama"
  std::string model;     // the provider's model id
  std::string base_url;  // "" is the provider's default (Ollama: its host rules)
  ApiKey api_key;
};

// ParseModelChoice splits "<provider>:<model>". InvalidArgument naming the reference when the
// provider is not one of the three or the model is empty.
absl::StatusOr<ModelChoice> ParseModelChoice(std::string_view reference);

// DefaultKeySource is where the key is read from when the operator names no source:
// ANTHROPIC_API_KEY for Anthropic, OPENAI_API_KEY for OpenAI's own endpoint only, nothing for
// Ollama or any other OpenAI-compatible server.
KeySource DefaultKeySource(const ModelChoice& choice);

// CreateModel builds the adapter `choice` names, with the adapter's own checks (Create's errors).
absl::StatusOr<std::unique_ptr<Model>> CreateModel(const ModelChoice& choice,
                                                   const world::World& world);

// PricesFor is the price table a run with `model` needs: Anthropic's list prices for an
// Anthropic model, the model free for the others (they run locally or on the operator's own
// server; a paid OpenAI model is the operator's to price).
PriceTable PricesFor(const ModelChoice& choice, const Model& model);

}  // namespace agentrt::providers
