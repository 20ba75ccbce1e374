// Reading scenarios: a mistake is refused at its file, line and field, never played as a
// different scenario.
#include "sim/scenario_file.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_folder.h"

namespace agentrt::sim {
namespace {

using ::testing::HasSubstr;

constexpr char kGood[] = R"(
servers {
  name: "fs"
  tools { name: "read" input_schema_json: '{"type":"object"}' }
  rules_json: '{"read":{"side_effect":"read_only","timeout":"5s"}}'
}
agent { steps { call { tool: "fs_read" } } }
)";

std::string Error(std::string_view text) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(text, "dir/case.textproto");
  EXPECT_FALSE(scenario.ok());
  return std::string(scenario.status().message());
}

TEST(ScenarioFileTest, AGoodScenarioIsNamedAfterItsFile) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(kGood, "dir/case.textproto");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  EXPECT_EQ(scenario->name(), "case");
  EXPECT_EQ(scenario->servers(0).tools(0).name(), "read");
}

TEST(ScenarioFileTest, AnUnknownFieldIsRefusedAtItsLine) {
  EXPECT_THAT(Error("servers {\n  name: \"fs\"\n  toolz { name: \"x\" }\n}\n"),
              HasSubstr("dir/case.textproto:3:"));
  EXPECT_THAT(Error("servers {\n  name: \"fs\"\n  toolz { name: \"x\" }\n}\n"), HasSubstr("toolz"));
}

TEST(ScenarioFileTest, JsonThatIsNotJsonIsRefusedNamingTheFieldPath) {
  std::string error = Error(
      "servers {\n  name: \"fs\"\n  tools { name: \"a\" }\n  tools {\n    name: \"b\"\n"
      "    input_schema_json: '{\"type\":'\n  }\n}\n");
  EXPECT_THAT(error, HasSubstr("dir/case.textproto:6:"));
  EXPECT_THAT(error, HasSubstr("servers[0].tools[1].input_schema_json: not JSON"));
}

TEST(ScenarioFileTest, RulesAreReadAsStrictlyAsARulesFile) {
  std::string error = Error(
      "servers {\n  name: \"fs\"\n  rules_json: '{\"read\":{\"side_effect\":\"read_only\","
      "\"denny\":[\"x\"]}}'\n}\n");
  EXPECT_THAT(error, HasSubstr("dir/case.textproto:3:"));
  EXPECT_THAT(error, HasSubstr("servers[0].rules_json"));
  EXPECT_THAT(error, HasSubstr("unknown field \"denny\""));
}

TEST(ScenarioFileTest, ValuesTheSimulatorCannotPlayAreRefused) {
  EXPECT_THAT(Error("servers { name: \"a\" }\nservers { name: \"a\" }\n"),
              HasSubstr("a second server named \"a\""));
  EXPECT_THAT(Error(""), HasSubstr("a scenario needs a server"));
  EXPECT_THAT(Error("servers { name: \"a\" connect_timeout: \"5\" }\n"),
              HasSubstr("servers[0].connect_timeout: \"5\" is not a duration"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nexpect { status: \"done\" }\n"),
              HasSubstr("expect.status: \"done\" is not a run status"));
  EXPECT_THAT(
      Error(
          "servers { name: \"a\" }\nexpect { events: \"run.created\" events: \"step.strated\" }\n"),
      HasSubstr("expect.events[1]: \"step.strated\" is not an event type"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { steps { } }\n"),
              HasSubstr("agent.steps[0]: a step is a call, complete_json or fail"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { steps { fail: \"x\" } model { } }\n"),
              HasSubstr("agent.model[0]: give the agent steps or a model's replies, not both"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nperturbations { drop: true }\n"),
              HasSubstr("perturbations[0].at_answer: answers count from 1"));
}

TEST(ScenarioFileTest, FoldersListTheirScenariosSorted) {
  std::string folder = test_support::TestFolder().string();
  for (const char* name : {"b.textproto", "a.textproto", "notes.md"}) {
    std::ofstream(folder + "/" + name) << kGood;
  }
  absl::StatusOr<std::vector<std::string>> files = ScenarioFiles({folder});
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_THAT((*files)[0], HasSubstr("a.textproto"));
  EXPECT_THAT((*files)[1], HasSubstr("b.textproto"));
  EXPECT_TRUE(absl::IsNotFound(ScenarioFiles({folder + "/missing"}).status()));
}

TEST(ScenarioFileTest, TheTextFormRoundTrips) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(kGood, "case.textproto");
  ASSERT_TRUE(scenario.ok());
  absl::StatusOr<v1::Scenario> again = ParseScenario(ScenarioText(*scenario), "again.textproto");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->SerializeAsString(), scenario->SerializeAsString());
}

}  // namespace
}  // namespace agentrt::sim
