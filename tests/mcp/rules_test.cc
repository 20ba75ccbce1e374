// The operator's rules (docs/mcp.md, "Classify"): every field
// converts, and whatever the reader does not know is refused naming the file, tool and field.
#include "mcp/rules.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

using test_support::TestFile;

std::string WriteFile(const std::string& name, const std::string& text, mode_t mode = 0600) {
  std::string path = TestFile(name);
  { std::ofstream(path, std::ios::binary) << text; }
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

absl::StatusOr<Rules> Parse(std::string_view text, RuleFields fields = RuleFields::kRulesFile) {
  absl::StatusOr<json::Document> document = json::Parse(text);
  if (!document.ok()) return document.status();
  return ParseRules(document->root(), "here", fields);
}

TEST(ReadRulesTest, ConvertsTheOperatorsFormat) {
  std::string path = WriteFile("rules.json", R"({
    "read_file": {
      "side_effect": "read_only",
      "timeout": "10s",
      "terminal": true,
      "description": "Read one file of the sandbox.",
      "deny": ["force", "mode"],
      "fixed": {"encoding": "utf-8", "root": "/srv/sandbox", "limit": 1.0, "opts": {"b": 1, "a": [2]}},
      "rename": "read",
      "allow_hint_mismatch": true
    },
    "write_file": {"side_effect": "local_mutation"}
  })");
  absl::StatusOr<Rules> rules = ReadRules(test_support::RealFiles(), path);
  ASSERT_OK(rules);
  ASSERT_EQ(rules->size(), 2u);
  const Rule& read = rules->at("read_file");
  EXPECT_EQ(read.side_effect, SideEffect::kReadOnly);
  EXPECT_EQ(read.timeout, absl::Seconds(10));
  EXPECT_TRUE(read.terminal);
  EXPECT_EQ(read.description, "Read one file of the sandbox.");
  EXPECT_THAT(read.deny, ElementsAre("force", "mode"));
  EXPECT_THAT(read.fixed,
              ElementsAre(Pair("encoding", "\"utf-8\""), Pair("limit", "1"),
                          Pair("opts", R"({"a":[2],"b":1})"), Pair("root", "\"/srv/sandbox\"")));
  EXPECT_EQ(read.rename, "read");
  EXPECT_TRUE(read.allow_hint_mismatch);
  EXPECT_EQ(read.outcome, std::nullopt);
  EXPECT_EQ(read.repeat_window, std::nullopt);

  Rule write;
  write.side_effect = SideEffect::kLocalMutation;
  EXPECT_EQ(rules->at("write_file"), write);
}

