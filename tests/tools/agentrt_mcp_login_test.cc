// `agentrt mcp login`, as an operator runs it: the built binary as a child process against a
// remote MCP server behind OAuth on loopback (oauth_mcp_service.h), with $BROWSER a program
// that opens the printed address and follows the redirects back to the command's listener.
// Then the commands that reach the server use what the login stored.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/world/http_server.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"
#include "tests/tools/oauth_mcp_service.h"

namespace agentrt {
namespace {

using ::agentrt::testing::OAuthMcpService;
using ::agentrt::testing::ProcessOptions;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RunProcess;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class AgentrtMcpLoginTest : public ::testing::Test {
 protected:
  void Serve(OAuthMcpService::Options options) {
    service_ = std::make_unique<OAuthMcpService>(options);
    absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
        world::HttpServer::Listen("127.0.0.1", 0, *service_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    base_ = absl::StrCat("http://127.0.0.1:", server_->port());
    service_->set_base(base_);
    dir_ = test_support::TestFolder().string() + "/login";
    std::filesystem::create_directories(dir_);
    config_ = dir_ + "/agentrt.json";
    std::ofstream(config_)
        << R"({"database":"audit.db","session":"ops","servers":[{"name":"files","endpoint":")"
        << base_ << R"(/mcp","manifest":"files.json","auth":{}},)"
        << R"({"name":"open","endpoint":")" << base_ << R"(/mcp","manifest":"open.json"}]})";
    ::chmod(config_.c_str(), 0600);
  }
  ProcessResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), AGENTRT_BIN);
    ProcessOptions options;
    options.env = {absl::StrCat("BROWSER=", FAKE_BROWSER)};
    return RunProcess(args, options);
  }
  std::string Credentials() const { return dir_ + "/files.credentials.json"; }

  std::unique_ptr<OAuthMcpService> service_;
  std::unique_ptr<world::HttpServer> server_;
  std::string base_, dir_, config_;
};

TEST_F(AgentrtMcpLoginTest, LogsInThroughTheBrowserAndLaterCommandsUseTheToken) {
  Serve({});
  ProcessResult login = Run({"mcp", "login", "--config", config_, "--server", "files"});
  ASSERT_EQ(login.exit_code, 0) << login.out << login.err;
  EXPECT_THAT(login.out, HasSubstr("Open this address in a browser to log in"));
  EXPECT_THAT(login.out, HasSubstr(base_ + "/authorize?response_type=code"));
  EXPECT_THAT(login.out, HasSubstr("code_challenge_method=S256"));
  EXPECT_THAT(login.out, HasSubstr("Logged in to \"files\""));
  EXPECT_THAT(login.out, HasSubstr("scope \"files:read offline_access\""));
  // Nothing secret is printed.
  for (const char* secret : {"token-1", "refresh-1", "dyn-secret", "the-code"}) {
    EXPECT_THAT(login.out + login.err, Not(HasSubstr(secret))) << secret;
  }
  struct stat st {};
  ASSERT_EQ(::stat(Credentials().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_THAT(service_->grants(), ElementsAre("authorization_code"));

  ProcessResult pin = Run({"mcp", "pin", "--config", config_, "--server", "files"});
  ASSERT_EQ(pin.exit_code, 0) << pin.out << pin.err;
  EXPECT_THAT(service_->bearers(), Contains("Bearer token-1"));
  EXPECT_THAT(service_->grants(), ElementsAre("authorization_code"));  // no new login
}

TEST_F(AgentrtMcpLoginTest, AnExpiredTokenIsRefreshedWithoutTheOperator) {
  Serve({.expires_in = 20});  // inside the 30 s before expiry: refreshed when used
  ProcessResult login = Run({"mcp", "login", "--config", config_, "--server", "files"});
  ASSERT_EQ(login.exit_code, 0) << login.out << login.err;
  ProcessResult pin = Run({"mcp", "pin", "--config", config_, "--server", "files"});
  ASSERT_EQ(pin.exit_code, 0) << pin.out << pin.err;
  EXPECT_THAT(service_->grants(), Contains("refresh_token"));
  EXPECT_THAT(service_->bearers(), Contains("Bearer token-2"));
}

TEST_F(AgentrtMcpLoginTest, ARedirectWithAnotherStateIsRefusedAndNothingIsStored) {
  Serve({.wrong_state = true});
  ProcessResult login = Run({"mcp", "login", "--config", config_, "--server", "files"});
  EXPECT_EQ(login.exit_code, 1);
  EXPECT_THAT(login.err, HasSubstr("state that does not match"));
  EXPECT_FALSE(std::filesystem::exists(Credentials()));
  EXPECT_THAT(service_->grants(), ::testing::IsEmpty());  // the code was never exchanged
}

TEST_F(AgentrtMcpLoginTest, WithoutALoginACommandSaysHowToLogIn) {
  Serve({});
  ProcessResult pin = Run({"mcp", "pin", "--config", config_, "--server", "files"});
  EXPECT_EQ(pin.exit_code, 1);
  EXPECT_THAT(pin.err, HasSubstr("agentrt mcp login --config " + config_ + " --server files"));
}

TEST_F(AgentrtMcpLoginTest, AServerWithoutAuthIsNamedAndItsRefusalExplained) {
  Serve({});
  ProcessResult login = Run({"mcp", "login", "--config", config_, "--server", "open"});
  EXPECT_EQ(login.exit_code, 1);
  EXPECT_THAT(login.err, HasSubstr("has no auth block"));
  ProcessResult pin = Run({"mcp", "pin", "--config", config_, "--server", "open"});
  EXPECT_EQ(pin.exit_code, 1);
  EXPECT_THAT(pin.err, HasSubstr("requires authorization (HTTP 401)"));
}

TEST_F(AgentrtMcpLoginTest, UsageErrors) {
  Serve({});
  EXPECT_EQ(Run({"mcp", "login", "--config", config_}).exit_code, 2);
  EXPECT_EQ(Run({"mcp", "login", "--config", config_, "--server", "nope"}).exit_code, 2);
  ProcessResult help = Run({"mcp", "login", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("http://127.0.0.1:<port>/callback"));
}

}  // namespace
}  // namespace agentrt
