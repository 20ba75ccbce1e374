// `agentrt proxy`, run as a host runs it: the built binary as a child process over real pipes,
// in front of a scripted MCP server (tests/mcp/fake_mcp_server.cc) whose every call is appended
// to its calls.log, the ledger. Reference/mcp.md §10.15.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/proxy/answers.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
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
using ::testing::StartsWith;

constexpr char kTools[] =
    R"({"tools":[)"
    R"({"name":"balance","description":"Report an account's balance.","annotations":{"readOnlyHint":true},)"
    R"("inputSchema":{"type":"object","properties":{"account":{"type":"string"}},"required":["account"],"additionalProperties":false}},)"
    R"({"name":"pay","description":"Pay someone.","annotations":{"destructiveHint":false},)"
    R"("inputSchema":{"type":"object","properties":{"to":{"type":"string"},"amount":{"type":"number"},"currency":{"type":"string"}},"required":["to","amount"],"additionalProperties":false}},)"
    R"({"name":"refund","description":"Refund a payment.",)"
    R"("inputSchema":{"type":"object","properties":{"payment":{"type":"string"}},"required":["payment"]}}]})";

constexpr char kRules[] =
    R"({"balance":{"side_effect":"read_only","timeout":"10s"},)"
    R"("pay":{"side_effect":"remote_mutation","timeout":"10s","fixed":{"currency":"EUR"}}})";

class AgentrtProxyCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder().string() + "/proxy";
    server_ = test_support::TestFolder().string() + "/server";
    std::filesystem::create_directories(dir_);
    std::filesystem::create_directories(server_);
    // A file beside the configuration, or a schema of the test server in the suite's
    // "[postgres]" registration.
    db_ = test_support::OnTestServer() ? test_support::NewServerDatabase() : dir_ + "/proxy.db";
    WriteServer("tools.json", kTools);
    WriteServer("call-balance.json",
                R"({"content":[{"type":"text","text":"account A-1 holds 120.00 EUR"}]})");
    WriteServer("call-pay.json", R"({"content":[{"type":"text","text":"paid"}]})");
    WriteConfig(kRules);
  }
  void WriteServer(const std::string& name, const std::string& text) {
    std::ofstream(server_ + "/" + name, std::ios::binary | std::ios::trunc) << text;
  }
  void WriteConfig(const std::string& rules, const std::string& server_arg = "",
                   bool skip = false) {
    json::JsonObject server;
    server.String("name", "bank")
        .Raw("command",
             absl::StrCat(R"([")", AGENTRT_FAKE_MCP_SERVER, R"(","scripted",)",
                          json::JsonString(server_arg.empty() ? server_ : server_arg), "]"))
        .String("manifest", "bank.manifest.json")
        .Raw("rules", rules);
    if (skip) server.Bool("skip_path_check", true);
    std::string config = json::JsonObject()
                             .String("database", db_)
                             .String("session", "laptop")
                             .String("hold", "0s")
                             .Raw("servers", "[" + server.Build() + "]")
                             .Build();
    std::ofstream(Config(), std::ios::binary | std::ios::trunc) << config;
    ::chmod(Config().c_str(), 0600);
  }
  // Holds every payment at the scripted server until it is released (a named pipe the server
  // reads: waiting on the event, never on the clock). Returns the pipe's path.
  std::string HoldPayments() {
    std::string fifo = server_ + "/pay.fifo";
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    WriteServer("call-pay.wait", fifo);
    return fifo;
  }
  // Lets the held payment go once it reached the server (opening the pipe waits for it).
  static void Release(const std::string& fifo) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    (void)!::write(fd, "x", 1);
    ::close(fd);
  }
  std::string Config() const { return dir_ + "/config.json"; }
  const std::string& Db() const { return db_; }
  std::string Calls() const {
    std::ifstream in(server_ + "/calls.log");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  int Payments() const {
    int n = 0;
    for (absl::string_view line : absl::StrSplit(Calls(), '\n')) {
      if (line.find("\"name\":\"pay\"") != absl::string_view::npos) ++n;
    }
    return n;
  }

  // One host session: initialize, then each request in order; the proxy's answers by id.
  struct Session {
    ProcessResult process;
    std::map<std::string, std::string> results;  // id -> result or error (canonical JSON)
  };
  Session Host(const std::vector<std::pair<std::string, std::string>>& calls,
               const std::vector<std::string>& raw = {}) {
    std::string input =
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})"
        "\n"
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
        "\n";
    int id = 1;
    for (const auto& [tool, args] : calls) {
      input += absl::StrCat(R"({"jsonrpc":"2.0","id":)", id++,
                            R"(,"method":"tools/call","params":{"name":")", tool,
                            R"(","arguments":)", args, "}}\n");
    }
    for (const std::string& line : raw) input += line + "\n";
    Session s;
    s.process = Agentrt({"proxy", "--config", Config()}, input);
    for (absl::string_view line : absl::StrSplit(s.process.out, '\n', absl::SkipEmpty())) {
      absl::StatusOr<json::Document> doc = json::Parse(ToStd(line));
      EXPECT_TRUE(doc.ok()) << "stdout carries only the protocol: " << line;
      if (!doc.ok()) continue;
      std::optional<json::Value> msg_id = doc->root().Find("id");
      std::optional<json::Value> result = doc->root().Find("result");
      std::optional<json::Value> error = doc->root().Find("error");
      if (!msg_id) continue;
      s.results[json::WriteCanonical(*msg_id)] = json::WriteCanonical(result ? *result : *error);
    }
    return s;
  }
  // The text of a tools/call result.
  static std::string Text(const std::string& result) {
    absl::StatusOr<json::Document> doc = json::Parse(result);
    if (!doc.ok()) return "";
    std::optional<json::Value> content = doc->root().Find("content");
    if (!content || !content->is_array() || content->size() == 0) return result;
    return json::MemberText(content->element(0), "text");
  }

  std::string dir_, server_, db_;
};

