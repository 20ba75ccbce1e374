// `agentrt proxy` between real hosts and a real server: the official TypeScript SDK's client
// (tests/tools/sdk_host.mjs) and the MCP Inspector's CLI, both pinned in fixtures/servers/, start
// the proxy as their stdio server, in front of the pinned filesystem server in a sandbox. A read
// passes; a write is held and answered as waiting for approval; `agentrt approve` in another
// process grants it; the host's retry collects the result; the write happened exactly once; the
// chain verifies.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::AllOf;
using ::testing::Not;
using ::testing::StartsWith;

namespace fs = std::filesystem;

const std::string kServers = AGENTRT_SERVERS_DIR;

class ProxyHostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kServers + "/server-filesystem/dist/index.js") ||
        !fs::exists(kServers + "/sdk/dist/esm/client/index.js") ||
        !fs::exists(kServers + "/inspector-cli/build/index.js")) {
      GTEST_SKIP() << "the pinned Node packages are not installed (tools/dev/run test does it)";
    }
    sandbox_ = (test_support::TestFolder() / "sandbox").string();
    dir_ = (test_support::TestFolder() / "proxy").string();
    fs::create_directories(sandbox_);
    fs::create_directories(dir_);
    // A file beside the configuration, or a schema of the test server in the suite's
    // "[postgres]" registration.
    db_ = test_support::OnTestServer() ? test_support::NewServerDatabase() : dir_ + "/proxy.db";
    std::ofstream(sandbox_ + "/notes.txt") << "hello from the sandbox\n";
    std::string config =
        json::JsonObject()
            .String("database", db_)
            .String("session", "desk")
            .String("hold", "0s")
            .Raw("servers",
                 "[" +
                     json::JsonObject()
                         .String("name", "fs")
                         .Raw("command",
                              absl::StrCat(
                                  R"(["node",)",
                                  json::JsonString(kServers + "/server-filesystem/dist/index.js"),
                                  ",", json::JsonString(sandbox_), "]"))
                         .String("connect_timeout", "30s")
                         .String("manifest", "fs.manifest.json")
                         .Raw("rules",
                              R"({"read_text_file":{"side_effect":"read_only","timeout":"10s"},)"
                              R"("write_file":{"side_effect":"local_mutation","timeout":"10s",)"
                              R"("allow_hint_mismatch":true,"outcome":"require_approval"}})")
                         .Build() +
                     "]")
            .Build();
    std::ofstream(Config()) << config;
    ::chmod(Config().c_str(), 0600);
    ProcessResult pin = Agentrt({"proxy", "pin", "--config", Config()});
    ASSERT_EQ(pin.exit_code, 0) << pin.err;
  }
  std::string Config() const { return dir_ + "/config.json"; }
  const std::string& Db() const { return db_; }

  // One host session through the SDK's client: the listed names, then each call's answer.
  struct HostRun {
    ProcessResult process;
    std::vector<std::string> tools;
    std::vector<std::pair<bool, std::string>> answers;  // isError, text
  };
  HostRun Host(const std::string& calls) {
    HostRun run;
    run.process = RunProcess({"/usr/bin/env", "node",
                              std::string(AGENTRT_SOURCE_DIR) + "/tests/tools/sdk_host.mjs",
                              kServers + "/sdk", AGENTRT_BIN, Config(), calls});
    std::vector<std::string> lines = absl::StrSplit(run.process.out, '\n', absl::SkipEmpty());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      absl::StatusOr<json::Document> doc = json::Parse(lines[i]);
      if (!doc.ok()) continue;
      if (i == 0) {
        std::optional<json::Value> tools = doc->root().Find("tools");
        for (std::size_t t = 0; tools && t < tools->size(); ++t) {
          run.tools.push_back(std::string(tools->element(t).string_value()));
        }
        continue;
      }
      std::optional<json::Value> error = doc->root().Find("isError");
      run.answers.push_back({error && error->is_bool() && error->bool_value(),
                             json::MemberText(doc->root(), "text")});
    }
    return run;
  }
  // The Inspector's CLI mode: one method against `agentrt proxy` as its stdio server. It finds its
  // own package.json relative to the working directory, so it runs from its build folder.
  ProcessResult Inspector(const std::string& method_args) {
    std::string inspector = kServers + "/inspector-cli/build";
    return RunProcess({"/bin/sh", "-c",
                       absl::StrCat("cd '", inspector, "' && exec node index.js '", AGENTRT_BIN,
                                    "' proxy --config '", Config(), "' ", method_args)});
  }
  std::string Read(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }

  std::string sandbox_, dir_, db_;
};

