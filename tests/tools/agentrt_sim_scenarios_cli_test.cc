// `agentrt sim run | swarm | shrink | generate` as a reviewer and a CI job use them.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/json/members.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt::testing {
namespace {

// Reads, then writes; both allowed; completes. `expect` is the scenario's expect block body.
std::string Scenario(const std::string& expect, const std::string& extra = "") {
  return absl::StrCat(R"(
servers {
  name: "fs"
  tools { name: "read" calls { text: "contents" } }
  tools { name: "write" calls { text: "written" } }
  rules_json: '{"read":{"side_effect":"read_only","timeout":"30s"},'
              '"write":{"side_effect":"local_mutation","timeout":"30s"}}'
}
agent {
  steps { call { tool: "fs_read" } }
  steps { call { tool: "fs_write" } }
  steps { complete_json: '{}' }
}
policy { read_only: ALLOW local_mutation: ALLOW }
)",
                      extra, "expect {", expect, "}\n");
}

std::string Write(std::string_view name, std::string_view text) {
  std::string path = test_support::TestFile(name);
  std::ofstream(path) << text;
  return path;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SimScenariosCliTest, RunPrintsAVerdictLineAndASummary) {
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" effects: 2 )"));
  ProcessResult r = Agentrt({"sim", "run", pass});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("PASS  pass  COMPLETED"));
  EXPECT_THAT(r.out, HasSubstr("1 scenarios: 1 passed, 0 failed"));
}

TEST(SimScenariosCliTest, AFailureSaysTheFirstDifferenceAndExitsOne) {
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  std::string fail = Write("fail.textproto", Scenario(R"( status: "completed" effects: 5 )"));
  ProcessResult r = Agentrt({"sim", "run", pass, fail});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("FAIL  fail  effects: expected 5, got 2"));
  EXPECT_THAT(r.out, HasSubstr("2 scenarios: 1 passed, 1 failed"));
}