TEST_F(AgentrtProxyCliTest, HelpStatesTheScope) {
  ProcessResult help = Agentrt({"proxy", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  std::string text = absl::StrReplaceAll(help.out, {{"\n    ", " "}, {"\n  ", " "}});
  for (const char* phrase :
       {"It governs only the calls that go through it.",
        "can approve its own request with the operator command or by editing the database",
        "one person who is both the host's user and the operator. It does not separate them.",
        "there are no limits or policy over a conversation's history",
        "also refuses a deliberate identical repeat",
        "The pin covers what a server presents, not what it does."}) {
    EXPECT_THAT(text, HasSubstr(phrase));
  }
  EXPECT_EQ(Agentrt({"proxy"}).exit_code, 2);
  EXPECT_EQ(Agentrt({"proxy", "frobnicate"}).exit_code, 2);
  EXPECT_THAT(Agentrt({"--help"}).out, HasSubstr("proxy check"));
}

TEST_F(AgentrtProxyCliTest, PinAndCheck) {
  ProcessResult pin = Agentrt({"proxy", "pin", "--config", Config()});
  ASSERT_EQ(pin.exit_code, 0) << pin.err;
  EXPECT_THAT(pin.out, AllOf(HasSubstr("pinned 3 tools"), HasSubstr("balance"), HasSubstr("refund"),
                             HasSubstr("agentrt proxy check")));
  struct stat st;
  ASSERT_EQ(::stat((dir_ + "/bank.manifest.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ProcessResult check = Agentrt({"proxy", "check", "--config", Config()});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out,
              AllOf(HasSubstr("bank_balance"), HasSubstr("bank_pay"), HasSubstr("refund"),
                    HasSubstr("status tool: gate_status"), HasSubstr("session: laptop")));
  WriteConfig("{}");
  ProcessResult nothing = Agentrt({"proxy", "check", "--config", Config()});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_THAT(nothing.err, HasSubstr("no tool registered"));
}

TEST_F(AgentrtProxyCliTest, AToolUnderTheStatusToolsNameIsRefused) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  WriteConfig(R"({"balance":{"side_effect":"read_only","timeout":"10s","rename":"gate_status"}})");
  ProcessResult clash = Agentrt({"proxy", "check", "--config", Config()});
  EXPECT_EQ(clash.exit_code, 1);
  EXPECT_THAT(clash.err, AllOf(HasSubstr("the status tool's name"), HasSubstr("gate_status")));
}

TEST_F(AgentrtProxyCliTest, AServerThatReachesTheProxysFilesIsRefused) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  std::vector<std::string> args = {
      dir_, dir_ + "/",      "--root=" + dir_, test_support::TestFolder().string(),
      "/",  "file://" + dir_};
  if (!test_support::OnTestServer()) args.push_back(Db());  // a server's database is no file
  for (const std::string& arg : args) {
    WriteConfig(kRules, arg);
    ProcessResult refused = Agentrt({"proxy", "check", "--config", Config()});
    EXPECT_EQ(refused.exit_code, 1) << arg;
    EXPECT_THAT(refused.err, HasSubstr("skip_path_check")) << arg;
  }
  std::filesystem::create_directory_symlink(dir_, test_support::TestFolder() / "link");
  WriteConfig(kRules, (test_support::TestFolder() / "link").string());
  EXPECT_THAT(Agentrt({"proxy", "check", "--config", Config()}).err, HasSubstr("skip_path_check"));
  // Told it cannot write there, the operator's word goes: the server (scripted from the
  // configuration's own folder now) is started and loaded.
  std::filesystem::copy_file(server_ + "/tools.json", dir_ + "/tools.json");
  WriteConfig(kRules, dir_, /*skip=*/true);
  ProcessResult skipped = Agentrt({"proxy", "check", "--config", Config()});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_THAT(skipped.out, HasSubstr("bank_pay"));
}

TEST_F(AgentrtProxyCliTest, ARestartCollectsAnApprovalGrantedWhileItWasGone) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  constexpr char kPay[] = R"({"to":"bob","amount":25})";
  Session first = Host({{"bank_balance", R"({"account":"A-1"})"}, {"bank_pay", kPay}},
                       {R"({"jsonrpc":"2.0","id":"t","method":"tools/list"})"});
  ASSERT_EQ(first.process.exit_code, 0) << first.process.err;
  EXPECT_THAT(first.results[R"("t")"],
              AllOf(HasSubstr("bank_balance"), HasSubstr("bank_pay"), HasSubstr("gate_status"),
                    Not(HasSubstr("currency")), Not(HasSubstr("outputSchema"))));
  EXPECT_THAT(first.results["0"], AllOf(HasSubstr("gated-tools"), HasSubstr("2025-06-18")));
  EXPECT_EQ(Text(first.results["1"]), "account A-1 holds 120.00 EUR");
  std::string pending = Text(first.results["2"]);
  EXPECT_THAT(pending, StartsWith("PENDING_APPROVAL: "));
  EXPECT_EQ(Payments(), 0);
  std::string id = proxy::ApprovalNamedIn(pending);
  EXPECT_THAT(first.process.err, HasSubstr("agentrt approve laptop."));
  EXPECT_THAT(first.process.err, HasSubstr("--approval " + id));
  std::string run = first.process.err.substr(first.process.err.find("agentrt approve ") + 16);
  run = run.substr(0, run.find(' '));

  ProcessResult approved =
      Agentrt({"approve", run, "--approval", id, "--db", Db(), "--by", "test", "--yes"});
  ASSERT_EQ(approved.exit_code, 0) << approved.err;

  Session second = Host({{"bank_pay", kPay}});
  EXPECT_EQ(Text(second.results["1"]), "paid");
  EXPECT_EQ(Payments(), 1);
  EXPECT_THAT(Calls(), HasSubstr(R"("currency":"EUR")"));
  Session third = Host({{"bank_pay", kPay}});
  EXPECT_THAT(Text(third.results["1"]), StartsWith("DUPLICATE: "));
  EXPECT_EQ(Payments(), 1);
  ProcessResult verify = Agentrt({"verify", "--db", Db()});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  // Each call is a run that ends with it: the collected one completed.
  ProcessResult show = Agentrt({"show", run, "--db", Db()});
  EXPECT_THAT(show.out, HasSubstr("COMPLETED")) << show.out;
  ProcessResult events = Agentrt({"events", run, "--db", Db()});
  EXPECT_THAT(events.out, AllOf(HasSubstr("approval.decided"), HasSubstr("step.tool_finished")));
}

TEST_F(AgentrtProxyCliTest, RecheckAsksTodaysPolicyEveryRecordedDecision) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  Session s =
      Host({{"bank_balance", R"({"account":"A-1"})"}, {"bank_pay", R"({"to":"x","amount":1})"}});
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  ProcessResult same = Agentrt({"proxy", "recheck", "--config", Config()});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_THAT(same.out, AllOf(HasSubstr("2 run(s) re-checked under agentrt-proxy/sha256:"),
                              HasSubstr(": 2 decision(s) re-checked, 0 not re-checkable and "
                                        "skipped; 0 run(s) differ"),
                              HasSubstr("policy identity unchanged"), HasSubstr("not covered:")));
  // The operator now denies payments: the recorded approval would be a denial today.
  WriteConfig(
      R"({"balance":{"side_effect":"read_only","timeout":"10s"},)"
      R"("pay":{"side_effect":"remote_mutation","timeout":"10s","fixed":{"currency":"EUR"},"outcome":"deny"}})");
  ProcessResult differs = Agentrt({"proxy", "recheck", "--config", Config()});
  EXPECT_EQ(differs.exit_code, 1);
  EXPECT_THAT(differs.out,
              AllOf(HasSubstr("DIFFERENT"), HasSubstr("bank_pay: deny"),
                    HasSubstr("policy identity changed"), HasSubstr("; 1 run(s) differ")));
  ProcessResult json =
      Agentrt({"proxy", "recheck", "--config", Config(), "--json", "--limit", "1"});
  EXPECT_THAT(json.out, StartsWith("[{"));
  ProcessResult nobody = Agentrt({"proxy", "recheck", "--config", Config(), "--session", "nobody"});
  EXPECT_EQ(nobody.exit_code, 1);
  EXPECT_THAT(nobody.err, HasSubstr("no run of session \"nobody\" was found"));
  EXPECT_EQ(Agentrt({"proxy", "recheck", "--config", Config(), "--run", "nope"}).exit_code, 1);
  EXPECT_EQ(
      Agentrt({"proxy", "recheck", "--config", Config(), "--run", "a", "--session", "b"}).exit_code,
      2);
  EXPECT_EQ(Agentrt({"proxy", "recheck", "--config", Config(), "--limit", "0"}).exit_code, 2);
}