TEST_F(ProxyHostsTest, TheSdkClientGetsAReadAndAWriteAnOperatorApprovedOnce) {
  std::string read =
      json::JsonObject()
          .String("tool", "fs_read_text_file")
          .Raw("arguments", json::JsonObject().String("path", sandbox_ + "/notes.txt").Build())
          .Build();
  std::string write = json::JsonObject()
                          .String("tool", "fs_write_file")
                          .Raw("arguments", json::JsonObject()
                                                .String("path", sandbox_ + "/out.txt")
                                                .String("content", "written once\n")
                                                .Build())
                          .Build();
  HostRun first = Host("[" + read + "," + write + "]");
  ASSERT_EQ(first.process.exit_code, 0) << first.process.err;
  EXPECT_THAT(first.tools, ::testing::Contains("fs_read_text_file"));
  EXPECT_THAT(first.tools, ::testing::Contains("gate_status"));
  ASSERT_THAT(first.answers, SizeIs(2));
  EXPECT_FALSE(first.answers[0].first);
  EXPECT_THAT(first.answers[0].second, HasSubstr("hello from the sandbox"));
  EXPECT_FALSE(first.answers[1].first);
  EXPECT_THAT(first.answers[1].second, StartsWith("PENDING_APPROVAL: "));
  EXPECT_FALSE(fs::exists(sandbox_ + "/out.txt"));

  const std::string& err = first.process.err;
  std::size_t at = err.find("agentrt approve ");
  ASSERT_NE(at, std::string::npos) << err;
  std::vector<std::string> words = absl::StrSplit(err.substr(at), ' ');
  ASSERT_GE(words.size(), 5u);
  std::string run = words[2], approval = words[4];
  ProcessResult approved =
      Agentrt({"approve", run, "--approval", approval, "--db", Db(), "--by", "test", "--yes"});
  ASSERT_EQ(approved.exit_code, 0) << approved.err;

  HostRun second = Host("[" + write + "]");
  ASSERT_THAT(second.answers, SizeIs(1)) << second.process.err;
  EXPECT_FALSE(second.answers[0].first) << second.answers[0].second;
  EXPECT_EQ(Read(sandbox_ + "/out.txt"), "written once\n");
  HostRun third = Host("[" + write + "]");
  ASSERT_THAT(third.answers, SizeIs(1));
  EXPECT_TRUE(third.answers[0].first);
  EXPECT_THAT(third.answers[0].second, StartsWith("DUPLICATE: "));

  ProcessResult events = Agentrt({"events", run, "--db", Db()});
  EXPECT_THAT(events.out, HasSubstr("approval.decided"));
  int started = 0;
  for (absl::string_view line : absl::StrSplit(events.out, '\n')) {
    if (line.find("step.tool_started") != absl::string_view::npos) ++started;
  }
  EXPECT_EQ(started, 1) << events.out;  // the write ran once
  ProcessResult verify = Agentrt({"verify", "--db", Db()});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(ProxyHostsTest, TheInspectorsCliListsTheGovernedToolsAndCallsThroughTheGate) {
  ProcessResult list = Inspector("--method tools/list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, AllOf(HasSubstr("\"fs_read_text_file\""), HasSubstr("\"gate_status\""),
                              Not(HasSubstr("outputSchema"))));
  ProcessResult read = Inspector(
      "--method tools/call --tool-name fs_read_text_file --tool-arg "
      "path='" +
      sandbox_ + "/notes.txt'");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_THAT(read.out, HasSubstr("hello from the sandbox"));
  ProcessResult write =
      Inspector("--method tools/call --tool-name fs_write_file --tool-arg path='" + sandbox_ +
                "/inspected.txt' content=nope");
  EXPECT_THAT(write.out, HasSubstr("PENDING_APPROVAL: "));
  EXPECT_FALSE(fs::exists(sandbox_ + "/inspected.txt"));
  // The Inspector shows none of its server's stderr: the operator finds the waiting run.
  EXPECT_THAT(Agentrt({"runs", "--db", Db()}).out, HasSubstr("WAITING_FOR_APPROVAL"));
}

TEST_F(ProxyHostsTest, TheDemonstrationRunsEveryStep) {
  std::string db = (test_support::TestFolder() / "demo.db").string();
  ProcessResult demo = Agentrt({"demo", "proxy", "--db", db});
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
  for (const char* line :
       {"model sees tools: fs_read_text_file, fs_write_file, gate_status",
        "model sees: {\"content\":\"Rent is due", "model sees: PENDING_APPROVAL",
        "model sees: {\"content\":\"Successfully wrote", "model sees (isError): DUPLICATE",
        "model sees (isError): REJECTED", "model sees: GATE_STATUS",
        "through the proxy the server wrote report.txt once and secrets.txt never"}) {
    EXPECT_THAT(demo.out, HasSubstr(line));
  }
  EXPECT_FALSE(fs::exists(test_support::TestFolder() / "proxy-sandbox" / "secrets.txt"));
  EXPECT_EQ(Agentrt({"verify", "--db", db}).exit_code, 0);
}

}  // namespace
}  // namespace agentrt
