// A command's flags are parsed into its own options (tools/agentrt/command_line.h): only the
// flags it names, each written into its field, in absl's syntax and with its words, and nothing
// global, so two parses never see each other's values.
#include "tools/agentrt/command_line.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::cli {
namespace {

using test_support::StatusIs;

struct Options {
  std::string db;
  std::int64_t limit = 7;
  bool json = false;
  int max = 10;
  absl::Duration interval = absl::Seconds(1);
  FlagSet Flags() {
    return FlagSet()
        .Add("db", &db)
        .Add("limit", &limit)
        .Add("json", &json)
        .Add("max", &max)
        .Add("interval", &interval);
  }
};

TEST(CommandLineTest, FlagsAreWrittenIntoTheCommandsOptions) {
  Options o;
  std::vector<std::string> args = {"run-1",      "--db",  "a.db", "--limit=3", "--json",
                                   "--interval", "250ms", "--",   "--max"};
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, o.Flags());
  ASSERT_OK(parsed);
  EXPECT_EQ(o.db, "a.db");
  EXPECT_EQ(o.limit, 3);
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.interval, absl::Milliseconds(250));
  EXPECT_EQ(o.max, 10);  // after "--" it is a word, not a flag
  EXPECT_THAT(parsed->positional, ElementsAre("run-1", "--max"));
  EXPECT_THAT(parsed->given, ElementsAre("db", "limit", "json", "interval"));
  EXPECT_TRUE(parsed->Given("limit"));
  EXPECT_FALSE(parsed->Given("max"));
}

TEST(CommandLineTest, AParseLeavesNoStateForTheNext) {
  Options first;
  std::vector<std::string> args = {"--limit", "3", "--json"};
  ASSERT_OK(ParseArgs(args, first.Flags()));
  Options second;
  ASSERT_OK(ParseArgs(std::vector<std::string>{}, second.Flags()));
  EXPECT_EQ(second.limit, 7);
  EXPECT_FALSE(second.json);
}

TEST(CommandLineTest, UsageErrorsSayWhatIsWrong) {
  struct Row {
    std::vector<std::string> args;
    std::string error;
  } rows[] = {
      {{"--seeds", "3"}, "unknown flag --seeds"},
      {{"--db"}, "flag --db needs a value"},
      {{"--limit", "many"}, "flag --limit: Illegal value 'many' specified for flag 'limit'"},
      {{"--limit="}, "flag --limit: Illegal value '' specified for flag 'limit'"},
      {{"--json=maybe"}, "flag --json: Illegal value 'maybe' specified for flag 'json'"},
      {{"--max", "99999999999"},
       "flag --max: Illegal value '99999999999' specified for flag 'max'"},
      {{"--interval", "soon"},
       "flag --interval: Illegal value 'soon' specified for flag 'interval'"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.error);
    Options o;
    EXPECT_THAT(ParseArgs(row.args, o.Flags()),
                StatusIs(absl::StatusCode::kInvalidArgument, row.error));
  }
}

TEST(CommandLineTest, ValuesAreReadAsAbslReadsThem) {
  Options o;
  std::vector<std::string> args = {"--json=no", "--limit", " 12", "--max=0x10"};
  ASSERT_OK(ParseArgs(args, o.Flags()));
  EXPECT_FALSE(o.json);
  EXPECT_EQ(o.limit, 12);
  EXPECT_EQ(o.max, 16);
}

TEST(CommandLineTest, HelpIsNotAFlag) {
  for (const char* help : {"--help", "-h", "-help"}) {
    SCOPED_TRACE(help);
    absl::StatusOr<ParsedArgs> parsed = ParseArgs(std::vector<std::string>{help});
    ASSERT_OK(parsed);
    EXPECT_TRUE(parsed->help);
  }
}

}  // namespace
}  // namespace agentrt::cli
