// The scripted model (docs/architecture.md, "Record and replay").
#include "sim/scripted_model.h"

#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/model_fixtures.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

using ::agentrt::model_fixtures::Answer;
using ::agentrt::model_fixtures::Ask;

TEST(ScriptedModelTest, CallIReturnsItsErrorWhenSetElseItsResponse) {
  ScriptedModel model({Answer("zero"), Answer("one"), Answer("two")},
                      {absl::OkStatus(), TransientError("busy")});
  EXPECT_EQ(model.Name(), "scripted");

  absl::StatusOr<ModelResponse> r0 = model.Generate(Ask("a"), absl::InfiniteFuture());
  ASSERT_OK(r0);
  EXPECT_EQ(r0->text, "zero");
  absl::StatusOr<ModelResponse> r1 = model.Generate(Ask("b"), absl::InfiniteFuture());
  EXPECT_EQ(r1.status().message(), "busy");
  EXPECT_EQ(ClassifyModelError(r1.status()).kind, ModelErrorKind::kTransient);
  absl::StatusOr<ModelResponse> r2 = model.Generate(Ask("c"), absl::InfiniteFuture());
  ASSERT_OK(r2);
  EXPECT_EQ(r2->text, "two");
}

TEST(ScriptedModelTest, ACallBeyondTheScriptFailsNamingTheCall) {
  ScriptedModel model({Answer("only")}, {}, "my-model");
  EXPECT_EQ(model.Name(), "my-model");
  ASSERT_OK(model.Generate(Ask("a"), absl::InfiniteFuture()));
  absl::StatusOr<ModelResponse> r = model.Generate(Ask("b"), absl::InfiniteFuture());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(), "scripted model: no response for call 1");
  EXPECT_EQ(ClassifyModelError(r.status()).kind, ModelErrorKind::kPermanent);
}

TEST(ScriptedModelTest, EveryRequestIsKeptInCallOrderFailedOnesIncluded) {
  ScriptedModel model({Answer("x")});
  (void)model.Generate(Ask("first"), absl::InfiniteFuture());
  (void)model.Generate(Ask("second"), absl::InfiniteFuture());
  std::vector<ModelRequest> requests = model.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].messages[0].content[0].text, "first");
  EXPECT_EQ(requests[1].messages[0].content[0].text, "second");
}

TEST(ScriptedModelTest, CallsFromManyThreadsEachGetOneScriptEntry) {
  std::vector<ModelResponse> script;
  for (int i = 0; i < 400; ++i) script.push_back(Answer(std::to_string(i)));
  ScriptedModel model(script);
  std::vector<std::string> texts[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        texts[t].push_back(model.Generate(Ask("q"), absl::InfiniteFuture())->text);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& list : texts) all.insert(list.begin(), list.end());
  EXPECT_EQ(all.size(), 400u);
  EXPECT_EQ(model.calls(), 400u);
}

}  // namespace
}  // namespace agentrt::sim
