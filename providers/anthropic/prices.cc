#include "providers/anthropic/anthropic_model.h"

namespace agentrt::providers {

PriceTable AnthropicPrices() {
  // {input, output, cached input} per million tokens, in micros.
  return {
      {"anthropic:claude-fable-5-1", {10'000'000, 50'000'000, 250'000}},
      {"anthropic:claude-mythos-5-1", {10'000'000, 50'000'000, 250'000}},
      {"anthropic:claude-fable-5", {10'000'000, 50'000'000, 1'000'000}},
      {"anthropic:claude-mythos-5", {10'000'000, 50'000'000, 1'000'000}},
      {"anthropic:claude-opus-5-5", {4'000'000, 20'000'000, 200'000}},
      {"anthropic:claude-opus-5", {5'000'000, 25'000'000, 500'000}},
      {"anthropic:claude-opus-4-8", {5'000'000, 25'000'000, 500'000}},
      {"anthropic:claude-opus-4-7", {5'000'000, 25'000'000, 500'000}},
      {"anthropic:claude-opus-4-6", {5'000'000, 25'000'000, 500'000}},
      {"anthropic:claude-sonnet-5", {2'000'000, 10'000'000, 200'000}},
      {"anthropic:claude-sonnet-4-6", {3'000'000, 15'000'000, 300'000}},
      {"anthropic:claude-haiku-4-5", {1'000'000, 5'000'000, 100'000}},
  };
}

}  // namespace agentrt::providers
