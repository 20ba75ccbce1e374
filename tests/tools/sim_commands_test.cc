// `agentrt sim run|swarm|shrink` called in-process with their options (sim_scenarios.h): what
// each prints, the files it writes and its exit code, without starting the binary (its own
// end-to-end tests are agentrt_sim_scenarios_cli_test).
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/atomic_file.h"
#include "runtime/base/file_util.h"
#include "tests/sim/reads_scenario.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/string_io.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/sim_scenarios.h"

namespace agentrt::cli {
namespace {

using test_support::TestFile;
using test_support::TestFolder;
using testing::StringIo;

const std::string kFixture =
    std::string(AGENTRT_SOURCE_DIR) + "/fixtures/scenarios/default_policy.textproto";

// Every seed fails it, the same way.
const std::string kAlwaysFailing = absl::StrCat(
    sim::test_scenarios::kReadsScenario, sim::test_scenarios::kAlwaysFailingExpectation, "\n");

TEST(SimRunCommandTest, PrintsOneJsonObjectAndPasses) {
  StringIo streams;
  int exit = SimRun({.paths = {kFixture}, .json = true}, streams.io());
  EXPECT_EQ(exit, kExitOk);
  EXPECT_THAT(streams.out(), StartsWith("{\"failed\":0,\"passed\":1,\"scenarios\":[{"));
}

TEST(SimRunCommandTest, KeepsBothPlaysDatabasesInTheFolderItCreates) {
  std::filesystem::path dir = TestFolder() / "dbs";
  StringIo streams;
  int exit = SimRun({.paths = {kFixture}, .db = dir.string()}, streams.io());
  EXPECT_EQ(exit, kExitOk) << streams.out();
  EXPECT_THAT(streams.out(), HasSubstr("1 scenarios: 1 passed, 0 failed"));
  EXPECT_TRUE(std::filesystem::exists(dir / "default_policy.db"));
  EXPECT_TRUE(std::filesystem::exists(dir / "default_policy.2.db"));
}

TEST(SimRunCommandTest, UnderASeedThePerturbedPlaysMustAgree) {
  StringIo streams;
  EXPECT_EQ(SimRun({.paths = {kFixture}, .seed = 3}, streams.io()), kExitOk) << streams.out();
  EXPECT_THAT(streams.out(), HasSubstr("PASS  default_policy"));
}

TEST(SimRunCommandTest, AFailingScenarioExitsOne) {
  std::string file = TestFile("failing.textproto");
  ASSERT_OK(WriteFileAtomically(file, kAlwaysFailing, "scenario"));
  StringIo streams;
  EXPECT_EQ(SimRun({.paths = {file}}, streams.io()), kExitFailure);
  EXPECT_THAT(streams.out(), HasSubstr("FAIL  reads  status: expected cancelled"));
}

TEST(SimSwarmCommandTest, PrintsEachFailingSeedWithItsReproduction) {
  std::string file = TestFile("failing.textproto");
  ASSERT_OK(WriteFileAtomically(file, kAlwaysFailing, "scenario"));
  StringIo streams;
  int exit =
      SimSwarm({.paths = {file, kFixture}, .seeds = 2, .jobs = 2, .shard = "0/1"}, streams.io());
  EXPECT_EQ(exit, kExitFailure);
  EXPECT_THAT(streams.out(), HasSubstr("FAIL  reads seed 1: status: expected cancelled"));
  EXPECT_THAT(streams.out(), HasSubstr("reproduce: agentrt sim shrink " + file + " --seed 2"));
  EXPECT_THAT(streams.out(), HasSubstr("4 seeds over 2 scenarios: 2 failed, 0 unreadable"));
}

TEST(SimSwarmCommandTest, ABadShardOrJobCountIsAUsageError) {
  StringIo streams;
  EXPECT_EQ(SimSwarm({.paths = {kFixture}, .shard = "2/2"}, streams.io()), kExitUsage);
  EXPECT_EQ(SimSwarm({.paths = {kFixture}, .jobs = 0}, streams.io()), kExitUsage);
  EXPECT_EQ(SimSwarm({.paths = {kFixture}, .seeds = 0}, streams.io()), kExitUsage);
  EXPECT_EQ(streams.out(), "");
  EXPECT_EQ(streams.err(),
            "agentrt sim swarm: --shard must be I/K with 0 <= I < K\n"
            "Run 'agentrt sim swarm --help' for usage.\n"
            "agentrt sim swarm: --jobs must be from 1 to 256\n"
            "Run 'agentrt sim swarm --help' for usage.\n"
            "agentrt sim swarm: --seeds must be at least 1\n"
            "Run 'agentrt sim swarm --help' for usage.\n");
}

TEST(SimShrinkCommandTest, WritesTheShrunkScenarioBesideTheOriginal) {
  std::string file = TestFile("failing.textproto");
  ASSERT_OK(WriteFileAtomically(file, kAlwaysFailing, "scenario"));
  StringIo streams;
  EXPECT_EQ(SimShrink({.scenario = file, .seed = 4}, streams.io()), kExitOk);
  std::string shrunk_path = TestFile("failing.shrunk.textproto");
  EXPECT_THAT(streams.out(), HasSubstr("to " + shrunk_path));
  absl::StatusOr<std::string> shrunk = ReadFile(shrunk_path);
  ASSERT_OK(shrunk);
  EXPECT_THAT(*shrunk, StartsWith("# Shrunk by: agentrt sim shrink " + file + " --seed 4\n"));
  EXPECT_THAT(*shrunk, HasSubstr("name: \"reads-seed-4-shrunk\""));
}

TEST(SimShrinkCommandTest, WithoutASeedIsAUsageError) {
  StringIo streams;
  EXPECT_EQ(SimShrink({.scenario = kFixture}, streams.io()), kExitUsage);
  EXPECT_THAT(streams.err(), StartsWith("agentrt sim shrink: --seed is required\n"));
}

}  // namespace
}  // namespace agentrt::cli
