// The `agentrt json` command and the top level of `agentrt` (the help that lists every command,
// and an unknown command refused with the nearest known ones), run as a user runs them: the
// built binary as a child process, checking output and exit codes. Also the pure suggestion
// functions behind "did you mean" (tools/agentrt/suggest.h).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"
#include "tools/agentrt/suggest.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::UnorderedElementsAreArray;

std::filesystem::path WriteTempFile(const std::string& name, const std::string& bytes) {
  std::filesystem::path path = test_support::TestFile(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(AgentrtJsonCliTest, CanonPrintsTheCanonicalFormOfStandardInput) {
  ProcessResult r = Agentrt({"json", "canon"}, R"({ "b": [1.0, 2e0], "a": "\u00e9" })");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"a\":\"\xC3\xA9\",\"b\":[1,2]}\n");
  EXPECT_THAT(r.err, IsEmpty());
}

TEST(AgentrtJsonCliTest, CanonReadsAFileAndDashMeansStandardInput) {
  std::filesystem::path path = WriteTempFile("canon.json", R"({"z":1,"a":2})");
  EXPECT_EQ(Agentrt({"json", "canon", path.string()}).out, "{\"a\":2,\"z\":1}\n");
  EXPECT_EQ(Agentrt({"json", "canon", "-"}, "[1]").out, "[1]\n");
}

TEST(AgentrtJsonCliTest, HashIsTheSameWhateverKeyOrderAndWhitespace) {
  ProcessResult a = Agentrt({"json", "hash"}, R"({"a":1,"b":[true,null]})");
  ProcessResult b = Agentrt({"json", "hash"}, "{ \"b\" : [ true , null ] ,\n \"a\" : 1.0 }");
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out.size(), 65u);  // 64 hex digits and a newline
  EXPECT_NE(a.out, Agentrt({"json", "hash"}, R"({"a":2,"b":[true,null]})").out);
}

TEST(AgentrtJsonCliTest, RefusedInputExitsOneWithTheIntakeError) {
  ProcessResult r = Agentrt({"json", "canon"}, R"({"a":1,"a":2})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("standard input: json: duplicate object key \"a\" at byte 7"));
}

TEST(AgentrtJsonCliTest, MissingFileExitsOneNamingThePath) {
  ProcessResult r = Agentrt({"json", "hash", "/nonexistent/agentrt.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/agentrt.json"));
  EXPECT_THAT(r.err, HasSubstr("No such file"));
}

TEST(AgentrtJsonCliTest, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"nosuchcommand"},
           {"json"},
           {"json", "nosuch"},
           {"json", "canon", "a.json", "b.json"},
           {"json", "canon", "--nosuchflag"},
       }) {
    SCOPED_TRACE(::testing::PrintToString(args));
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, Not(IsEmpty()));
  }
}

TEST(AgentrtJsonCliTest, HelpIsAvailableOnEveryLevel) {
  struct Row {
    std::vector<std::string> args;
    std::string mentions;
  } rows[] = {
      {{"--help"}, "json canon"},
      {{"json", "--help"}, "canon [FILE|-]"},
      {{"json", "canon", "--help"}, "Usage: agentrt json canon"},
      {{"json", "hash", "--help"}, "Usage: agentrt json hash"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.mentions);
    ProcessResult r = Agentrt(row.args);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, HasSubstr(row.mentions));
  }
}

