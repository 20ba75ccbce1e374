// What every `agentrt` command writes, as the operating system takes it: the built binary as a
// child process. A command whose standard output cannot be written (a full disk: /dev/full)
// fails naming why, whatever it found.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/json_object.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessOptions;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ProcessResult AgentrtWith(std::vector<std::string> args, const ProcessOptions& options) {
  args.insert(args.begin(), AGENTRT_BIN);
  return RunProcess(args, options);
}

std::string Fixture(const std::string& path) {
  return std::string(AGENTRT_SOURCE_DIR) + "/fixtures/" + path;
}

class AgentrtOutputCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder().string();
    ::unsetenv("AGENTRT_DB");  // the child inherits our environment
  }
  std::string Path(const std::string& name) { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary | std::ios::trunc) << text;
    ::chmod(Path(name).c_str(), 0600);
  }
  // A scripted MCP server (tests/mcp/fake_mcp_server.cc) with one read-only tool, configured
  // owner-only in config.json, its runs in runs.db.
  void WriteMcpConfig() {
    Write("tools.json",
          R"({"tools":[{"name":"read_file","description":"Read a file.","inputSchema":)"
          R"({"type":"object"}}]})");
    Write("call-read_file.json", R"({"content":[{"type":"text","text":"the contents"}]})");
    Write("config.json",
          json::JsonObject()
              .String("database", Path("mcp.db"))
              .String("session", "cli")
              .Raw("servers",
                   "[" +
                       json::JsonObject()
                           .String("name", "fs")
                           .Raw("command",
                                absl::StrCat("[", json::JsonString(AGENTRT_FAKE_MCP_SERVER),
                                             R"(,"scripted",)", json::JsonString(dir_), "]"))
                           .String("default_timeout", "5s")
                           .String("manifest", Path("fs.manifest.json"))
                           .Raw("rules", R"({"read_file":{"side_effect":"read_only"}})")
                           .Build() +
                       "]")
              .Build());
  }
  // Runs `agentrt ARGS`, which must succeed; returns its standard output.
  std::string Ok(const std::vector<std::string>& args) {
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << "\n" << r.out << r.err;
    return r.out;
  }
  // The run id of a demo's first line, "run ID in PATH".
  static std::string RunOf(const std::string& demo_out) {
    std::vector<std::string> words = absl::StrSplit(demo_out, ' ');
    return words.size() > 1 ? words[1] : "";
  }

  std::string dir_;
};

// Each command with arguments it succeeds with, its standard output on a full device: it exits
// 1 and says so, naming the command and the reason. The commands that serve or need the real
// Node servers print their help, which is output like any other.
TEST_F(AgentrtOutputCliTest, EveryCommandFailsNamingTheErrorWhenItsOutputCannotBeWritten) {
  std::string db = Path("runs.db");
  std::string done = RunOf(Ok({"demo", "scripted", "--db", db}));
  std::vector<std::string> waiting;
  for (int i = 0; i < 3; ++i)
    waiting.push_back(RunOf(Ok({"demo", "scripted", "--db", db, "--approval"})));
  Write("doc.json", R"({"b":1,"a":[true,null]})");
  Write("schema.json", R"({"type":"object"})");
  WriteMcpConfig();
  Ok({"mcp", "pin", "--config", Path("config.json")});
  Ok({"demo", "model", "--db", Path("model.db"), "--record", Path("model.cassette")});

  struct Row {
    std::string name;  // as the error names it
    std::vector<std::string> args;
  };
  const std::vector<Row> rows = {
      {"--help", {"--help"}},
      {"json canon", {"json", "canon", Path("doc.json")}},
      {"json hash", {"json", "hash", Path("doc.json")}},
      {"schema validate", {"schema", "validate", Path("schema.json"), Path("doc.json")}},
      {"schema check", {"schema", "check", Path("schema.json")}},
      {"demo scripted", {"demo", "scripted", "--db", Path("demo.db")}},
      {"demo model",
       {"demo", "model", "--db", Path("replayed.db"), "--replay", Path("model.cassette")}},
      {"demo mcp", {"demo", "mcp", "--help"}},
      {"demo world", {"demo", "world", "--db", Path("world.db")}},
      {"cassette dump", {"cassette", "dump", Fixture("cassettes/filesystem.cassette")}},
      {"cassette check", {"cassette", "check", Fixture("cassettes/filesystem.cassette")}},
      {"replay", {"replay", Path("model.cassette"), "--db", Path("replay.db")}},
      {"mcp pin", {"mcp", "pin", "--config", Path("config.json")}},
      {"mcp check", {"mcp", "check", "--config", Path("config.json")}},
      {"mcp tools", {"mcp", "tools", "--config", Path("config.json")}},
      {"mcp call",
       {"mcp", "call", "--config", Path("config.json"), "--tool", "fs_read_file", "--args", "{}"}},
      {"sim run", {"sim", "run", Fixture("scenarios/default_policy.textproto")}},
      {"sim swarm",
       {"sim", "swarm", Fixture("scenarios/default_policy.textproto"), "--seeds", "2"}},
      {"sim shrink", {"sim", "shrink", "--help"}},
      {"sim record", {"sim", "record", "--help"}},
      {"sim replay", {"sim", "replay", Fixture("cassettes/filesystem.cassette")}},
      {"runs", {"runs", "--db", db}},
      {"show", {"show", done, "--db", db}},
      {"events", {"events", done, "--db", db}},
      {"verify", {"verify", "--db", db}},
      {"export", {"export", "--db", db, "--once"}},
      {"approve", {"approve", waiting[0], "--db", db, "--by", "ops", "--yes"}},
      {"reject", {"reject", waiting[1], "--db", db, "--by", "ops", "--yes"}},
      {"cancel", {"cancel", waiting[2], "--db", db, "--by", "ops", "--yes"}},
      {"recheck", {"recheck", done, "--db", db}},
      {"webhook", {"webhook", "--help"}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(absl::StrJoin(row.args, " "));
    ProcessResult r = AgentrtWith(row.args, {.stdout_file = "/dev/full"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("agentrt " + row.name +
                                 ": cannot write to standard output: No space left on device\n"));
  }
  // The same commands on a pipe that takes everything are fine.
  ProcessResult verify = Agentrt({"verify", "--db", db});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

}  // namespace
}  // namespace agentrt
