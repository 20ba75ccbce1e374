// providers/ollama/ollama_model.h
//
// Ollama's native chat API as a Model (runtime/model.h), over the world's network (http_call.h
// says how every failure is sorted). No key, no streaming, no retries of its own.
//
// Host: the config's, else OLLAMA_HOST from the world's environment, else 127.0.0.1:11434;
// "http://" is put in front of one without "://"; it must be an http(s) URL with a host and no
// user information, path other than "/", query or fragment; a trailing '/' is dropped.
//
// Request: POST <host>/api/chat, Content-Type: application/json. The body: model, messages (the
// system prompt first as a "system" message; an assistant turn as one message with its text and
// its tool uses as tool_calls whose arguments are the input as a JSON value, {} for none; each
// tool result a "tool" message with tool_name when the block names its tool), tools as
// functions (omitted when none), stream false, think, and options {num_ctx, num_predict (only
// when the request caps the output), temperature 0}.
//
// Reply: usage first (prompt_eval_count -> input, eval_count -> output; a body that is not a
// JSON object has none), counts that cannot be believed are UnusableUsageError; then, each a
// ServedError with the usage: a body that does not decode, a non-empty "error" (quoted to 512
// bytes), a tool call whose arguments are not a JSON object. Empty or null arguments are {}; a
// tool call without an id gets one (SynthesizeToolUseId). done_reason "length" -> max_tokens
// (tool calls dropped, usage kept); otherwise tool_use when there are tool calls; "stop" or ""
// -> end_turn; anything else passed through. raw is the whole body.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "providers/model_world.h"
#include "runtime/model.h"
#include "runtime/world/environment.h"
#include "runtime/world/world.h"

namespace agentrt::providers {

inline constexpr std::string_view kOllamaDefaultHost = "127.0.0.1:11434";
inline constexpr std::int64_t kOllamaDefaultNumCtx = 32768;

struct OllamaConfig {
  std::string model;  // required
  std::string name;   // the Model's name; "" is "ollama:<model>"
  std::string host;   // "" is OLLAMA_HOST, else kOllamaDefaultHost
  bool think = false;
  std::int64_t num_ctx = 0;  // <= 0 is kOllamaDefaultNumCtx
  absl::Duration timeout = kDefaultTimeout;

  // This Abseil (20220623) has neither AbslStringify nor %v: a config prints through
  // absl::StrFormat's %s, streams and gtest.
  friend absl::FormatConvertResult<absl::FormatConversionCharSet::kString> AbslFormatConvert(
      const OllamaConfig& c, const absl::FormatConversionSpec&, absl::FormatSink* sink) {
    sink->Append(absl::StrFormat(
        "OllamaConfig{model: %s, name: %s, host: %s, think: %s, num_ctx: %d, timeout: %s}", c.model,
        c.name, c.host, c.think ? "true" : "false", c.num_ctx, absl::FormatDuration(c.timeout)));
    return {true};
  }
  friend std::ostream& operator<<(std::ostream& out, const OllamaConfig& c) {
    return out << absl::StrFormat("%s", c);
  }
};

// The Model's name when the config names none: "ollama:<model>".
std::string OllamaName(std::string_view model);

// OllamaHost resolves the host as the header comment says (`environment` may be null: no
// OLLAMA_HOST). InvalidArgument: "ollama: host \"<h>\": the scheme must be http or https" or
// "ollama: host \"<h>\" is not a server address".
absl::StatusOr<std::string> OllamaHost(std::string_view configured,
                                       world::Environment* environment);

class OllamaModel final : public Model {
 public:
  // Create checks the config: InvalidArgument "ollama: model is required", OllamaHost's errors,
  // CheckModelWorld's. `world` must outlive the model.
  static absl::StatusOr<std::unique_ptr<OllamaModel>> Create(OllamaConfig config,
                                                             const world::World& world);

  std::string Name() const override { return name_; }
  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

 private:
  OllamaModel(OllamaConfig config, std::string host, const world::World& world);

  const OllamaConfig config_;
  const std::string host_;
  const std::string name_;
  const world::World world_;
};

}  // namespace agentrt::providers