TEST(AgentrtJsonCliTest, UnknownCommandIsEscapedBeforePrinting) {
  ProcessResult r = Agentrt({"\x1b[2Jevil"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("\\x1b[2Jevil"));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

// Every command agentrt has. A command dropped from the table, or added without being added
// here, fails HelpListsEveryCommandOnceWithItsSummary.
constexpr std::string_view kEveryCommand[] = {
    "json canon",    "json hash",      "schema validate", "schema check",  "demo scripted",
    "demo model",    "demo mcp",       "demo world",      "demo live",     "demo proxy",
    "cassette dump", "cassette check", "replay",          "mcp pin",       "mcp check",
    "mcp tools",     "mcp call",       "mcp login",       "proxy",         "proxy pin",
    "proxy check",   "proxy recheck",  "sim run",         "sim swarm",     "sim shrink",
    "sim generate",  "sim record",     "sim replay",      "runs",          "show",
    "events",        "verify",         "export",          "approve",       "reject",
    "cancel",        "recheck",        "migrate",         "webhook serve",
};

struct HelpLine {
  std::string name;
  std::string summary;
  std::size_t summary_column;
};

// The command lines of the top-level help: the lines indented by two spaces, a name of one or
// two words, at least two spaces, then the summary.
std::vector<HelpLine> CommandLines(const std::string& help) {
  std::vector<HelpLine> lines;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("  ") || line.size() < 3 || line[2] == ' ') continue;
    std::size_t gap = line.find("  ", 2);
    std::size_t column = gap == std::string::npos ? line.size() : line.find_first_not_of(' ', gap);
    if (column == std::string::npos) column = line.size();
    lines.push_back({line.substr(2, gap - 2), line.substr(column), column});
  }
  return lines;
}

std::vector<std::string> Words(const std::string& name) {
  std::vector<std::string> words;
  std::istringstream in(name);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

TEST(AgentrtHelpCliTest, HelpListsEveryCommandOnceWithItsSummary) {
  ProcessResult help = Agentrt({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, StartsWith("agentrt: a runtime and deterministic simulator"));
  EXPECT_THAT(help.out, HasSubstr("\nUsage: agentrt COMMAND [ARGS...]\n"));
  EXPECT_THAT(help.out, HasSubstr("the AGENTRT_DB environment variable"));
  EXPECT_THAT(help.out, HasSubstr("\nExit status: 0 ok, 1 failure or finding, 2 usage error.\n"));
  std::vector<HelpLine> lines = CommandLines(help.out);
  std::vector<std::string> names;
  for (const HelpLine& line : lines) names.push_back(line.name);
  // Unordered but counted: a command listed twice fails as surely as one left out.
  EXPECT_THAT(names, UnorderedElementsAreArray(kEveryCommand));
  for (const HelpLine& line : lines) {
    SCOPED_TRACE(line.name);
    EXPECT_THAT(line.summary, Not(IsEmpty()));
    EXPECT_EQ(line.summary_column, lines[0].summary_column) << "summaries line up";
  }
  EXPECT_EQ(Agentrt({"-h"}).out, help.out);
  EXPECT_EQ(Agentrt({"help"}).out, help.out);
  ProcessResult bare = Agentrt({});
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err, help.out);
}

// The other half of "from one table": no help line names a command that does not run.
TEST(AgentrtHelpCliTest, EveryCommandTheHelpListsRunsAndHasItsOwnHelp) {
  for (const HelpLine& line : CommandLines(Agentrt({"--help"}).out)) {
    SCOPED_TRACE(line.name);
    std::vector<std::string> args = Words(line.name);
    args.push_back("--help");
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, StartsWith("Usage: agentrt " + line.name));
  }
}

TEST(AgentrtUnknownCommandCliTest, NearMissExitsTwoNamingTheWordAndSuggestingTheCommand) {
  struct Row {
    std::vector<std::string> args;
    std::string suggestion;
  } rows[] = {
      {{"verfy"}, R"("verify")"},
      {{"verfiy", "--db", "x"}, R"("verify")"},
      {{"VERIFY"}, R"("verify")"},
      {{"aprove", "r"}, R"("approve")"},
      {{"ruuns"}, R"("runs")"},
      // A typed word equal to a family's second word is nearer than a slip of another name.
      {{"run"}, R"("sim run")"},
      {{"cassete", "dump", "c.cassette"}, R"("cassette dump")"},
      {{"casette"}, R"("cassette dump" or "cassette check")"},
      // Both replay a cassette: a typed word is compared with a family's second word too.
      {{"replya", "c.cassette"}, R"("replay" or "sim replay")"},
      {{"dump", "c.cassette"}, R"("cassette dump")"},
      {{"jsn", "hash"}, R"("json hash")"},
      {{"jsn"}, R"("json canon" or "json hash")"},
      {{"webhok", "serve"}, R"("webhook serve")"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.args[0]);
    ProcessResult r = Agentrt(row.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.out, IsEmpty());
    EXPECT_EQ(r.err, "agentrt: unknown command \"" + row.args[0] + "\"; did you mean " +
                         row.suggestion + "?\nRun 'agentrt --help' for the list of commands.\n");
  }
}

