// What a hostile or broken model provider may answer, through the three adapters' public Generate
// (providers/anthropic, providers/openai, providers/ollama): each is built on a world of a manual
// clock, seeded entropy and an in-memory network that answers every request with the input. The
// first byte picks the status (one of 200, 200, 200, 429, 500, 529, 307, 400); the second the
// adapter (byte % 3) and how many of the following bytes are the Retry-After and Location values
// (byte / 3 % 8, so the bytes 0, 1 and 2 give none); the rest is the body, read in one piece. What
// must hold:
//  - nothing crashes;
//  - a reply accepted has counts >= 0 and cached input <= input; every tool use has an id and
//    arguments that are a JSON object (strict intake); a max_tokens or refusal reply has no tool
//    use;
//  - a reply refused carries no negative usage (ClassifyModelError) and its message is one
//    printable line (no byte below 0x20, nothing fuzz/printable.h refuses) whatever the server
//    sent.
// Seeds (`corpus/provider_reply_fuzzer/`): an Anthropic message with a tool use and cache usage,
// an OpenAI chat completion with a tool call, an Ollama /api/chat reply with a tool call, each
// API's error body, a 429 with a Retry-After, an HTML page from a proxy, a redirect.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "fuzz/printable.h"
#include "providers/anthropic/anthropic_model.h"
#include "providers/api_key.h"
#include "providers/ollama/ollama_model.h"
#include "providers/openai/openai_model.h"
#include "runtime/json/intake.h"
#include "runtime/model.h"
#include "runtime/types.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "runtime/world/network.h"
#include "runtime/world/world.h"

namespace {

namespace providers = agentrt::providers;
using agentrt::Model;
using agentrt::ModelErrorInfo;
using agentrt::ModelRequest;
using agentrt::ModelResponse;
using agentrt::ToolUse;
using agentrt::Usage;
using agentrt::world::HttpFields;
using agentrt::world::HttpRequest;
using agentrt::world::HttpResponse;

void Check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "provider_reply_fuzzer: %s\n", what);
    std::abort();
  }
}

// The body, then its end; a Read past max_body_bytes is refused as the Network contract says.
class CannedResponse final : public HttpResponse {
 public:
  CannedResponse(int status, HttpFields headers, std::string body, std::size_t max_body_bytes)
      : status_(status),
        headers_(std::move(headers)),
        body_(std::move(body)),
        max_body_bytes_(max_body_bytes) {}

  int status() const override { return status_; }
  const HttpFields& headers() const override { return headers_; }
  absl::StatusOr<std::string> Read(absl::Time) override {
    if (closed_) return absl::CancelledError("response closed");
    if (read_) return std::string();
    read_ = true;
    if (body_.size() > max_body_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("response body exceeds ", max_body_bytes_, " bytes"));
    }
    return std::move(body_);
  }
  void Close() override { closed_ = true; }

 private:
  const int status_;
  const HttpFields headers_;
  std::string body_;
  const std::size_t max_body_bytes_;
  bool read_ = false;
  bool closed_ = false;
};

// Answers every request with the same status, headers and body; a body declared longer than the
// request accepts is refused before it is read.
class CannedNetwork final : public agentrt::world::Network {
 public:
  CannedNetwork(int status, HttpFields headers, std::string body)
      : status_(status), headers_(std::move(headers)), body_(std::move(body)) {}

  absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                     absl::Time) override {
    ++sent_;
    Check(request.method == "POST", "an adapter sent something other than a POST");
    if (body_.size() > request.max_body_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("response body exceeds ", request.max_body_bytes, " bytes"));
    }
    return std::make_unique<CannedResponse>(status_, headers_, body_, request.max_body_bytes);
  }
  int sent() const { return sent_; }

 private:
  const int status_;
  const HttpFields headers_;
  const std::string body_;
  int sent_ = 0;
};

