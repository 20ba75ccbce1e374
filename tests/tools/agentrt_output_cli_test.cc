// What every `agentrt` command writes, as the operating system takes it: the built binary as a
// child process. A command whose standard output cannot be written (a full disk: /dev/full)
// fails naming why, whatever it found; and whatever a user typed, the environment, a file or a
// database put into a message reaches standard error escaped.
#include <sqlite3.h>
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
#include "runtime/json/utf8.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessOptions;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;

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
      {"mcp login", {"mcp", "login", "--help"}},
      {"sim run", {"sim", "run", Fixture("scenarios/default_policy.textproto")}},
      {"sim swarm",
       {"sim", "swarm", Fixture("scenarios/default_policy.textproto"), "--seeds", "2"}},
      {"sim shrink", {"sim", "shrink", "--help"}},
      {"sim generate", {"sim", "generate", "--seed", "3"}},
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

// Terminal control in what a message echoes: ESC sequences (CSI, an OSC 8 hyperlink), BEL, C1
// controls and bytes that are not UTF-8.
constexpr char kHostile[] =
    "\x1b]8;;https://evil.example/\x07"
    "click\x1b]8;;\x07\x1b[2J\xc2\x9b"
    "31m\xff";

// Standard error carries nothing that drives a terminal: no C0 control but the line ends, no
// DEL, no C1 control, nothing that is not UTF-8.
void ExpectInert(const std::string& err) {
  EXPECT_TRUE(json::IsValidUtf8(err)) << err;
  for (std::size_t i = 0; i < err.size(); ++i) {
    auto c = static_cast<unsigned char>(err[i]);
    EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7F)
        << "control byte " << int{c} << " in " << err;
    bool c1 = c == 0xC2 && i + 1 < err.size() && static_cast<unsigned char>(err[i + 1]) >= 0x80 &&
              static_cast<unsigned char>(err[i + 1]) <= 0x9F;
    EXPECT_FALSE(c1) << "C1 control in " << err;
  }
}

TEST_F(AgentrtOutputCliTest, EveryEchoedValueReachesStandardErrorEscaped) {
  std::string db = Path("runs.db");
  Ok({"demo", "scripted", "--db", db});
  // A database others made: a view named to drive the terminal.
  std::string hostile_db = Path("hostile.db");
  ASSERT_EQ(::system(("cp " + db + " " + hostile_db).c_str()), 0);
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(hostile_db.c_str(), &handle), SQLITE_OK);
  std::string view = std::string("CREATE VIEW \"") + kHostile + "\" AS SELECT 1";
  ASSERT_EQ(sqlite3_exec(handle, view.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(handle);
  WriteMcpConfig();
  Write("schema.json", R"({"type":"object"})");
  std::string missing = Path(kHostile);

  struct Row {
    std::string name;
    std::vector<std::string> args;
    std::vector<std::string> env;
    int exit_code;
  };
  const std::vector<Row> rows = {
      {"an unknown command", {kHostile}, {}, 2},
      {"an unknown flag's name", {"runs", std::string("--") + kHostile, "--db", db}, {}, 2},
      {"an unknown flag's value", {"runs", std::string("--") + kHostile + "=1", "--db", db}, {}, 2},
      {"a rejected flag value", {"runs", "--limit", kHostile, "--db", db}, {}, 2},
      {"a rejected duration", {"export", "--interval", kHostile, "--db", db}, {}, 2},
      {"an unknown subcommand", {"mcp", kHostile}, {}, 2},
      {"an unexpected argument", {"verify", kHostile, "--db", db}, {}, 2},
      {"--db", {"runs", "--db", missing}, {}, 1},
      {"AGENTRT_DB", {"runs"}, {"AGENTRT_DB=" + missing}, 1},
      {"a run id", {"show", kHostile, "--db", db}, {}, 1},
      {"the configuration", {"mcp", "check", "--config", missing}, {}, 1},
      {"a secret file",
       {"webhook", "serve", "--db", db, "--listen", "127.0.0.1:0", "--secret_file", missing},
       {},
       1},
      {"a JSON document", {"json", "canon", missing}, {}, 1},
      {"a schema", {"schema", "check", missing}, {}, 2},
      {"an instance", {"schema", "validate", Path("schema.json"), missing}, {}, 2},
      {"a cassette", {"cassette", "check", missing}, {}, 1},
      {"a scenario", {"sim", "run", missing}, {}, 1},
      {"a database's view", {"runs", "--db", hostile_db}, {}, 1},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    ProcessResult r = AgentrtWith(row.args, {.env = row.env});
    EXPECT_EQ(r.exit_code, row.exit_code) << r.err;
    EXPECT_THAT(r.err, StartsWith("agentrt"));
    EXPECT_THAT(r.err, HasSubstr("\\x1b]8;;https://evil.example/\\x07click")) << r.err;
    ExpectInert(r.err);
  }
}

}  // namespace
}  // namespace agentrt
