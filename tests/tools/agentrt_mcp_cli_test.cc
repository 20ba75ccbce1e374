// `agentrt mcp pin|check|tools|call` and `agentrt demo mcp`, run as an operator runs them: the
// built binary as a child process, over a configuration file and a scripted MCP server
// (tests/mcp/fake_mcp_server.cc), and the demonstration against the real filesystem server.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "tests/support/process_gone.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

extern char** environ;

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;

constexpr char kTools[] =
    R"({"tools":[{"name":"read_file","description":"Read a file.","annotations":)"
    R"({"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"path":)"
    R"({"type":"string"}},"required":["path"]}},{"name":"write_file","description":)"
    R"("Write a file.","inputSchema":{"type":"object","properties":{"path":{"type":)"
    R"("string"},"text":{"type":"string"}},"required":["path","text"]}}]})";

class AgentrtMcpCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder().string();
    Write("tools.json", kTools);
    Write("call-read_file.json", R"({"content":[{"type":"text","text":"the contents"}]})");
    Write("call-write_file.json", R"({"content":[{"type":"text","text":"written"}]})");
    WriteConfig(R"({"read_file":{"side_effect":"read_only","timeout":"5s"},)"
                R"("write_file":{"side_effect":"local_mutation"}})");
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name, std::ios::binary | std::ios::trunc) << text;
  }
  // The configuration, owner-only, with `rules` for the one server and a policy that sends
  // local mutations to an operator. The server is the scripted fake unless `command` (a JSON
  // array) names another.
  void WriteConfig(const std::string& rules, const std::string& command = "") {
    std::string config =
        json::JsonObject()
            .String("database", "runs.db")
            .String("session", "cli")
            .Raw("policy", R"({"local_mutation":"require_approval"})")
            .Raw("servers",
                 "[" +
                     json::JsonObject()
                         .String("name", "fs")
                         .Raw("command",
                              !command.empty()
                                  ? command
                                  : absl::StrCat(R"([")", AGENTRT_FAKE_MCP_SERVER,
                                                 R"(","scripted",)", json::JsonString(dir_), "]"))
                         .String("default_timeout", "5s")
                         .String("manifest", "fs.manifest.json")
                         .Raw("rules", rules)
                         .Build() +
                     "]")
            .Build();
    Write("config.json", config);
    ::chmod(Config().c_str(), 0600);
  }
  std::string Config() { return dir_ + "/config.json"; }
  ProcessResult Mcp(std::vector<std::string> args) {
    args.insert(args.begin(), "mcp");
    return Agentrt(args);
  }

  std::string dir_;
};

