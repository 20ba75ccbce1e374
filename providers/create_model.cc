#include "providers/create_model.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "providers/anthropic/anthropic_model.h"
#include "providers/ollama/ollama_model.h"
#include "providers/openai/openai_model.h"
#include "runtime/json/sanitize.h"

namespace agentrt::providers {

absl::StatusOr<ModelChoice> ParseModelChoice(std::string_view reference) {
  std::size_t colon = reference.find(':');
  ModelChoice choice;
  if (colon != std::string_view::npos) {
    choice.provider = std::string(reference.substr(0, colon));
    choice.model = std::string(reference.substr(colon + 1));
  }
  if ((choice.provider != "anthropic" && choice.provider != "openai" &&
       choice.provider != "ollama") ||
      choice.model.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model ", json::Quoted(reference, 200),
                     " is not <provider>:<model> with provider anthropic, openai or ollama"));
  }
  return choice;
}

KeySource DefaultKeySource(const ModelChoice& choice) {
  if (choice.provider == "anthropic") return KeySource{.env = std::string(kAnthropicKeyVariable)};
  if (choice.provider == "openai") return OpenAiDefaultKeySource(choice.base_url);
  return KeySource{};
}

absl::StatusOr<std::unique_ptr<Model>> CreateModel(const ModelChoice& choice,
                                                   const world::World& world) {
  if (choice.provider == "anthropic") {
    return AnthropicModel::Create(
        {.model = choice.model, .base_url = choice.base_url, .api_key = choice.api_key}, world);
  }
  if (choice.provider == "openai") {
    return OpenAiModel::Create(
        {.model = choice.model, .base_url = choice.base_url, .api_key = choice.api_key}, world);
  }
  if (choice.provider == "ollama") {
    return OllamaModel::Create({.model = choice.model, .host = choice.base_url}, world);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown provider ", json::Quoted(choice.provider, 200)));
}

PriceTable PricesFor(const ModelChoice& choice, const Model& model) {
  if (choice.provider == "anthropic") return AnthropicPrices();
  return Free({model.Name()});
}

}  // namespace agentrt::providers
