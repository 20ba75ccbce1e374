// providers/anthropic/anthropic_model.h
//
// Anthropic's Messages API as a Model (runtime/model.h), spoken over the world's network
// directly (http_call.h says how every failure is sorted): no SDK, no streaming, no retries of
// its own (the model caller retries).
//
// Request: POST <base>/v1/messages with x-api-key (never an Authorization header),
// anthropic-version 2023-06-01 and Content-Type application/json. The body: model, max_tokens
// (the request's cap, else the config's), system as one text block, output_config {effort} when
// set, tools (each {name, description, input_schema}, with "type":"object" and "properties":{}
// when the schema lacks them; under `strict` the schema cut to strict_subset.h's subset and
// "strict": true, or the call refused before anything is sent), tool_choice {type auto,
// disable_parallel_tool_use true} when there are tools, and messages:
//   - an assistant message whose only block is of type `raw_assistant_block` is sent as the
//     provider's own turn: the block's text is the whole response that turn came from, and its
//     content blocks (signed thinking blocks included) are sent back as they were;
//   - otherwise: text blocks (blank ones skipped), tool_use {id, name, input} with the input
//     passed through to the digit ("{}" for none; it must be JSON), tool_result {tool_use_id,
//     content, is_error}; any other block type is refused; a message left with no block gets one
//     text block "(no output)". Every role but "assistant" is sent as "user".
//
// Reply: usage first (usage.input_tokens, output_tokens, cache_read_input_tokens,
// cache_creation_input_tokens, cache_creation.ephemeral_1h_input_tokens), folded into the
// runtime's Usage as the provider bills it: input = input + cache reads + ceil(1.25 x the
// five-minute cache writes) + 2 x the one-hour cache writes, cached = cache reads, output =
// output; counts that cannot be believed, or a fold that overflows, are UnusableUsageError. A
// body that does not decode is a ServedError with that usage. Text is the non-empty text blocks
// joined by "\n"; each tool_use block is a ToolUse (input "{}" when absent; an input that is not
// a JSON object is a ServedError; an id synthesized when missing); stop_reason is passed through,
// and a max_tokens or refusal reply drops its tool uses (it is still charged). raw is the whole
// body.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "providers/api_key.h"
#include "providers/endpoint.h"
#include "providers/model_world.h"
#include "runtime/model.h"
#include "runtime/prices.h"
#include "runtime/world/world.h"

namespace agentrt::providers {

inline constexpr std::string_view kAnthropicDefaultBaseUrl = "https://api.anthropic.com";
inline constexpr std::string_view kAnthropicApiVersion = "2023-06-01";
inline constexpr std::string_view kAnthropicRawAssistantBlock = "anthropic.raw_assistant";
inline constexpr std::int64_t kAnthropicDefaultMaxTokens = 4096;
// The largest output cap a request that is not streamed may ask for: at the provider's rule of
// thumb of 128,000 tokens an hour, a larger cap could outlast a ten-minute request.
inline constexpr std::int64_t kAnthropicMaxNonStreamingTokens = 21333;

struct AnthropicConfig {
  std::string model;            // required
  std::string name;             // the Model's name; "" is "anthropic:<model>", which must be priced
  std::string base_url;         // "" is kAnthropicDefaultBaseUrl; plain http only to loopback
  ApiKey api_key;               // required
  std::string effort;           // output_config.effort when set ("low", "medium", "high")
  std::int64_t max_tokens = 0;  // <= 0 is kAnthropicDefaultMaxTokens
  bool strict = false;          // strict tool use (strict_subset.h)
  std::string raw_assistant_block;  // "" is kAnthropicRawAssistantBlock
  absl::Duration timeout = kDefaultTimeout;

  // This Abseil (20220623) has neither AbslStringify nor %v: a config prints through
  // absl::StrFormat's %s, streams and gtest, the key always as ApiKey shows it.
  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const AnthropicConfig& c, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat(
        "AnthropicConfig{model: %s, name: %s, base_url: %s, api_key: %s, effort: %s, "
        "max_tokens: %d, strict: %s, raw_assistant_block: %s, timeout: %s}",
        c.model, c.name, c.base_url, std::string(c.api_key.Shown()), c.effort, c.max_tokens,
        c.strict ? "true" : "false", c.raw_assistant_block, absl::FormatDuration(c.timeout)));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const AnthropicConfig& c) {
    return out << absl::StrFormat("%s", c);
  }
};

// The Model's name when the config names none: "anthropic:<model>".
std::string AnthropicName(std::string_view model);

// Anthropic's list prices, keyed "anthropic:<model>", in micros per million tokens (read
// 2026-09-29). Cache writes have no column: the reply's usage folds them into input.
PriceTable AnthropicPrices();

// The key's source when the operator names none.
inline constexpr std::string_view kAnthropicKeyVariable = "ANTHROPIC_API_KEY";

class AnthropicModel final : public Model {
 public:
  // Create checks the config, in order: InvalidArgument "anthropic: model is required"; with no
  // name, NotFound "anthropic: anthropic:<model>: no price for this model; set the config's name
  // to price it yourself"; InvalidArgument for a max_tokens over kAnthropicMaxNonStreamingTokens;
  // InvalidArgument "anthropic: no API key"; the endpoint's errors (endpoint.h);
  // CheckModelWorld's. `world` must outlive the model.
  static absl::StatusOr<std::unique_ptr<AnthropicModel>> Create(AnthropicConfig config,
                                                                const world::World& world);

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const AnthropicModel& m, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat("AnthropicModel{%s}", m.config_));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const AnthropicModel& m) {
    return out << absl::StrFormat("%s", m);
  }

 private:
  AnthropicModel(AnthropicConfig config, BaseUrl base, const world::World& world);

  // The request body, or the refusal that stops it before it is sent.
  absl::StatusOr<std::string> RequestJson(const ModelRequest& request) const;
  absl::StatusOr<ModelResponse> ParseReply(std::string body) const;

  const AnthropicConfig config_;
  const BaseUrl base_;
  const std::string name_;
  const world::World world_;
};

}  // namespace agentrt::providers
