// Reading scenarios: a mistake is refused at its file, line and field, never played as a
// different scenario.
#include "sim/scenario_file.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/scenario_limits.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::sim {
namespace {

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
  EXPECT_THAT(scenario, StatusIs(absl::StatusCode::kInvalidArgument));
  return std::string(scenario.status().message());
}

TEST(ScenarioFileTest, AGoodScenarioIsNamedAfterItsFile) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(kGood, "dir/case.textproto");
  ASSERT_OK(scenario);
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
              HasSubstr("agent.model[0]: give the agent steps, a model's replies or a provider: "
                        "one of them"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { model { } provider { kind: \"openai\" } }\n"),
              HasSubstr("agent.provider: give the agent steps, a model's replies or a provider"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { provider { kind: \"gemini\" } }\n"),
              HasSubstr("agent.provider.kind: \"gemini\" is not anthropic, openai or ollama"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { provider { kind: \"ollama\" "
                    "exchanges { status: 42 } } }\n"),
              HasSubstr("agent.provider.exchanges[0].status: 42 is not an HTTP status"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { provider { kind: \"ollama\" "
                    "exchanges { delay: \"soon\" } } }\n"),
              HasSubstr("agent.provider.exchanges[0].delay: \"soon\" is not a duration"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nperturbations { drop: true }\n"),
              HasSubstr("perturbations[0].at_answer: answers count from 1"));
}

TEST(ScenarioFileTest, AHostSideIsCheckedByName) {
  EXPECT_THAT(Error("servers { name: \"a\" }\nagent { steps { fail: \"x\" } }\n"
                    "host { calls { tool: \"a_t\" } }\n"),
              HasSubstr("host.calls: give the scenario an agent or a host: one of them"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nhost { }\n"),
              HasSubstr("host.calls: a host makes at least one call"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nhost { calls { } }\n"),
              HasSubstr("host.calls[0].tool: a call names its tool"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nhost { calls { tool: \"a_t\" after: \"soon\" } }\n"),
              HasSubstr("host.calls[0].after: \"soon\" is not a duration"));
  EXPECT_THAT(Error("servers { name: \"a\" }\nhost { hold: \"25h\" calls { tool: \"a_t\" } }\n"),
              HasSubstr("host.hold: \"25h\" is past the limit"));
  EXPECT_THAT(
      Error("servers { name: \"a\" }\nhost { calls { tool: \"a_t\" decide { call: 1 } } }\n"),
      HasSubstr("host.calls[0].decide: call 1 is not an earlier call"));
}

// A scenario's name names its database files (`sim run --db DIR`), and scenarios are written by
// others: a name that could reach outside DIR, or hide in a terminal, is refused at its line.
TEST(ScenarioFileTest, ANameThatIsNotOneHarmlessPathComponentIsRefused) {
  for (const std::string& name :
       {std::string("../victim/prod"), std::string("/tmp/anywhere"), std::string("a/b"),
        std::string(".."), std::string("a..b"), std::string("a\\\\b"), std::string("x\\x1by"),
        std::string("x\\u0085y"), std::string("x\\x7fy"), std::string(129, 'n')}) {
    SCOPED_TRACE(name);
    std::string error = Error(absl::StrCat("name: \"", name, "\"\nservers { name: \"a\" }\n"));
    EXPECT_THAT(error, HasSubstr("dir/case.textproto:1:"));
    EXPECT_THAT(error, HasSubstr(": name: "));
  }
  EXPECT_THAT(
      Error("name: \"../victim/prod\"\nservers { name: \"a\" }\n"),
      HasSubstr("it names the scenario's database files, so it holds no '/', '\\' or '..'"));
  EXPECT_THAT(
      Error(absl::StrCat("name: \"", std::string(129, 'n'), "\"\nservers { name: \"a\" }\n")),
      HasSubstr("name: 129 bytes is past the limit of 128"));
  // A name taken from the file's base name is checked the same way.
  absl::StatusOr<v1::Scenario> unnamed = ParseScenario(kGood, "dir/evil\x1b[2J.textproto");
  EXPECT_THAT(unnamed.status().message(),
              HasSubstr("name: the file's base name is no scenario name (it holds a control "
                        "character); give the scenario a name"));
  EXPECT_OK(ParseScenario(absl::StrCat("name: \"plain-name_1.x\"\n", kGood), "f"));
}

// A file past any bound is refused before anything is played, naming the field and the limit:
// a reviewer's machine plays what others wrote.
TEST(ScenarioFileTest, EverySizeCountAndDurationIsBoundedByName) {
  auto server = [](const std::string& inside) {
    return absl::StrCat("servers { name: \"a\" ", inside, " }\n");
  };
  auto repeated = [](const std::string& entry, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) absl::StrAppend(&out, entry, "\n");
    return out;
  };
  std::string servers;
  for (int i = 0; i <= kMaxServers; ++i)
    absl::StrAppend(&servers, "servers { name: \"s", i, "\" }\n");
  struct Case {
    std::string text;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {server("tools { name: \"t\" calls { text_bytes: 536870912 } }"),
            "servers[0].tools[0].calls[0].text_bytes: 536870912 is past the limit of 20971520 "
            "bytes"},
           {server("tools { name: \"t\" calls { action: HANG } }"
                   " rules_json: '{\"t\":{\"side_effect\":\"read_only\",\"timeout\":"
                   "\"2147483647s\"}}'"),
            "servers[0].rules_json: rules: tool \"t\": timeout 596523h14m7s is past the limit of "
            "24h0m0s"},
           {server("tools { name: \"t\" calls { delay: \"25h\" } }"),
            "servers[0].tools[0].calls[0].delay: \"25h\" is past the limit of 24h0m0s"},
           {server("connect_timeout: \"1000h\""), "servers[0].connect_timeout: \"1000h\" is past"},
           {server("default_timeout: \"24h1s\""), "servers[0].default_timeout: \"24h1s\" is past"},
           {server("") + "limits { max_active: \"48h\" }", "limits.max_active: \"48h\" is past"},
           {server("") + "limits { max_elapsed: \"48h\" }", "limits.max_elapsed: \"48h\" is past"},
           {server("") + "perturbations { at_answer: 1 delay: \"48h\" }",
            "perturbations[0].delay: \"48h\" is past"},
           {server("") + "perturbations { at_answer: 1 clock_jump: \"48h\" }",
            "perturbations[0].clock_jump: \"48h\" is past"},
           {servers, ":101:1: servers[100]: more than 100 servers (the limit)"},
           {server("tools { name: \"t\" repeat: 60000 } tools { name: \"u\" repeat: 40001 }"),
            "servers[0].tools[1]: the scenario lists more than 100000 tools in all, each repeat "
            "counted (the limit)"},
           {server(absl::StrCat("tools { name: \"t\" repeat: 1000 description: \"",
                                std::string(70000, 'd'), "\" }")),
            "servers[0].tools[0]: the scenario lists more than 67108864 bytes of tools in all, "
            "each repeat counted (the limit)"},
           {absl::StrCat("servers { name: \"a\" tools { name: \"t\" repeat: 900 description: \"",
                         std::string(40000, 'd'),
                         "\" } }\nservers { name: \"b\" tools { name: \"t\" ",
                         "repeat: 900 description: \"", std::string(40000, 'd'), "\" } }\n"),
            "servers[1].tools[0]: the scenario lists more than 67108864 bytes of tools in all"},
           {server("listings { page_size: 100001 }"),
            "servers[0].listings[0].page_size: 100001 is past the limit of 100000"},
           {server("listings { extra_pages: 4000000000 }"),
            "servers[0].listings[0].extra_pages: 4000000000 is past the limit of 10000"},
           {server("http { lose_session_after: 100001 }"),
            "servers[0].http.lose_session_after: 100001 is past the limit of 100000"},
           {server("max_content_bytes: 16777217"),
            "servers[0].max_content_bytes: 16777217 is past the limit of 16777216 bytes"},
           {server("") + "agent { " + repeated("steps { fail: \"x\" }", 1001) + "}",
            "agent.steps[1000]: more than 1000 steps (the limit)"},
           {server("") + "agent { " + repeated("model { }", 1001) + "}",
            "agent.model[1000]: more than 1000 model replies (the limit)"},
           {server("") + repeated("approvals { }", 1001),
            "approvals[1000]: more than 1000 approvals (the limit)"},
           {server("") + repeated("perturbations { at_answer: 1 }", 10001),
            "perturbations[10000]: more than 10000 perturbations (the limit)"},
           {server("") + "limits { max_steps: 1001 }",
            "limits.max_steps: 1001 is past the limit of 1000"},
           {server("") + "limits { max_consecutive_tool_failures: 2147483647 }",
            "limits.max_consecutive_tool_failures: 2147483647 is past the limit of 1000"},
           {server("") + "limits { loop_threshold: 1001 }",
            "limits.loop_threshold: 1001 is past the limit of 1000"},
       }) {
    SCOPED_TRACE(c.error);
    std::string error = Error(c.text);
    EXPECT_THAT(error, HasSubstr("dir/case.textproto"));
    EXPECT_THAT(error, HasSubstr(c.error));
  }
  // Everything at its limit is played.
  EXPECT_OK(ParseScenario(server("tools { name: \"t\" repeat: 100000 calls { text_bytes: "
                                 "20971520 delay: \"24h\" } } max_content_bytes: 16777216") +
                              "limits { max_steps: 1000 max_active: \"24h\" }",
                          "f"));
}

TEST(ScenarioFileTest, AFilePastTheSizeLimitIsRefusedBeforeItIsParsed) {
  std::string big = absl::StrCat(kGood, "# ", std::string(kMaxScenarioFileBytes, '#'), "\n");
  EXPECT_THAT(Error(big), HasSubstr(absl::StrCat("dir/case.textproto: ", big.size(),
                                                 " bytes is past the limit of 4194304 for a "
                                                 "scenario file")));
  std::string path = test_support::TestFile("big.textproto");
  std::ofstream(path) << big;
  absl::StatusOr<v1::Scenario> read = ReadScenario(test_support::RealFiles(), path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      read.status().message(),
      HasSubstr(path + ": the file is past the limit of 4194304 bytes for a scenario file"));
}

TEST(ScenarioFileTest, FoldersListTheirScenariosSorted) {
  std::string folder = test_support::TestFolder().string();
  for (const char* name : {"b.textproto", "a.textproto", "notes.md"}) {
    std::ofstream(folder + "/" + name) << kGood;
  }
  absl::StatusOr<std::vector<std::string>> files =
      ScenarioFiles(test_support::RealFiles(), {folder});
  ASSERT_OK(files);
  ASSERT_EQ(files->size(), 2u);
  EXPECT_THAT((*files)[0], HasSubstr("a.textproto"));
  EXPECT_THAT((*files)[1], HasSubstr("b.textproto"));
  EXPECT_TRUE(
      absl::IsNotFound(ScenarioFiles(test_support::RealFiles(), {folder + "/missing"}).status()));
}

TEST(ScenarioFileTest, TheTextFormRoundTrips) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenario(kGood, "case.textproto");
  ASSERT_OK(scenario);
  absl::StatusOr<v1::Scenario> again = ParseScenario(ScenarioText(*scenario), "again.textproto");
  ASSERT_OK(again);
  EXPECT_EQ(again->SerializeAsString(), scenario->SerializeAsString());
}

}  // namespace
}  // namespace agentrt::sim