ModelRequest Request() {
  ModelRequest request;
  request.system = "You are a careful assistant.";
  request.messages.push_back(agentrt::Message{
      .role = "user",
      .content = {agentrt::ContentBlock{.type = "text", .text = "What is the weather in Oslo?"}}});
  request.tools.push_back(agentrt::ToolSpec{
      .name = "get_weather",
      .description = "The weather in a city.",
      .input_schema =
          R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"});
  return request;
}

absl::StatusOr<std::unique_ptr<Model>> Adapter(int which, const agentrt::world::World& world) {
  switch (which) {
    case 0: {
      auto model = providers::AnthropicModel::Create(
          providers::AnthropicConfig{.model = "claude-opus-5",
                                     .base_url = "https://provider.fuzz",
                                     .api_key = providers::ApiKey("fuzz-key")},
          world);
      if (!model.ok()) return model.status();
      return std::unique_ptr<Model>(*std::move(model));
    }
    case 1: {
      auto model = providers::OpenAiModel::Create(
          providers::OpenAiConfig{.model = "gpt-fuzz",
                                  .base_url = "https://provider.fuzz/v1",
                                  .api_key = providers::ApiKey("fuzz-key")},
          world);
      if (!model.ok()) return model.status();
      return std::unique_ptr<Model>(*std::move(model));
    }
    default: {
      auto model = providers::OllamaModel::Create(
          providers::OllamaConfig{.model = "llama-fuzz", .host = "http://provider.fuzz"}, world);
      if (!model.ok()) return model.status();
      return std::unique_ptr<Model>(*std::move(model));
    }
  }
}

void CheckUsage(const Usage& usage) {
  Check(usage.input_tokens >= 0, "negative input tokens");
  Check(usage.output_tokens >= 0, "negative output tokens");
  Check(usage.cached_input_tokens >= 0, "negative cached input tokens");
  Check(usage.cached_input_tokens <= usage.input_tokens, "more cached input than input");
}

void CheckAccepted(const ModelResponse& response) {
  CheckUsage(response.usage);
  for (const ToolUse& use : response.tool_uses) {
    Check(!use.id.empty(), "a tool use without an id");
    absl::StatusOr<agentrt::json::Document> args = agentrt::json::Parse(use.args);
    Check(args.ok(), "a tool use whose arguments are not JSON");
    Check(args->root().is_object(), "a tool use whose arguments are not a JSON object");
  }
  if (response.stop_reason == agentrt::stop_reason::kMaxTokens ||
      response.stop_reason == agentrt::stop_reason::kRefusal) {
    Check(response.tool_uses.empty(), "a max_tokens or refusal reply kept its tool uses");
  }
}

void CheckRefused(const absl::Status& status) {
  ModelErrorInfo info = agentrt::ClassifyModelError(status);
  if (info.usage) CheckUsage(*info.usage);
  for (char c : status.message()) {
    Check(static_cast<unsigned char>(c) >= 0x20, "a control byte in an error");
  }
  agentrt::fuzz::CheckPrintable(status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static constexpr int kStatuses[] = {200, 200, 200, 429, 500, 529, 307, 400};
  const int status = kStatuses[data[0] % 8];
  const int which = data[1] % 3;
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  const std::size_t header_bytes = std::min<std::size_t>(data[1] / 3 % 8, rest.size());
  std::string header_value(rest.substr(0, header_bytes));
  std::string body(rest.substr(header_bytes));

  HttpFields headers = {{"Content-Type", "application/json"},
                        {"Content-Length", std::to_string(body.size())},
                        {"Retry-After", header_value},
                        {"Location", header_value}};
  CannedNetwork network(status, std::move(headers), std::move(body));
  agentrt::world::ManualClock clock(absl::FromUnixSeconds(1'790'000'000));
  agentrt::world::SeededEntropy entropy(0x5eed);
  agentrt::world::World world{.clock = &clock, .entropy = &entropy, .network = &network};

  absl::StatusOr<std::unique_ptr<Model>> model = Adapter(which, world);
  Check(model.ok(), "an adapter's fuzz config was refused");
  absl::StatusOr<ModelResponse> response =
      (*model)->Generate(Request(), clock.Now() + absl::Minutes(1));
  Check(network.sent() == 1, "an adapter did not send exactly one request");
  if (response.ok()) {
    Check(status == 200, "a reply accepted with a status that is not 2xx");
    CheckAccepted(*response);
  } else {
    CheckRefused(response.status());
  }
  return 0;
}