TEST_F(AgentrtMcpCliTest, PinWritesAPrivateManifestAndListsTheHintsItClassifiesNothingWith) {
  ProcessResult pin = Mcp({"pin", "--config", Config()});
  ASSERT_EQ(pin.exit_code, 0) << pin.err;
  EXPECT_THAT(pin.out, HasSubstr("fs: pinned 2 tools to " + dir_ + "/fs.manifest.json"));
  EXPECT_THAT(pin.out, HasSubstr("  read_file"));
  EXPECT_THAT(pin.out, HasSubstr("read-only"));
  struct stat st;
  ASSERT_EQ(::stat((dir_ + "/fs.manifest.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AgentrtMcpCliTest, CheckIsOfflineAndFailsOnARefusalOrAStrangeRule) {
  ProcessResult missing = Mcp({"check", "--config", Config()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("pin it first"));
  ASSERT_EQ(Mcp({"pin", "--config", Config()}).exit_code, 0);
  // Offline: the server cannot even start any more, and the check still runs.
  std::filesystem::remove(dir_ + "/tools.json");
  ProcessResult ok = Mcp({"check", "--config", Config()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out,
            "fs: registered read_file as fs_read_file (read_only)\n"
            "fs: registered write_file as fs_write_file (local_mutation)\n"
            "2 registered, 0 refused, 0 unclassified across 1 server\n");
  WriteConfig(R"({"read_file":{"side_effect":"read_only","rename":"no spaces please"}})");
  ProcessResult refused = Mcp({"check", "--config", Config()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.out, HasSubstr("fs: refused read_file: the name \"no spaces please\""));
  WriteConfig(R"({"read_fil":{"side_effect":"read_only"}})");
  ProcessResult strange = Mcp({"check", "--config", Config()});
  EXPECT_EQ(strange.exit_code, 1);
  EXPECT_THAT(strange.err, HasSubstr("rules name tools the manifest does not pin: \"read_fil\""));
}

// Issue 22: server `a_b` with tool `c` and server `a` with tool `b_c` both make `a_b_c`. `check`
// reported both registered, and `call` then failed with a bare `duplicate tool "a_b_c"`. The
// later server's tool is refused naming the holder; every other tool still works.
TEST_F(AgentrtMcpCliTest, TwoServersClaimingOneNameRefuseTheLaterToolNamingTheHolder) {
  auto server = [&](const std::string& name, const std::string& tools, const std::string& rules) {
    std::string folder = dir_ + "/" + name;
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/tools.json") << tools;
    for (const char* tool : {"c", "d"}) {
      std::ofstream(folder + "/call-" + tool + ".json")
          << absl::StrCat(R"({"content":[{"type":"text","text":")", name, " ", tool, R"("}]})");
    }
    return json::JsonObject()
        .String("name", name)
        .Raw("command", absl::StrCat(R"([")", AGENTRT_FAKE_MCP_SERVER, R"(","scripted",)",
                                     json::JsonString(folder), "]"))
        .String("default_timeout", "5s")
        .String("manifest", name + ".manifest.json")
        .Raw("rules", rules)
        .Build();
  };
  auto tool = [](const char* name) {
    return absl::StrCat(R"({"name":")", name, R"(","inputSchema":{"type":"object"}})");
  };
  constexpr char kReadOnly[] = R"({"side_effect":"read_only"})";
  std::string a_b = server("a_b", absl::StrCat(R"({"tools":[)", tool("c"), "]}"),
                           absl::StrCat(R"({"c":)", kReadOnly, "}"));
  std::string a = server("a", absl::StrCat(R"({"tools":[)", tool("b_c"), ",", tool("d"), "]}"),
                         absl::StrCat(R"({"b_c":)", kReadOnly, R"(,"d":)", kReadOnly, "}"));
  Write("config.json", json::JsonObject()
                           .String("database", "runs.db")
                           .String("session", "cli")
                           .Raw("servers", absl::StrCat("[", a_b, ",", a, "]"))
                           .Build());
  ::chmod(Config().c_str(), 0600);
  ProcessResult pin = Mcp({"pin", "--config", Config()});
  ASSERT_EQ(pin.exit_code, 0) << pin.err;

  ProcessResult check = Mcp({"check", "--config", Config()});
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_EQ(check.out,
            "a_b: registered c as a_b_c (read_only)\n"
            "a: registered d as a_d (read_only)\n"
            "a: refused b_c: the name \"a_b_c\" is already taken by tool \"c\" of server \"a_b\"\n"
            "2 registered, 1 refused, 0 unclassified across 2 servers\n");

  ProcessResult held = Mcp({"call", "--config", Config(), "--tool", "a_b_c"});
  EXPECT_EQ(held.exit_code, 0) << held.err;
  EXPECT_THAT(held.out, HasSubstr("a_b c"));
  ProcessResult other = Mcp({"call", "--config", Config(), "--tool", "a_d"});
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_THAT(other.out, HasSubstr("a d"));
  ProcessResult unknown = Mcp({"call", "--config", Config(), "--tool", "a_x"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("a: refused b_c: the name \"a_b_c\" is already taken by "
                                     "tool \"c\" of server \"a_b\""));
}

TEST_F(AgentrtMcpCliTest, ToolsShowsWhetherEachToolStillMatchesItsPinAndWritesNothing) {
  ProcessResult before = Mcp({"tools", "--config", Config()});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_THAT(before.out, HasSubstr("no manifest"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/fs.manifest.json"));
  ASSERT_EQ(Mcp({"pin", "--config", Config()}).exit_code, 0);
  Write("tools.json",
        std::string(kTools).replace(std::string(kTools).find("Read a file."), 12, "Read a file!"));
  ProcessResult after = Mcp({"tools", "--config", Config()});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_THAT(after.out, HasSubstr("description changed"));
  EXPECT_THAT(after.out, HasSubstr("same as pinned"));
  ProcessResult json = Mcp({"tools", "--config", Config(), "--json"});
  EXPECT_THAT(json.out, HasSubstr(R"("pin":"description changed")"));
}

TEST_F(AgentrtMcpCliTest, ACallIsAGovernedRunThatPausesForAnOperatorAndResumesExactlyIt) {
  ASSERT_EQ(Mcp({"pin", "--config", Config()}).exit_code, 0);
  ProcessResult read =
      Mcp({"call", "--config", Config(), "--tool", "fs_read_file", "--args", R"({"path":"a"})"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_THAT(read.out, HasSubstr("COMPLETED (goal_completed)"));
  EXPECT_THAT(read.out, HasSubstr(R"("the contents")"));

  ProcessResult write = Mcp({"call", "--config", Config(), "--tool", "fs_write_file", "--args",
                             R"({"path":"a","text":"t"})"});
  ASSERT_EQ(write.exit_code, 0) << write.err;
  EXPECT_THAT(write.out, HasSubstr("WAITING_FOR_APPROVAL"));
  std::string run = std::vector<std::string>(absl::StrSplit(write.out, ' '))[1];
  std::string db = dir_ + "/runs.db";
  EXPECT_THAT(write.out, HasSubstr("agentrt approve " + run + " --db " + db));
  // Nothing reached the server before the approval.
  std::ifstream calls_before(dir_ + "/calls.log");
  std::string log((std::istreambuf_iterator<char>(calls_before)), {});
  EXPECT_THAT(log, Not(HasSubstr("write_file")));
  ProcessResult approved = Agentrt({"approve", run, "--db", db, "--by", "test", "--yes"});
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  ProcessResult resumed = Mcp({"call", "--config", Config(), "--resume", run});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("COMPLETED"));
  std::ifstream calls_after(dir_ + "/calls.log");
  log.assign((std::istreambuf_iterator<char>(calls_after)), {});
  EXPECT_THAT(log, HasSubstr(R"({"arguments":{"path":"a","text":"t"},"name":"write_file"})"));
  ProcessResult verify = Agentrt({"verify", "--db", db});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
}

TEST_F(AgentrtMcpCliTest, RefusalsNameWhatIsWrong) {
  ASSERT_EQ(Mcp({"pin", "--config", Config()}).exit_code, 0);
  ProcessResult unknown = Mcp({"call", "--config", Config(), "--tool", "fs_nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no registered tool is named \"fs_nope\""));
  ProcessResult bad_args =
      Mcp({"call", "--config", Config(), "--tool", "fs_read_file", "--args", R"({"path":7})"});
  // Refused by the tool's schema before anything reaches the server.
  EXPECT_EQ(bad_args.exit_code, 1);
  EXPECT_THAT(bad_args.err, HasSubstr("arguments do not match schema: /path: expected string"));
  ::chmod(Config().c_str(), 0666);
  ProcessResult open = Mcp({"check", "--config", Config()});
  EXPECT_EQ(open.exit_code, 1);
  EXPECT_THAT(open.err, HasSubstr("which lets its group or others write it"));
}

TEST_F(AgentrtMcpCliTest, UsageErrorsExitTwoAndEveryHelpExitsZero) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"mcp"},
                                             {"mcp", "nope"},
                                             {"mcp", "call", "--config", "c"},
                                             {"mcp", "pin", "--config", "c", "extra"},
                                             {"mcp", "check", "--tool", "x"}}) {
    SCOPED_TRACE(::testing::PrintToString(args));
    EXPECT_EQ(Agentrt(args).exit_code, 2);
  }
  // A missing --config is the command line's fault, whatever the subcommand.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"mcp", "pin"}, {"mcp", "check"}, {"mcp", "tools"}, {"mcp", "call", "--tool", "t"}}) {
    SCOPED_TRACE(::testing::PrintToString(args));
    ProcessResult r = Agentrt(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("--config FILE is required\nRun 'agentrt mcp "));
  }
  for (const char* sub : {"pin", "check", "tools", "call"}) {
    EXPECT_EQ(Agentrt({"mcp", sub, "--help"}).exit_code, 0) << sub;
  }
  EXPECT_EQ(Agentrt({"demo", "mcp", "--help"}).exit_code, 0);
}

// The MCP demonstration, for real: the filesystem server in a sandbox; the write
// waits for an operator and, once approved, writes exactly the shown bytes.
TEST_F(AgentrtMcpCliTest, DemoMcpPausesTheWriteAndResumesExactlyTheApprovedOne) {
  std::string db = dir_ + "/demo/runs.db";
  std::filesystem::create_directories(dir_ + "/demo");
  ProcessResult paused = Agentrt({"demo", "mcp", "--db", db});
  ASSERT_EQ(paused.exit_code, 0) << paused.out << paused.err;
  EXPECT_THAT(paused.out, HasSubstr("fs: registered write_file as fs_write_file (local_mutation)"));
  EXPECT_THAT(paused.out, HasSubstr("approval.requested"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/demo/mcp-sandbox/notes.md"));
  std::string run;
  for (absl::string_view line : absl::StrSplit(paused.out, '\n')) {
    if (absl::StartsWith(line, "run ") && absl::StrContains(line, "WAITING_FOR_APPROVAL")) {
      run = std::string(line.substr(4, 32));
    }
  }
  ASSERT_EQ(run.size(), 32u) << paused.out;
  // The sandbox is the agent's alone: 0700, its README 0600.
  struct stat st;
  ASSERT_EQ(::stat((dir_ + "/demo/mcp-sandbox").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((dir_ + "/demo/mcp-sandbox/README.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A sandbox that exists is left as it is: the operator's README stays.
  Write("demo/mcp-sandbox/README.md", "the operator's own words\n");
  ASSERT_EQ(Agentrt({"approve", run, "--db", db, "--by", "test", "--yes"}).exit_code, 0);
  ProcessResult resumed = Agentrt({"demo", "mcp", "--db", db, "--resume", run});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("COMPLETED (goal_completed) after 3 steps"));
  std::ifstream notes(dir_ + "/demo/mcp-sandbox/notes.md");
  std::string text((std::istreambuf_iterator<char>(notes)), {});
  EXPECT_THAT(text, HasSubstr("only after one approved exactly this text"));
  std::ifstream readme(dir_ + "/demo/mcp-sandbox/README.md");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(readme)), {}),
            "the operator's own words\n");
}

TEST_F(AgentrtMcpCliTest, DemoMcpSaysHowToInstallAMissingServerAndNamesAnUnknownRun) {
  std::string db = dir_ + "/runs.db";
  ProcessResult missing = Agentrt({"demo", "mcp", "--db", db, "--servers", dir_ + "/nowhere"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr(dir_ + "/nowhere/server-filesystem/dist/index.js"));
  EXPECT_THAT(missing.err, HasSubstr("npm ci --ignore-scripts"));

  ProcessResult unknown =
      Agentrt({"demo", "mcp", "--db", db, "--resume", "0123456789abcdef0123456789abcdef"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.out;
  EXPECT_THAT(unknown.err, HasSubstr("0123456789abcdef0123456789abcdef"));
}

// `demo mcp --db` used to create the database's missing folders (issue 22): nothing makes a
// folder the operator did not ask for; the error names the folder.
TEST_F(AgentrtMcpCliTest, DemoMcpRefusesADatabaseInAMissingFolderAndCreatesNothing) {
  std::string folder = dir_ + "/missing/deeper";
  ProcessResult refused = Agentrt({"demo", "mcp", "--db", folder + "/runs.db"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("the database's folder " + folder + " does not exist"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/missing"));
}

// Issue 22: agentrt SIGKILLed during a call to a server started through a wrapper script (the
// server the script's child, not in its place) left the server's grandchild, which reads no
// stdin and ignores SIGTERM, SIGINT and SIGHUP, running under PID 1.
TEST_F(AgentrtMcpCliTest, AgentrtKilledDuringACallLeavesNoServerProcessBehind) {
  // Once the FIFO exists, the script's child sends its stderr there: first the script's pid and
  // its own, then, as the server, its grandchild's ("grandchild N").
  std::string started = dir_ + "/started";
  Write("server.sh", absl::StrCat("#!/bin/sh\n/bin/sh -c '[ -p \"$0\" ] && exec 2>\"$0\"; "
                                  "echo \"$PPID $$\" >&2; exec \"$1\" grandchild' '",
                                  started, "' '", AGENTRT_FAKE_MCP_SERVER, "'\nexit $?\n"));
  ASSERT_EQ(::chmod((dir_ + "/server.sh").c_str(), 0700), 0);
  WriteConfig(R"({"read_file":{"side_effect":"read_only","timeout":"120s"}})",
              "[" + json::JsonString(dir_ + "/server.sh") + "]");
  ProcessResult pin = Mcp({"pin", "--config", Config()});
  ASSERT_EQ(pin.exit_code, 0) << pin.err;
  ASSERT_EQ(::mkfifo(started.c_str(), 0600), 0);
  std::vector<std::string> args = {AGENTRT_BIN,    "mcp",    "call",
                                   "--config",     Config(), "--tool",
                                   "fs_read_file", "--args", R"({"path":"a"})"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t agentrt = 0;
  ASSERT_EQ(posix_spawn(&agentrt, argv[0], &quiet, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&quiet);

  int fifo = ::open(started.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fifo, 0);
  std::string said;
  while (std::count(said.begin(), said.end(), '\n') < 2) {
    pollfd readable = {fifo, POLLIN, 0};
    char c;
    if (::poll(&readable, 1, 30'000) != 1 || ::read(fifo, &c, 1) != 1) break;
    said += c;
  }
  ::close(fifo);
  ::kill(agentrt, SIGKILL);
  ::waitpid(agentrt, nullptr, 0);
  std::vector<std::string> words = absl::StrSplit(said, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  pid_t script = 0, server = 0, grandchild = 0;
  ASSERT_EQ(words.size(), 4u) << said;
  ASSERT_TRUE(absl::SimpleAtoi(words[0], &script) && absl::SimpleAtoi(words[1], &server) &&
              words[2] == "grandchild" && absl::SimpleAtoi(words[3], &grandchild))
      << said;
  EXPECT_TRUE(test_support::ProcessGoneWithin(grandchild, absl::Seconds(5)));
  EXPECT_TRUE(test_support::ProcessGoneWithin(server, absl::Seconds(5)));
  EXPECT_TRUE(test_support::ProcessGoneWithin(script, absl::Seconds(5)));
}

TEST_F(AgentrtMcpCliTest, WhatAServerChoseReachesTheTerminalEscapedOnOneLine) {
  // A description with an OSC 8 hyperlink, a bell, a carriage return and a CSI sequence.
  std::string hostile =
      "Read.\x1b]8;;https://evil.example/\x07"
      "click\x1b]8;;\x07\r\x1b[2Kok";
  Write("tools.json",
        R"({"tools":[{"name":"read_file","description":)" + json::JsonString(hostile) +
            R"(,"inputSchema":{"type":"object"}},{"name":"write\u001b[31m","inputSchema":)"
            R"({"type":"object"}}]})");
  ProcessResult pin = Mcp({"pin", "--config", Config()});
  ProcessResult tools = Mcp({"tools", "--config", Config()});
  for (const ProcessResult* r : {&pin, &tools}) {
    std::string all = r->out + r->err;
    EXPECT_EQ(all.find_first_of("\x1b\x07\r"), std::string::npos) << all;
    EXPECT_THAT(all, HasSubstr("Read."));
  }
  // One line per tool: the hostile name cannot start a line of its own.
  std::vector<std::string> lines = absl::StrSplit(tools.out, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 3u) << tools.out;  // the header and two tools
}

// What a call's result holds is the server's choice: text output escapes it like every other
// server-chosen string; --json keeps the recorded canonical JSON as it is, for tools to read.
TEST_F(AgentrtMcpCliTest, ACallsResultIsEscapedOnTheTerminalAndRawInJson) {
  struct Hostile {
    std::string name;
    std::string raw;
    std::string shown;
  };
  const std::vector<Hostile> characters = {
      {"right-to-left override U+202E", "\xE2\x80\xAE", "\\u{202e}"},
      {"C1 control sequence introducer U+009B", "\xC2\x9B", "\\x9b"},
      {"DEL", "\x7F", "\\x7f"},
      {"zero-width space U+200B", "\xE2\x80\x8B", "\\u{200b}"},
      {"line separator U+2028", "\xE2\x80\xA8", "\\u{2028}"},
  };
  std::string text = "ok";
  for (const Hostile& c : characters) text += c.raw + "31m";
  Write("call-read_file.json",
        R"({"content":[{"type":"text","text":)" + json::JsonString(text) + "}]}");
  ASSERT_EQ(Mcp({"pin", "--config", Config()}).exit_code, 0);
  std::vector<std::string> call = {"call",         "--config", Config(),         "--tool",
                                   "fs_read_file", "--args",   R"({"path":"a"})"};

  ProcessResult shown = Mcp(call);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  for (const Hostile& c : characters) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(shown.out, Not(HasSubstr(c.raw)));
    EXPECT_THAT(shown.out, HasSubstr(c.shown + "31m"));
  }

  call.push_back("--json");
  ProcessResult machine = Mcp(call);
  ASSERT_EQ(machine.exit_code, 0) << machine.err;
  absl::StatusOr<json::Document> parsed = json::Parse(machine.out);
  ASSERT_OK(parsed) << machine.out;
  EXPECT_EQ(parsed->root().Find("status")->string_value(), "COMPLETED");
  std::optional<json::Value> result = parsed->root().Find("result");
  ASSERT_TRUE(result.has_value()) << machine.out;
  EXPECT_THAT(machine.out, HasSubstr(json::JsonString(text)));
}

TEST(FixtureServersTest, ArePinnedToExactVersionsAndLockedByIntegrity) {
  // The real servers the tests and the demo start, and the real hosts the proxy's tests put in
  // front of them (the SDK's client, the Inspector's CLI): exact versions, and every installed
  // package locked with a SHA-512 integrity, so `npm ci` installs exactly what was reviewed.
  auto read = [](const std::string& name) {
    std::ifstream in(std::string(AGENTRT_SOURCE_DIR) + "/fixtures/servers/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  absl::StatusOr<json::Document> package = json::Parse(read("package.json"));
  ASSERT_OK(package);
  std::optional<json::Value> dependencies = package->root().Find("dependencies");
  ASSERT_TRUE(dependencies.has_value());
  ASSERT_EQ(dependencies->size(), 5u);
  for (std::size_t i = 0; i < dependencies->size(); ++i) {
    std::string version(dependencies->member(i).string_value());
    EXPECT_EQ(version.find_first_not_of("0123456789."), std::string::npos)
        << dependencies->key(i) << " is not pinned to an exact version: " << version;
  }
  absl::StatusOr<json::Document> lock = json::Parse(read("package-lock.json"));
  ASSERT_OK(lock);
  EXPECT_EQ(lock->root().Find("lockfileVersion")->number_literal(), "3");
  json::Value packages = *lock->root().Find("packages");
  ASSERT_GT(packages.size(), 3u);
  for (std::size_t i = 0; i < packages.size(); ++i) {
    if (packages.key(i).empty()) continue;  // the project itself
    std::optional<json::Value> integrity = packages.member(i).Find("integrity");
    ASSERT_TRUE(integrity.has_value()) << packages.key(i);
    EXPECT_EQ(integrity->string_value().substr(0, 7), "sha512-") << packages.key(i);
    EXPECT_TRUE(packages.member(i).Find("resolved").has_value()) << packages.key(i);
  }
}

}  // namespace
}  // namespace agentrt
