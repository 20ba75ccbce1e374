// A scenario's model behind a real provider adapter (scenario.proto, Provider): the adapter's
// HTTP goes to the fake endpoint on the simulated network, whose answers are the scenario's
// bytes in exact order, on the virtual clock. What the fixtures show end to end
// (fixtures/scenarios/provider_*.textproto, played by SimFixturesTest) is held here in detail.
#include <string>
#include <string_view>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/timestamp.h"
#include "sim/judge.h"
#include "sim/play.h"
#include "sim/scenario_file.h"
#include "sim/verdict.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

constexpr char kServers[] = R"(
servers {
  name: "fs"
  tools {
    name: "finish"
    description: "Report and end the run"
    input_schema_json: '{"type":"object","properties":{"summary":{"type":"string"}}}'
    calls { text: "finished" }
  }
  rules_json: '{"finish":{"side_effect":"read_only","timeout":"5s","terminal":true}}'
}
policy { read_only: ALLOW }
)";

// The Messages API's answer that finishes the run.
constexpr char kFinish[] =
    R"('{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5",)"
    R"("content":[{"type":"tool_use","id":"toolu_1","name":"fs_finish","input":{}}],)"
    R"("stop_reason":"tool_use","usage":{"input_tokens":100,"output_tokens":10}}')";

v1::Scenario Parse(const std::string& provider) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(
      absl::StrCat(kServers, "agent { provider { ", provider, " } }\n"), "provider.textproto");
  EXPECT_OK(scenario);
  return scenario.ok() ? *scenario : v1::Scenario();
}

std::vector<const store::Event*> OfType(const Outcome& outcome, std::string_view type) {
  std::vector<const store::Event*> found;
  for (const store::Event& e : outcome.events) {
    if (e.type == type) found.push_back(&e);
  }
  return found;
}

TEST(ProviderPlayTest, ARetryAfterIsWaitedOutExactlyOnTheVirtualClock) {
  v1::Scenario scenario = Parse(absl::StrCat(
      R"(kind: "anthropic" max_retries: 1 )",
      R"(exchanges { status: 429 headers { name: "Retry-After" value: "7" } )",
      R"(body: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}' } )",
      "exchanges { body: ", kFinish, " }"));
  absl::StatusOr<Outcome> outcome = Play(scenario);
  ASSERT_OK(outcome);
  ASSERT_TRUE(outcome->run.has_value());
  EXPECT_EQ(outcome->run->status, RunStatus::kCompleted);
  std::vector<const store::Event*> failed = OfType(*outcome, "model.failed");
  std::vector<const store::Event*> dispatched = OfType(*outcome, "model.dispatched");
  ASSERT_THAT(failed, SizeIs(1));
  ASSERT_THAT(dispatched, SizeIs(2));
  EXPECT_THAT(failed[0]->payload_json, HasSubstr(R"("cost_micros":0)"));
  // The retry went out the seven seconds the provider asked for after the refusal (not the one
  // second of the default backoff), plus the millisecond each clock reading between the two
  // events moves the simulator's clock.
  absl::StatusOr<absl::Time> refused = world::ParseTimestamp(failed[0]->at);
  absl::StatusOr<absl::Time> retried = world::ParseTimestamp(dispatched[1]->at);
  ASSERT_OK(refused);
  ASSERT_OK(retried);
  EXPECT_GE(*retried - *refused, absl::Seconds(7));
  EXPECT_LT(*retried - *refused, absl::Seconds(7) + absl::Milliseconds(10));
  EXPECT_THAT(BrokenInvariants(*outcome), IsEmpty());
}

TEST(ProviderPlayTest, ASwarmPerturbsTheProvidersAnswersToo) {
  v1::Scenario scenario =
      Parse(absl::StrCat(R"(kind: "anthropic" exchanges { body: )", kFinish, " }"));
  absl::StatusOr<Outcome> plain = Play(scenario);
  ASSERT_OK(plain);
  ASSERT_TRUE(plain->run.has_value());
  EXPECT_EQ(plain->run->status, RunStatus::kCompleted);
  // The provider's answer is the first after pin and load: a swarm that breaks it off makes the
  // call ambiguous (it may have been served), and with no retry the model is unavailable.
  v1::Perturbation* drop = scenario.add_perturbations();
  drop->set_at_answer(plain->answers_before_run + 1);
  drop->set_drop(true);
  absl::StatusOr<Outcome> dropped = Play(scenario);
  ASSERT_OK(dropped);
  ASSERT_TRUE(dropped->run.has_value());
  EXPECT_EQ(dropped->run->status, RunStatus::kFailed);
  EXPECT_EQ(dropped->run->reason, "model_unavailable");
  std::vector<const store::Event*> failed = OfType(*dropped, "model.failed");
  ASSERT_THAT(failed, SizeIs(1));
  EXPECT_THAT(failed[0]->payload_json, HasSubstr(R"("status":"ambiguous")"));
  EXPECT_THAT(BrokenInvariants(*dropped), IsEmpty());
}

TEST(ProviderPlayTest, ARequestWithoutWhatTheScenarioExpectsFailsNamingIt) {
  v1::Scenario scenario = Parse(absl::StrCat(
      R"(kind: "anthropic" exchanges { expect: '"max_tokens":4096' expect: 'no such text' )",
      "body: ", kFinish, " }"));
  Verdict verdict = Judge(scenario);
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.difference,
            "provider: provider request 1: the request's body holds no \"no such text\"");
}

TEST(ProviderPlayTest, ARequestPastTheLastExchangeFailsTheStory) {
  // The model's text alone is no decision: the agent asks again, and the scenario has no answer.
  v1::Scenario scenario = Parse(
      R"(kind: "ollama" exchanges { body: '{"model":"qwen-sim","message":{"role":"assistant",)"
      R"("content":"thinking"},"done_reason":"stop","done":true,"prompt_eval_count":5,)"
      R"("eval_count":1}' })");
  Verdict verdict = Judge(scenario);
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.difference,
            "provider: provider request 2: the scenario has 1 exchanges and no answer for this "
            "one");
}

TEST(ProviderPlayTest, TheAdaptersRequestsReachTheEndpointWithTheirOwnShape) {
  // What each adapter sends, checked by the endpoint: the path is the provider's, and the body
  // the provider's own form (Anthropic's tool_choice, OpenAI's function tools, Ollama's stream).
  for (auto [kind, expected] : {std::pair{"anthropic", R"("disable_parallel_tool_use":true)"},
                                std::pair{"openai", R"("parallel_tool_calls":false)"},
                                std::pair{"ollama", R"("stream":false)"}}) {
    SCOPED_TRACE(kind);
    v1::Scenario scenario = Parse(absl::StrCat("kind: \"", kind, "\" exchanges { expect: '",
                                               expected, "' status: 500 body: 'down' }"));
    absl::StatusOr<Outcome> outcome = Play(scenario);
    ASSERT_OK(outcome);
    EXPECT_EQ(outcome->provider_difference, "");
    ASSERT_TRUE(outcome->run.has_value());
    EXPECT_EQ(outcome->run->status, RunStatus::kFailed);
    EXPECT_EQ(outcome->run->reason, "model_unavailable");
  }
}

}  // namespace
}  // namespace agentrt::sim
