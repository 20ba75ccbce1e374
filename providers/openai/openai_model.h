// providers/openai/openai_model.h
//
// Any OpenAI-compatible chat completions endpoint (OpenAI itself, a local server that speaks the
// same API) as a Model (runtime/model.h), over the world's network (http_call.h says how every
// failure is sorted). No streaming, no retries of its own (the model caller retries).
//
// Request: POST <base>/chat/completions, Content-Type: application/json, and Authorization:
// Bearer <key> only when there is a key. The body: model, messages (the system prompt first as a
// "system" message; an assistant turn's tool uses as tool_calls whose arguments are the input
// as a JSON string, "{}" for none; each tool result a "tool" message with its tool_call_id; a
// message's content always written, "" when it has no text), tools as functions, tool_choice
// "auto" and parallel_tool_calls false only when there are tools, temperature 0, and max_tokens
// when the request caps the output.
//
// Reply: usage is read first (prompt_tokens, completion_tokens,
// prompt_tokens_details.cached_tokens; absent is 0), so a reply that is otherwise unusable is
// still charged what it reported; counts that cannot be believed are UnusableUsageError. Then,
// each a ServedError with the usage: a body that does not decode, an "error" object, no choice,
// a tool call whose arguments are not a JSON object (the error quotes at most 512 bytes of them).
// A tool call without an id gets one (SynthesizeToolUseId). finish_reason: tool_calls ->
// tool_use, stop -> end_turn, length -> max_tokens, content_filter -> refusal, otherwise
// tool_use when there are tool calls, end_turn when empty, else passed through; a max_tokens or
// refusal reply drops its tool calls (it is still charged). raw is the whole body.
#pragma once

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
#include "runtime/world/world.h"

namespace agentrt::providers {

inline constexpr std::string_view kOpenAiDefaultBaseUrl = "https://api.openai.com/v1";

struct OpenAiConfig {
  std::string model;     // required
  std::string name;      // the Model's name; "" is "openai:<model>"
  std::string base_url;  // "" is kOpenAiDefaultBaseUrl; a trailing '/' is dropped
  ApiKey api_key;        // may be empty (a local server); over plain http only to loopback
  absl::Duration timeout = kDefaultTimeout;

  // This Abseil (20220623) has neither AbslStringify nor %v: a config prints through
  // absl::StrFormat's %s, streams and gtest, the key always as ApiKey shows it.
  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const OpenAiConfig& c, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat(
        "OpenAiConfig{model: %s, name: %s, base_url: %s, api_key: %s, timeout: %s}", c.model,
        c.name, c.base_url, std::string(c.api_key.Shown()), absl::FormatDuration(c.timeout)));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const OpenAiConfig& c) {
    return out << absl::StrFormat("%s", c);
  }
};

// The Model's name when the config names none: "openai:<model>".
std::string OpenAiName(std::string_view model);

// Where the key is read from when the operator names no source: OPENAI_API_KEY for the default
// endpoint, nowhere for any other (a key meant for OpenAI never goes to a server someone else
// runs).
KeySource OpenAiDefaultKeySource(std::string_view base_url);

class OpenAiModel final : public Model {
 public:
  // Create checks the config: InvalidArgument "openai: model is required", the endpoint's
  // errors (endpoint.h: a key over plain http to a host that is not loopback is refused), and
  // CheckModelWorld's. `world` must outlive the model.
  static absl::StatusOr<std::unique_ptr<OpenAiModel>> Create(OpenAiConfig config,
                                                             const world::World& world);

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const OpenAiModel& m, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat("OpenAiModel{%s}", m.config_));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const OpenAiModel& m) {
    return out << absl::StrFormat("%s", m);
  }

 private:
  OpenAiModel(OpenAiConfig config, BaseUrl base, const world::World& world);

  const OpenAiConfig config_;
  const BaseUrl base_;
  const std::string name_;
  const world::World world_;
};

}  // namespace agentrt::providers