constexpr char kAllowedPay[] =
    R"({"balance":{"side_effect":"read_only","timeout":"10s"},)"
    R"("pay":{"side_effect":"remote_mutation","timeout":"10s","fixed":{"currency":"EUR"},"outcome":"allow"}})";

TEST_F(AgentrtProxyCliTest, RecheckWithTheCurrentToolsSeesADescriptionChangedSincePinning) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  Session s = Host({{"bank_pay", R"({"to":"x","amount":1})"}});
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  // The server now describes pay otherwise: the recorded specs still agree with the policy...
  WriteServer("tools.json", absl::StrReplaceAll(kTools, {{"Pay someone.", "Pay anyone, now."}}));
  EXPECT_EQ(Agentrt({"proxy", "recheck", "--config", Config()}).exit_code, 0);
  // ...but the tools as loaded today refuse it, which the re-check names.
  ProcessResult current =
      Agentrt({"proxy", "recheck", "--config", Config(), "--current-tools", "--json"});
  EXPECT_EQ(current.exit_code, 1) << current.out << current.err;
  EXPECT_THAT(current.out, AllOf(HasSubstr("\"spec_source\":\"current\""),
                                 HasSubstr("\"result\":\"different\"")));
  EXPECT_THAT(current.err, HasSubstr("description"));  // the load's report says why
}