TEST(ReadRulesTest, RefusesWhatItDoesNotKnowNamingTheFile) {
  struct Row {
    const char* text;
    const char* error;
  };
  for (const Row& row : {
           Row{R"({"a":{"side_effect":"read_only","denny":["force"]}})",
               R"(: tool "a": unknown field "denny")"},
           Row{R"({"a":{"Side_Effect":"read_only"}})",
               R"(: tool "a": unknown field "Side_Effect")"},
           Row{R"({"a":{"side_effect":"read_only","outcome":"allow"}})",
               R"(: tool "a": unknown field "outcome")"},
           Row{R"({"a":{"side_effect":"read_only","timeout":"5"}})",
               R"(: tool "a": timeout: missing unit in duration "5")"},
           Row{R"({"a":{"side_effect":"read_only","timeout":5}})",
               R"(: tool "a": timeout: a duration is a string such as "15s")"},
           Row{R"({"a":{"side_effect":"read_only","timeout":"5s"},)", ": json: unexpected end"},
           Row{R"({"a":{"side_effect":"read_only"}} {})", ": json: data after the JSON value"},
           Row{R"({"a":{},"a":{}})", R"(: json: duplicate object key "a")"},
           Row{R"({"a":{"side_effect":"writes"}})",
               R"(: tool "a": side_effect "writes" is not read_only, local_mutation, )"
               R"(remote_mutation, or destructive)"},
           Row{R"({"a":{"deny":"force"}})", R"(: tool "a": "deny" is not a list of strings)"},
           Row{R"({"a":{"deny":["force",1]}})", R"(: tool "a": "deny" is not a list of strings)"},
           Row{R"({"a":{"fixed":["root"]}})", R"(: tool "a": "fixed" is not a JSON object)"},
           Row{R"({"a":{"terminal":"yes"}})", R"(: tool "a": "terminal" is not a boolean)"},
           Row{R"({"a":{"rename":1}})", R"(: tool "a": "rename" is not a string)"},
           Row{R"({"a":"read_only"})", R"(: tool "a": the rule is not a JSON object)"},
           Row{R"([])", ": the rules are not a JSON object"},
       }) {
    SCOPED_TRACE(row.text);
    std::string path = WriteFile("rules.json", row.text);
    absl::StatusOr<Rules> rules = ReadRules(test_support::RealFiles(), path);
    EXPECT_EQ(rules.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(rules.status().message(), HasSubstr("rules " + path + row.error));
  }
}

TEST(ReadRulesTest, RefusesAFileOthersCanWrite) {
  for (mode_t mode : {0620, 0602, 0666}) {
    std::string path = WriteFile("rules" + std::to_string(mode), "{}", mode);
    absl::StatusOr<Rules> rules = ReadRules(test_support::RealFiles(), path);
    EXPECT_EQ(rules.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(rules.status().message(), HasSubstr("rules: " + path + " has mode -rw-"));
  }
  for (mode_t mode : {0600, 0644, 0444}) {
    EXPECT_OK(
        ReadRules(test_support::RealFiles(), WriteFile("ok" + std::to_string(mode), "{}", mode)));
  }
}

TEST(ParseRulesTest, AMissingSideEffectIsLeftForLoadToRefuse) {
  absl::StatusOr<Rules> rules = Parse(R"({"a":{"timeout":"1s"},"b":{"side_effect":""}})");
  ASSERT_OK(rules);
  EXPECT_EQ(rules->at("a").side_effect, std::nullopt);
  EXPECT_EQ(rules->at("b").side_effect, std::nullopt);
}

TEST(ParseRulesTest, AnEmptyOrNegativeTimeoutMeansTheServersDefault) {
  absl::StatusOr<Rules> rules =
      Parse(R"({"a":{"timeout":""},"b":{"timeout":"-5s"},"c":{"timeout":"1m30s"},"d":{}})");
  ASSERT_OK(rules);
  EXPECT_EQ(rules->at("a").timeout, absl::ZeroDuration());
  EXPECT_EQ(rules->at("b").timeout, absl::ZeroDuration());
  EXPECT_EQ(rules->at("c").timeout, absl::Seconds(90));
  EXPECT_EQ(rules->at("d").timeout, absl::ZeroDuration());
}

TEST(ParseRulesTest, TheFirstErrorIsOfTheFirstToolByName) {
  absl::StatusOr<Rules> rules = Parse(R"({"zz":{"x":1},"aa":{"y":1}})");
  EXPECT_EQ(rules.status().message(), R"(here: tool "aa": unknown field "y")");
}

TEST(ParseRulesTest, AConfigurationsRuleAddsOutcomeAndRepeatWindow) {
  absl::StatusOr<Rules> rules =
      Parse(R"({"pay":{"side_effect":"remote_mutation","outcome":"deny","repeat_window":"0s"},)"
            R"("balance":{"side_effect":"read_only","outcome":"require_approval",)"
            R"("repeat_window":"5m"},"other":{"side_effect":"read_only","outcome":"allow"}})",
            RuleFields::kConfig);
  ASSERT_OK(rules);
  EXPECT_EQ(rules->at("pay").outcome, PolicyOutcome::kDeny);
  EXPECT_EQ(rules->at("pay").repeat_window, absl::ZeroDuration());
  EXPECT_EQ(rules->at("balance").outcome, PolicyOutcome::kRequireApproval);
  EXPECT_EQ(rules->at("balance").repeat_window, absl::Minutes(5));
  EXPECT_EQ(rules->at("other").outcome, PolicyOutcome::kAllow);
  EXPECT_EQ(rules->at("other").repeat_window, std::nullopt);

  struct Row {
    const char* text;
    const char* error;
  };
  for (const Row& row : {
           Row{R"({"pay":{"outcome":"ask"}})",
               R"(here: tool "pay": outcome "ask" is not allow, require_approval, or deny)"},
           Row{R"({"pay":{"outcome":"abort"}})",
               R"(here: tool "pay": outcome "abort" is not allow, require_approval, or deny)"},
           Row{R"({"pay":{"repeat_window":"-1s"}})",
               R"(here: tool "pay": repeat_window: duration "-1s" is negative)"},
           Row{R"({"pay":{"denny":[]}})", R"(here: tool "pay": unknown field "denny")"},
       }) {
    SCOPED_TRACE(row.text);
    EXPECT_EQ(Parse(row.text, RuleFields::kConfig).status().message(), row.error);
  }
}

}  // namespace
}  // namespace agentrt::mcp
