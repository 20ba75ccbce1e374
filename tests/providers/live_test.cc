// A live round trip per adapter against a real provider, behind an explicit opt-in: each test
// runs only when AGENTRT_LIVE=1 and the provider's own setting is there, and is skipped
// otherwise, so CI never reaches a provider. A model is asked to add two numbers by calling a
// tool; the reply must be that one call, with usage and the provider's raw bytes.
//
//   AGENTRT_LIVE=1 OLLAMA_HOST=127.0.0.1:11434 AGENTRT_LIVE_OLLAMA_MODEL=qwen3:30b-a3b
//   AGENTRT_LIVE=1 AGENTRT_LIVE_OPENAI_BASE_URL=http://127.0.0.1:8000/v1 (OPENAI_API_KEY optional)
//       AGENTRT_LIVE_OPENAI_MODEL=gpt-oss:20b
//   AGENTRT_LIVE=1 ANTHROPIC_API_KEY=... AGENTRT_LIVE_ANTHROPIC_MODEL=claude-haiku-4-5
//   build/bin/providers_test --gtest_filter='LiveTest.*'
#include <cstdlib>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "providers/anthropic/anthropic_model.h"
#include "providers/ollama/ollama_model.h"
#include "providers/openai/openai_model.h"
#include "runtime/json/intake.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "runtime/world/environment.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

// The variable's value, or "" when it is unset.
std::string Setting(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

class LiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Setting("AGENTRT_LIVE") != "1") GTEST_SKIP() << "set AGENTRT_LIVE=1 to reach a provider";
    absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
        world::CurlNetwork::Create(clock_);
    ASSERT_OK(network);
    network_ = *std::move(network);
    world_ = {.clock = &clock_,
              .entropy = &entropy_,
              .network = network_.get(),
              .environment = &environment_};
  }

  // Asks `model` for 1 + 2 through the `add` tool, and checks the one call it makes.
  static void ExpectOneAdd(Model& model) {
    ModelRequest request;
    request.system = "Act only by calling a tool.";
    request.messages = {{"user",
                         {{.type = "text",
                           .text = "Add 1 and 2: call add with n set to "
                                   "the sum."}}}};
    request.tools = {{"add", "Report a sum.",
                      R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})",
                      SideEffect::kReadOnly, absl::Seconds(5), false}};
    request.max_output_tokens = 512;
    absl::StatusOr<ModelResponse> response =
        model.Generate(request, absl::Now() + absl::Minutes(3));
    ASSERT_OK(response);
    EXPECT_EQ(response->stop_reason, stop_reason::kToolUse);
    ASSERT_THAT(response->tool_uses, SizeIs(1));
    EXPECT_EQ(response->tool_uses[0].name, "add");
    absl::StatusOr<json::Document> args = json::Parse(response->tool_uses[0].args);
    ASSERT_OK(args);
    std::optional<json::Value> n = args->root().Find("n");
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(n->number_literal(), "3");
    EXPECT_GT(response->usage.input_tokens, 0);
    EXPECT_GT(response->usage.output_tokens, 0);
    EXPECT_FALSE(response->raw.empty());
  }

  world::RealClock clock_;
  world::OsEntropy entropy_;
  world::ProcessEnvironment environment_;
  std::unique_ptr<world::CurlNetwork> network_;
  world::World world_;
};

TEST_F(LiveTest, OllamaToolUseRoundTrip) {
  std::string model = Setting("AGENTRT_LIVE_OLLAMA_MODEL");
  if (model.empty()) GTEST_SKIP() << "set AGENTRT_LIVE_OLLAMA_MODEL (and OLLAMA_HOST)";
  absl::StatusOr<std::unique_ptr<OllamaModel>> ollama =
      OllamaModel::Create({.model = model}, world_);
  ASSERT_OK(ollama);
  ExpectOneAdd(**ollama);
}

TEST_F(LiveTest, OpenAiCompatibleToolUseRoundTrip) {
  std::string base = Setting("AGENTRT_LIVE_OPENAI_BASE_URL");
  std::string model = Setting("AGENTRT_LIVE_OPENAI_MODEL");
  if (base.empty() || model.empty()) {
    GTEST_SKIP() << "set AGENTRT_LIVE_OPENAI_BASE_URL and AGENTRT_LIVE_OPENAI_MODEL";
  }
  absl::StatusOr<std::unique_ptr<OpenAiModel>> openai = OpenAiModel::Create(
      {.model = model, .base_url = base, .api_key = ApiKey(Setting("OPENAI_API_KEY"))}, world_);
  ASSERT_OK(openai);
  ExpectOneAdd(**openai);
}

TEST_F(LiveTest, AnthropicToolUseRoundTrip) {
  std::string key = Setting("ANTHROPIC_API_KEY");
  std::string model = Setting("AGENTRT_LIVE_ANTHROPIC_MODEL");
  if (key.empty() || model.empty()) {
    GTEST_SKIP() << "set ANTHROPIC_API_KEY and AGENTRT_LIVE_ANTHROPIC_MODEL";
  }
  absl::StatusOr<std::unique_ptr<AnthropicModel>> anthropic =
      AnthropicModel::Create({.model = model, .api_key = ApiKey(key)}, world_);
  ASSERT_OK(anthropic);
  ExpectOneAdd(**anthropic);
}

}  // namespace
}  // namespace agentrt::providers
