// SameRenders (docs/testkit.md): the request an agent renders for a step is
// byte-identical across a pause and a crash, and an opening that is not a function of the
// step's input is caught.
#include "testkit/same_renders.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"
#include "tests/testkit/product.h"

namespace agentrt::testkit {
namespace {

class SameRendersTest : public ::testing::Test {
 protected:
  RenderScenario Scenario() {
    RenderScenario s;
    s.agent.system = "You keep the workspace tidy.";
    s.agent.max_output_tokens = 256;
    s.agent.render.opening = [](const StepInput& in) { return "Goal: " + in.run.goal; };
    s.agent.render.recent_results = 2;  // older results by summary: the window moves too
    s.tools = {read_.get(), write_.get()};
    s.calls = {{"", "read_file", R"({"path":"/workspace/a"})"},
               {"", "write_file", R"({ "content": "x", "path": "/workspace/b" })"},
               {"", "read_file", R"({"path":"/workspace/b"})"}};
    s.goal = "tidy the workspace";
    return s;
  }
  std::unique_ptr<Tool> read_ = product::ReadFile();
  std::unique_ptr<Tool> write_ = product::WriteFile();
};

TEST_F(SameRendersTest, HoldsAcrossAPauseAndACrash) {
  absl::StatusOr<Report> report = SameRenders(Scenario());
  ASSERT_OK(report);
  EXPECT_TRUE(report->ok()) << report->Text();
  // Four requests (three calls, then the one the model declines), compared for the pause and
  // for a crash after each of the three tool steps.
  EXPECT_EQ(report->checked, 4 * (1 + 3));
  EXPECT_THAT(report->notes, Contains(HasSubstr("straight run: 4 requests, 3 tool steps")));
}

TEST_F(SameRendersTest, FailsOnANondeterministicOpening) {
  RenderScenario s = Scenario();
  auto renders = std::make_shared<int>(0);
  s.agent.render.opening = [renders](const StepInput& in) {
    return "Goal: " + in.run.goal + " (attempt " + std::to_string(++*renders) + ")";
  };
  absl::StatusOr<Report> report = SameRenders(s);
  ASSERT_OK(report);
  EXPECT_FALSE(report->ok());
  // Every request of every variant differs, right where the opening's counter is.
  EXPECT_EQ(report->failures.size(), 16u) << report->Text();
  ASSERT_FALSE(report->failures.empty());
  const std::vector<std::string>& first = report->failures[0];
  EXPECT_EQ(first[0], "paused and resumed");
  EXPECT_EQ(first[1], "request 0");
  EXPECT_THAT(first[3], HasSubstr("(attempt 1)"));
  EXPECT_THAT(first[4], HasSubstr("(attempt 5)"));
  EXPECT_THAT(report->Text(), HasSubstr("crashed after tool step 0 and resumed | request 1"));
}

TEST_F(SameRendersTest, NoRequestIsAnError) {
  RenderScenario s = Scenario();
  s.agent.render.opening = nullptr;  // the agent fails before asking the model
  EXPECT_THAT(SameRenders(s).status().message(), HasSubstr("made no model request"));
}

}  // namespace
}  // namespace agentrt::testkit