TEST(SimScenariosCliTest, AScenarioThatDoesNotParseFailsNamingItsLine) {
  std::string bad = Write("bad.textproto", "servers {\n  name: \"fs\"\n  tool { }\n}\n");
  ProcessResult r = Agentrt({"sim", "run", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("bad.textproto:3:"));
}

TEST(SimScenariosCliTest, JsonAndJunitSayTheSame) {
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  std::string fail = Write("fail.textproto", Scenario(R"( status: "failed" )"));
  std::string junit = test_support::TestFile("sim.xml");
  ProcessResult r = Agentrt({"sim", "run", pass, fail, "--json", "--junit", junit});
  EXPECT_EQ(r.exit_code, 1);
  absl::StatusOr<json::Document> doc = json::Parse(r.out);
  ASSERT_OK(doc) << r.out;
  EXPECT_EQ(json::MemberInt(doc->root(), "passed"), 1);
  EXPECT_EQ(json::MemberInt(doc->root(), "failed"), 1);
  std::string xml = ReadAll(junit);
  EXPECT_THAT(xml, HasSubstr(R"(<testsuite name="agentrt-sim" tests="2" failures="1")"));
  EXPECT_THAT(xml, HasSubstr(R"(name="fail")"));
  EXPECT_THAT(xml, HasSubstr(R"(<failure message="status: expected failed, got COMPLETED)"));
}

TEST(SimScenariosCliTest, DbKeepsTheAuditDatabasesForTheOperatorCommands) {
  std::string pass = Write("kept.textproto", Scenario(R"( status: "completed" )"));
  std::string dir = test_support::TestFolder().string();
  ProcessResult r = Agentrt({"sim", "run", pass, "--db", dir});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ProcessResult runs = Agentrt({"runs", "--db", dir + "/kept.db"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr("COMPLETED"));
  ProcessResult verify = Agentrt({"verify", "--db", dir + "/kept.db"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

// Scenarios are written by others: their names never reach outside --db DIR, and a run never
// replaces a file it did not create (the probe: `name: "../victim/prod"` replaced an audit
// database and a file of notes beside it).
TEST(SimScenariosCliTest, RunWithDbNeverWritesOutsideItsFolder) {
  std::filesystem::path root = test_support::TestFolder();
  std::filesystem::create_directories(root / "victim");
  std::ofstream(root / "victim" / "prod.db") << "an audit database";
  std::string hostile = Write("hostile.textproto",
                              Scenario(R"( status: "completed" )", "name: \"../victim/prod\"\n"));
  ProcessResult r = Agentrt({"sim", "run", hostile, "--db", (root / "out").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("hostile.textproto:"));
  EXPECT_THAT(r.out, HasSubstr(": name: it names the scenario's database files, so it holds no "
                               "'/', '\\' or '..'"));
  EXPECT_EQ(ReadAll((root / "victim" / "prod.db").string()), "an audit database");
  EXPECT_FALSE(std::filesystem::exists(root / "victim" / "prod.2.db"));
}

TEST(SimScenariosCliTest, RunWithDbNeverReplacesAFileItDidNotCreate) {
  std::filesystem::path dir = test_support::TestFolder() / "dbs";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "notes.db") << "notes, not a database";
  std::string notes = Write("notes.textproto", Scenario(R"( status: "completed" )"));
  ProcessResult r = Agentrt({"sim", "run", notes, "--db", dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("notes.db exists already; a play never replaces a file"));
  EXPECT_EQ(ReadAll((dir / "notes.db").string()), "notes, not a database");

  // Not even an earlier run's databases: the second run fails and leaves them as they were.
  std::string kept = Write("kept.textproto", Scenario(R"( status: "completed" )"));
  ASSERT_EQ(Agentrt({"sim", "run", kept, "--db", dir.string()}).exit_code, 0);
  std::string before = ReadAll((dir / "kept.db").string());
  ProcessResult again = Agentrt({"sim", "run", kept, "--db", dir.string()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.out, HasSubstr("kept.db exists already"));
  EXPECT_EQ(ReadAll((dir / "kept.db").string()), before);
}

TEST(SimScenariosCliTest, RunRefusesAScenarioPastABoundNamingTheFieldAndTheLimit) {
  std::string huge =
      Write("huge.textproto",
            "servers { name: \"fs\" tools { name: \"t\" calls { text_bytes: 536870912 } } }\n");
  ProcessResult r = Agentrt({"sim", "run", huge});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("huge.textproto:1:"));
  EXPECT_THAT(r.out, HasSubstr("servers[0].tools[0].calls[0].text_bytes: 536870912 is past the "
                               "limit of 20971520 bytes"));
}

TEST(SimScenariosCliTest, SwarmPlaysEverySeedOfItsShard) {
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  ProcessResult all = Agentrt({"sim", "swarm", pass, "--seeds", "12", "--jobs", "2"});
  EXPECT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_THAT(all.out, HasSubstr("12 seeds over 1 scenarios: 0 failed"));
  ProcessResult shard = Agentrt({"sim", "swarm", pass, "--seeds", "12", "--shard", "1/3"});
  EXPECT_EQ(shard.exit_code, 0) << shard.out << shard.err;
  EXPECT_THAT(shard.out, HasSubstr("4 seeds over 1 scenarios (shard 1/3): 0 failed"));
  EXPECT_EQ(Agentrt({"sim", "swarm", pass, "--shard", "3/3"}).exit_code, 2);
}

TEST(SimScenariosCliTest, ARobustExpectationBrokenByASeedIsPrintedWithItsReproductionAndShrinks) {
  // Robust: the run must complete whatever the world does — a dropped answer breaks that.
  std::string fragile =
      Write("fragile.textproto", Scenario(R"( status: "completed" robust: true )"));
  ProcessResult swarm = Agentrt({"sim", "swarm", fragile, "--seeds", "40"});
  EXPECT_EQ(swarm.exit_code, 1) << swarm.out;
  EXPECT_THAT(swarm.out, HasSubstr("reproduce: agentrt sim shrink "));
  std::size_t at = swarm.out.find("--seed ");
  ASSERT_NE(at, std::string::npos);
  std::string seed = swarm.out.substr(at + 7, swarm.out.find('\n', at) - at - 7);
  // `sim run --seed` plays that one seed as the swarm did, and fails the same way.
  std::size_t said = swarm.out.find(absl::StrCat(" seed ", seed, ": "));
  ASSERT_NE(said, std::string::npos) << swarm.out;
  std::size_t from = said + seed.size() + 8;
  std::string why = swarm.out.substr(from, swarm.out.find('\n', from) - from);
  ProcessResult run = Agentrt({"sim", "run", fragile, "--seed", seed});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr(why));

  std::string shrunk = test_support::TestFile("shrunk.textproto");
  ProcessResult shrink = Agentrt({"sim", "shrink", fragile, "--seed", seed, "--write", shrunk});
  ASSERT_EQ(shrink.exit_code, 0) << shrink.out << shrink.err;
  std::size_t with = shrink.out.find("it fails with: ");
  ASSERT_NE(with, std::string::npos) << shrink.out;
  std::string failure = shrink.out.substr(with + 15, shrink.out.find('\n', with) - with - 15);
  // The shrunk scenario fails on its own, with no seed, the same way, by what the seed did.
  ProcessResult replay = Agentrt({"sim", "run", shrunk});
  EXPECT_EQ(replay.exit_code, 1) << replay.out;
  EXPECT_THAT(replay.out, HasSubstr(failure));
  // What the seed did is written out: its perturbations, or the crash it injected.
  EXPECT_THAT(ReadAll(shrunk),
              ::testing::AnyOf(HasSubstr("perturbations {"), HasSubstr("crash {")));
}

// A swarm split over machines: each shard writes its report, `sim merge` makes them the whole
// swarm's (the same failing seeds, in the same order, with their shrink commands; the same
// reach), and a shard whose report is missing fails the merge by name.
TEST(SimScenariosCliTest, MergedShardReportsAreTheWholeSwarmsReport) {
  std::string fragile =
      Write("fragile.textproto", Scenario(R"( status: "completed" robust: true )"));
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  ProcessResult whole = Agentrt({"sim", "swarm", fragile, pass, "--seeds", "30", "--json"});
  ASSERT_EQ(whole.exit_code, 1) << whole.out << whole.err;
  std::vector<std::string> reports;
  for (int i = 0; i < 3; ++i) {
    std::string junit = test_support::TestFile(absl::StrCat("shard", i, ".xml"));
    ProcessResult shard = Agentrt({"sim", "swarm", fragile, pass, "--seeds", "30", "--shard",
                                   absl::StrCat(i, "/3"), "--json", "--junit", junit});
    EXPECT_THAT(ReadAll(junit), HasSubstr("<testsuite name=\"agentrt-sim-swarm\""));
    reports.push_back(Write(absl::StrCat("shard", i, ".json"), shard.out));
  }
  std::string junit = test_support::TestFile("merged.xml");
  ProcessResult merged =
      Agentrt({"sim", "merge", reports[2], reports[0], reports[1], "--json", "--junit", junit});
  EXPECT_EQ(merged.exit_code, 1) << merged.out << merged.err;
  absl::StatusOr<json::Document> a = json::Parse(whole.out);
  absl::StatusOr<json::Document> b = json::Parse(merged.out);
  ASSERT_OK(a) << whole.out;
  ASSERT_OK(b) << merged.out;
  for (std::string_view field : {"failures", "reach", "plays", "files", "unreadable"}) {
    EXPECT_EQ(json::MemberText(a->root(), field), json::MemberText(b->root(), field)) << field;
  }
  EXPECT_THAT(json::MemberText(b->root(), "failures"), HasSubstr("agentrt sim shrink "));
  EXPECT_EQ(json::MemberText(b->root(), "shards"), "[0,1,2]");
  std::string xml = ReadAll(junit);
  EXPECT_THAT(xml, HasSubstr("reproduce: agentrt sim shrink "));
  EXPECT_THAT(xml, HasSubstr("<failure message="));

  ProcessResult lines = Agentrt({"sim", "merge", reports[0], reports[2]});
  EXPECT_EQ(lines.exit_code, 1);
  EXPECT_THAT(lines.out, HasSubstr("MISSING  shard 1/3: no report of it was merged"));
  EXPECT_THAT(lines.out, HasSubstr("(shards 0,2/3; missing 1)"));
  std::string other =
      Write("other.json",
            Agentrt({"sim", "swarm", pass, "--seeds", "31", "--shard", "1/3", "--json"}).out);
  ProcessResult mixed = Agentrt({"sim", "merge", reports[0], other});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_THAT(mixed.err, HasSubstr("other.json is of another swarm than "));
  ProcessResult garbled = Agentrt({"sim", "merge", Write("garbled.json", "{\"format\": 1}")});
  EXPECT_EQ(garbled.exit_code, 1);
  EXPECT_THAT(garbled.err, HasSubstr("garbled.json: format is a number, not a string"));
  EXPECT_EQ(Agentrt({"sim", "merge"}).exit_code, 2);
}

// The shrunk scenario goes where the command line says, beside the scenario by default: a
// symbolic link someone left at that path (the folder holds others' files) is replaced, never
// written through, and the scenario's path stays on its comment line.
TEST(SimScenariosCliTest, ShrinkReplacesALinkAtItsPathInsteadOfWritingThroughIt) {
  std::filesystem::path dir = test_support::TestFolder();
  // Named: a base name with a line break is no scenario name.
  std::string fragile = Write("two\nlines.textproto",
                              Scenario(R"( status: "completed" robust: true )", "name: \"two\"\n"));
  std::ofstream(dir / "precious") << "precious";
  std::filesystem::create_symlink(dir / "precious", dir / "two\nlines.shrunk.textproto");
  // Seed 1 leaves the write waiting for an operator (as `sim swarm` shows).
  ProcessResult r = Agentrt({"sim", "shrink", fragile, "--seed", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadAll((dir / "precious").string()), "precious");
  std::filesystem::path shrunk = dir / "two\nlines.shrunk.textproto";
  EXPECT_FALSE(std::filesystem::is_symlink(shrunk));
  std::vector<std::string> lines = absl::StrSplit(ReadAll(shrunk.string()), '\n');
  ASSERT_GE(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("# Shrunk by: agentrt sim shrink "));
  EXPECT_THAT(lines[0], HasSubstr("two lines.textproto --seed 1"));
  EXPECT_THAT(lines[1], HasSubstr("# It fails with: "));
}

TEST(SimScenariosCliTest, AShrunkScenarioNamedAtTheLengthLimitKeepsItsNameAndReadsBack) {
  std::string name(128, 'n');
  std::string fragile = Write("long.textproto", Scenario(R"( status: "completed" robust: true )",
                                                         absl::StrCat("name: \"", name, "\"\n")));
  std::string shrunk = test_support::TestFile("long.shrunk.textproto");
  ASSERT_EQ(Agentrt({"sim", "shrink", fragile, "--seed", "1", "--write", shrunk}).exit_code, 0);
  ProcessResult r = Agentrt({"sim", "run", shrunk});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("FAIL  ", name, "  status: expected")));
}

TEST(SimScenariosCliTest, ShrinkRefusesWhatDoesNotFail) {
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  ProcessResult r = Agentrt({"sim", "shrink", pass, "--seed", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not fail"));
  EXPECT_EQ(Agentrt({"sim", "shrink", pass}).exit_code, 2);
}

// A swarm of generated worlds: one per seed, judged by the invariants, with what they reached;
// its shards split the seeds; it takes no scenario.
TEST(SimScenariosCliTest, SwarmGeneratePlaysOneWorldPerSeed) {
  std::filesystem::path keep = test_support::TestFolder() / "kept";
  ProcessResult r = Agentrt(
      {"sim", "swarm", "--generate", "--seeds", "40", "--jobs", "2", "--keep", keep.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("40 generated worlds: 0 failed"));
  EXPECT_THAT(r.out, HasSubstr("reach: "));
  EXPECT_THAT(r.out, HasSubstr("with the runtime restarted"));
  EXPECT_TRUE(std::filesystem::is_directory(keep));  // made, and empty: nothing failed
  EXPECT_TRUE(std::filesystem::is_empty(keep));
  ProcessResult shard = Agentrt({"sim", "swarm", "--generate", "--seeds", "40", "--shard", "3/4"});
  EXPECT_THAT(shard.out, HasSubstr("10 generated worlds (shard 3/4): 0 failed"));
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  EXPECT_EQ(Agentrt({"sim", "swarm", "--generate", pass}).exit_code, 2);
  EXPECT_EQ(Agentrt({"sim", "swarm", pass, "--keep", keep.string()}).exit_code, 2);
}

// `sim generate` writes the world a seed stands for: the same every time, and `sim run` plays
// it with the swarm's verdict (the invariants alone), twice over to the same chain head.
TEST(SimScenariosCliTest, AGeneratedWorldIsAScenarioFile) {
  ProcessResult printed = Agentrt({"sim", "generate", "--seed", "17"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_THAT(printed.out, HasSubstr("# Generated by: agentrt sim generate --seed 17\n"));
  EXPECT_THAT(printed.out, HasSubstr("name: \"generated-17\""));
  EXPECT_THAT(printed.out, HasSubstr("invariants_only: true"));
  std::string file = test_support::TestFile("world.textproto");
  ASSERT_EQ(Agentrt({"sim", "generate", "--seed", "17", "--write", file}).exit_code, 0);
  EXPECT_EQ(ReadAll(file), printed.out);
  ProcessResult run = Agentrt({"sim", "run", file});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS  generated-17"));
  EXPECT_EQ(Agentrt({"sim", "generate"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"sim", "generate", "--seed", "1", "extra"}).exit_code, 2);
}

TEST(SimScenariosCliTest, ShrinkGenerateRefusesAWorldThatDoesNotFail) {
  ProcessResult r = Agentrt({"sim", "shrink", "--generate", "--seed", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not fail"));
  EXPECT_EQ(Agentrt({"sim", "shrink", "--generate"}).exit_code, 2);
  std::string pass = Write("pass.textproto", Scenario(R"( status: "completed" )"));
  EXPECT_EQ(Agentrt({"sim", "shrink", "--generate", "--seed", "1", pass}).exit_code, 2);
}

TEST(SimScenariosCliTest, EveryCommandHasHelp) {
  for (const char* sub : {"run", "swarm", "merge", "shrink", "generate"}) {
    ProcessResult r = Agentrt({"sim", sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("Usage: agentrt sim ", sub))) << sub;
  }
}

}  // namespace
}  // namespace agentrt::testing