TEST_F(AgentrtProxyCliTest, StdinClosingMidCallLetsTheCallFinishAndBeRecorded) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  WriteConfig(kAllowedPay);
  std::string held = HoldPayments();
  // The host writes its call and closes its input at once: the proxy stops taking calls, but
  // the one in flight (held at the server until it reached it) finishes, is answered and
  // recorded, and the proxy exits 0.
  std::thread release([&] { Release(held); });
  Session s = Host({{"bank_pay", R"({"to":"kim","amount":7})"}});
  release.join();
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  EXPECT_EQ(Text(s.results["1"]), "paid");
  EXPECT_EQ(Payments(), 1);
  std::string runs = Agentrt({"runs", "--db", Db(), "--json"}).out;
  EXPECT_THAT(runs, HasSubstr("COMPLETED"));
  EXPECT_THAT(runs, Not(HasSubstr("RUNNING")));
}

TEST_F(AgentrtProxyCliTest, TwoProxiesOnOneSessionRunAnIdenticalCallOnce) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  WriteConfig(kAllowedPay);
  std::string held = HoldPayments();
  std::string pay = R"({"to":"kim","amount":7})";
  Session a, b;
  std::thread first([&] { a = Host({{"bank_pay", pay}}); });
  // Once the first proxy's payment reached the server (and is held there), a second proxy on
  // the same session gets the identical call: it is executing under the first one's lease.
  int fd = ::open(held.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  b = Host({{"bank_pay", pay}});
  EXPECT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);
  first.join();
  ASSERT_EQ(a.process.exit_code, 0) << a.process.err;
  ASSERT_EQ(b.process.exit_code, 0) << b.process.err;
  EXPECT_EQ(Text(a.results["1"]), "paid");
  EXPECT_THAT(Text(b.results["1"]), StartsWith("IN_PROGRESS: "));
  EXPECT_EQ(Payments(), 1);
  // Different calls from the two proxies both run, side by side.
  std::filesystem::remove(server_ + "/call-pay.wait");
  std::thread x([&] { a = Host({{"bank_pay", R"({"to":"x","amount":1})"}}); });
  std::thread y([&] { b = Host({{"bank_pay", R"({"to":"y","amount":2})"}}); });
  x.join();
  y.join();
  EXPECT_EQ(Text(a.results["1"]), "paid");
  EXPECT_EQ(Text(b.results["1"]), "paid");
  EXPECT_EQ(Payments(), 3);
  EXPECT_EQ(Agentrt({"verify", "--db", Db()}).exit_code, 0);
}

TEST_F(AgentrtProxyCliTest, WhatIsNotACallIsAnsweredHonestly) {
  ASSERT_EQ(Agentrt({"proxy", "pin", "--config", Config()}).exit_code, 0);
  Session s = Host({}, {R"({"jsonrpc":"2.0","id":7,"method":"resources/list"})",
                        R"({"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{}})",
                        R"({"jsonrpc":"2.0","id":9,"method":"ping"})", "not json",
                        R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}})"});
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  EXPECT_THAT(s.results["7"], HasSubstr("-32601"));
  EXPECT_THAT(s.results["8"], HasSubstr("-32601"));
  EXPECT_EQ(s.results["9"], "{}");
  EXPECT_THAT(s.results["null"], HasSubstr("-32700"));
  EXPECT_THAT(s.results["10"], HasSubstr("-32602"));
  EXPECT_THAT(s.process.err, HasSubstr("the host closed its input"));
}

}  // namespace
}  // namespace agentrt
