// The `agentrt json` and top-level help, run as a user runs them: the built binary as a child
// process, checking output and exit codes.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::filesystem::path WriteTempFile(const std::string& name, const std::string& bytes) {
  std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) /
      ("agentrt_cli_" + std::to_string(::getpid()) + "_" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name);
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

}  // namespace
}  // namespace agentrt