TEST(AgentrtUnknownCommandCliTest, FarMissSuggestsNothing) {
  for (std::string word : {"frobnicate", "nonsense", "x", "zq", ""}) {
    SCOPED_TRACE(word);
    ProcessResult r = Agentrt({word});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "agentrt: unknown command \"" + word +
                         "\"\nRun 'agentrt --help' for the list of commands.\n");
  }
}

TEST(AgentrtUnknownCommandCliTest, WordWithControlCharactersIsEscapedAndStillSuggested) {
  ProcessResult r =
      Agentrt({"ver\x1b"
               "ify"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, StartsWith("agentrt: unknown command \"ver\\x1bify\"; did you mean "
                                "\"verify\"?\n"));
  ProcessResult bell = Agentrt({"\a\x7f\n"});
  EXPECT_EQ(bell.exit_code, 2);
  EXPECT_THAT(bell.err, StartsWith("agentrt: unknown command \"\\x07\\x7f \"\n"));
  for (const ProcessResult& p : {r, bell}) {
    EXPECT_EQ(p.err.find_first_of("\x1b\a\x7f"), std::string::npos) << p.err;
  }
}

// What the family's own handler says is not the top level's to change.
TEST(AgentrtUnknownCommandCliTest, UnknownSecondWordIsTheFamilysOwnUsageError) {
  ProcessResult r = Agentrt({"json", "hsah"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "agentrt json: unknown subcommand \"hsah\"\n"
            "Run 'agentrt json --help' for usage.\n");
}

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndAdjacentSwaps) {
  struct Row {
    std::string_view a, b;
    std::size_t distance;
  } rows[] = {
      {"", "", 0},
      {"", "show", 4},
      {"show", "", 4},
      {"verify", "verify", 0},
      {"verfy", "verify", 1},
      {"verifyy", "verify", 1},
      {"verifx", "verify", 1},
      {"verfiy", "verify", 1},
      {"kitten", "sitting", 3},
      // Optimal string alignment edits no byte twice: "ca" to "abc" is 3, not 2.
      {"ca", "abc", 3},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.a) + " / " + std::string(row.b));
    EXPECT_EQ(agentrt::cli::EditDistance(row.a, row.b), row.distance);
    EXPECT_EQ(agentrt::cli::EditDistance(row.b, row.a), row.distance);
  }
}

std::vector<std::string_view> Closest(std::vector<std::string> words) {
  static constexpr std::string_view kNames[] = {"json canon", "json hash", "show",
                                                "runs",       "recheck",   "cassette dump"};
  return agentrt::cli::ClosestCommands(kNames, words);
}

TEST(ClosestCommandsTest, KeepsOnlyTheNearestNamesWithinOneSlipInThree) {
  EXPECT_THAT(Closest({"shwo"}), ElementsAre("show"));
  EXPECT_THAT(Closest({"SHOW"}), ElementsAre("show"));
  EXPECT_THAT(Closest({"rechek"}), ElementsAre("recheck"));
  EXPECT_THAT(Closest({"rn"}), IsEmpty());  // two edits in two letters is another word
  EXPECT_THAT(Closest({"frobnicate"}), IsEmpty());
  EXPECT_THAT(Closest({}), IsEmpty());
  EXPECT_THAT(Closest({std::string(100000, 'x')}), IsEmpty());
}

TEST(ClosestCommandsTest, TwoWordNamesMatchOnEitherWordAndNarrowOnTheSecond) {
  EXPECT_THAT(Closest({"jsn"}), ElementsAre("json canon", "json hash"));
  EXPECT_THAT(Closest({"jsn", "hsh"}), ElementsAre("json hash"));
  EXPECT_THAT(Closest({"jsn", "--help"}), ElementsAre("json canon", "json hash"));
  EXPECT_THAT(Closest({"canon"}), ElementsAre("json canon"));
  EXPECT_THAT(Closest({"casette", "dump"}), ElementsAre("cassette dump"));
}

}  // namespace
}  // namespace agentrt
