// The configuration file (docs/mcp.md, "The configuration"):
// every field known, every check and its message, defaults, and paths resolved next to
// the file.
#include "mcp/config.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

using test_support::TestFile;
using test_support::TestFolder;

// The smallest configuration accepted; rows replace "$SERVER", "$TOP" or "$RULE".
constexpr char kTemplate[] = R"({
  "database": "agentrt.db",
  "session": "test",
  "servers": [{
    "name": "bank",
    "command": ["node", "bank.js"],
    "manifest": "bank.manifest.json",
    "rules": {"balance": {"side_effect": "read_only", "timeout": "5s" $RULE}}
    $SERVER
  }]
  $TOP
})";

std::string ConfigText(std::string top = "", std::string server = "", std::string rule = "") {
  return absl::StrReplaceAll(kTemplate, {{"$TOP", top}, {"$SERVER", server}, {"$RULE", rule}});
}

std::string WriteConfig(const std::string& text, mode_t mode = 0600) {
  std::string path = TestFile("config.json");
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

absl::Status ReadError(const std::string& text) {
  return ReadConfig(test_support::RealFiles(), WriteConfig(text)).status();
}

TEST(ConfigTest, DefaultsAndRelativePaths) {
  std::string path = WriteConfig(ConfigText());
  absl::StatusOr<Config> config = ReadConfig(test_support::RealFiles(), path);
  ASSERT_OK(config);
  std::string folder = std::filesystem::absolute(TestFolder()).lexically_normal().string();
  EXPECT_EQ(config->path, path);
  EXPECT_EQ(config->database, folder + "/agentrt.db");
  EXPECT_EQ(config->session, "test");
  ASSERT_EQ(config->servers.size(), 1u);
  const ServerConfig& bank = config->servers[0];
  EXPECT_EQ(bank.name, "bank");
  EXPECT_THAT(bank.command, ElementsAre("node", "bank.js"));
  EXPECT_EQ(bank.endpoint, "");
  EXPECT_EQ(bank.manifest, folder + "/bank.manifest.json");
  EXPECT_EQ(bank.connect_timeout, absl::ZeroDuration());
  EXPECT_EQ(bank.default_timeout, absl::ZeroDuration());
  EXPECT_FALSE(bank.skip_path_check);
  ASSERT_EQ(bank.rules.size(), 1u);
  EXPECT_EQ(bank.rules.at("balance").side_effect, SideEffect::kReadOnly);
  EXPECT_EQ(bank.rules.at("balance").timeout, absl::Seconds(5));
  EXPECT_EQ(config->hold, absl::Seconds(15));
  EXPECT_EQ(config->repeat_window, absl::Minutes(10));
  EXPECT_EQ(config->max_pending, 5);
  EXPECT_EQ(config->approval_ttl, absl::Hours(24));
  EXPECT_EQ(config->grant_ttl, absl::Hours(24));
  EXPECT_EQ(config->lease_ttl, absl::Seconds(30));
  EXPECT_EQ(config->status_tool, "gate_status");
  EXPECT_THAT(config->policy,
              ElementsAre(Pair(SideEffect::kReadOnly, PolicyOutcome::kAllow),
                          Pair(SideEffect::kLocalMutation, PolicyOutcome::kAllow),
                          Pair(SideEffect::kRemoteMutation, PolicyOutcome::kRequireApproval),
                          Pair(SideEffect::kDestructive, PolicyOutcome::kDeny)));
}

// A database on a server is named by its URL, kept as written: no folder is joined to it.
TEST(ConfigTest, ADatabaseOnAServerIsItsUrlAsWritten) {
  std::string text = ConfigText();
  const std::string file = R"("database": "agentrt.db")";
  ASSERT_NE(text.find(file), std::string::npos);
  text.replace(text.find(file), file.size(),
               R"("database": "postgresql://agentrt@db.internal/agentrt?sslmode=require")");
  absl::StatusOr<Config> config = ReadConfig(test_support::RealFiles(), WriteConfig(text));
  ASSERT_OK(config);
  EXPECT_EQ(config->database, "postgresql://agentrt@db.internal/agentrt?sslmode=require");
}

TEST(ConfigTest, ReadsEveryField) {
  absl::StatusOr<Config> config = ReadConfig(test_support::RealFiles(), WriteConfig(R"({
    "database": "/var/lib/agentrt/../agentrt/proxy.db",
    "session": "Prod_1-a",
    "policy": {"read_only": "require_approval", "destructive": "deny"},
    "hold": "0s", "repeat_window": "0s", "max_pending": 2, "approval_ttl": "1h",
    "grant_ttl": "30m", "status_tool": "bank_status", "lease_ttl": "3s",
    "servers": [
      {"name": "bank", "command": ["bank"], "manifest": "m/bank.json",
       "env": ["API_KEY=k", "EMPTY="], "inherit_env": ["LANG"],
       "connect_timeout": "50ms", "default_timeout": "2s", "skip_path_check": true,
       "rules": {"pay": {"side_effect": "remote_mutation", "outcome": "deny",
                         "repeat_window": "1m", "terminal": true}}},
      {"name": "web", "endpoint": "http://127.0.0.1:8080/mcp", "manifest": "/abs/web.json"}
    ]
  })"));
  ASSERT_OK(config);
  EXPECT_EQ(config->database, "/var/lib/agentrt/../agentrt/proxy.db");  // absolute: as written
  EXPECT_EQ(config->session, "Prod_1-a");
  EXPECT_EQ(config->policy.at(SideEffect::kReadOnly), PolicyOutcome::kRequireApproval);
  EXPECT_EQ(config->policy.at(SideEffect::kRemoteMutation), PolicyOutcome::kRequireApproval);
  EXPECT_EQ(config->hold, absl::ZeroDuration());
  EXPECT_EQ(config->repeat_window, absl::ZeroDuration());
  EXPECT_EQ(config->max_pending, 2);
  EXPECT_EQ(config->approval_ttl, absl::Hours(1));
  EXPECT_EQ(config->grant_ttl, absl::Minutes(30));
  EXPECT_EQ(config->status_tool, "bank_status");
  EXPECT_EQ(config->lease_ttl, absl::Seconds(3));
  ASSERT_EQ(config->servers.size(), 2u);
  const ServerConfig& bank = config->servers[0];
  EXPECT_THAT(bank.env, ElementsAre("API_KEY=k", "EMPTY="));
  EXPECT_THAT(bank.inherit_env, ElementsAre("LANG"));
  EXPECT_EQ(bank.connect_timeout, absl::Milliseconds(50));
  EXPECT_EQ(bank.default_timeout, absl::Seconds(2));
  EXPECT_TRUE(bank.skip_path_check);
  EXPECT_EQ(bank.manifest,
            (std::filesystem::absolute(TestFolder()) / "m/bank.json").lexically_normal().string());
  const Rule& pay = bank.rules.at("pay");
  EXPECT_EQ(pay.outcome, PolicyOutcome::kDeny);
  EXPECT_EQ(pay.repeat_window, absl::Minutes(1));
  EXPECT_TRUE(pay.terminal);
  EXPECT_EQ(config->servers[1].endpoint, "http://127.0.0.1:8080/mcp");
  EXPECT_EQ(config->servers[1].manifest, "/abs/web.json");
}

TEST(ConfigTest, ZeroMaxPendingAndLeaseKeepTheirDefaults) {
  absl::StatusOr<Config> config =
      ReadConfig(test_support::RealFiles(),
                 WriteConfig(ConfigText(R"(, "max_pending": 0, "lease_ttl": "0s")")));
  ASSERT_OK(config);
  EXPECT_EQ(config->max_pending, 5);
  EXPECT_EQ(config->lease_ttl, absl::Seconds(30));
}

TEST(ConfigTest, RefusesUnknownFields) {
  ASSERT_OK(ReadConfig(test_support::RealFiles(), WriteConfig(ConfigText())));
  struct Row {
    std::string text;
    std::string error;
  };
  for (const Row& row : {
           Row{ConfigText(R"(, "hold_for": "1s")"), R"(unknown field "hold_for")"},
           Row{ConfigText("", R"(, "manifets": "x")"), R"(servers[0]: unknown field "manifets")"},
           Row{ConfigText("", "", R"(, "denny": ["x"])"),
               R"(server "bank": tool "balance": unknown field "denny")"},
           Row{ConfigText() + "{}", "not usable JSON: json: data after the JSON value"},
           Row{ConfigText(R"(, "policy": {"read_only": "maybe"})"),
               R"(policy: read_only: outcome "maybe" is not allow, require_approval, or deny)"},
           Row{ConfigText(R"(, "policy": {"destructive": "abort"})"),
               R"(policy: destructive: outcome "abort" is not allow, require_approval, or deny)"},
           Row{ConfigText(R"(, "hold": 15)"), R"(hold: a duration is a string such as "15s")"},
           Row{ConfigText("", "", R"(, "outcome": "ask")"),
               R"(server "bank": tool "balance": outcome "ask" is not allow, require_approval, )"
               R"(or deny)"},
       }) {
    SCOPED_TRACE(row.text);
    absl::Status s = ReadError(row.text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(row.error));
  }
}

TEST(ConfigTest, RefusesAnUnsafeSessionName) {
  for (std::string session : std::vector<std::string>{"", "a b", "../x", "a.b", "x;rm", "\xc3\xa9",
                                                      std::string(65, 'a')}) {
    SCOPED_TRACE(session);
    std::string text = absl::StrReplaceAll(
        ConfigText(), {{R"("session": "test")", R"("session": ")" + session + "\""}});
    absl::Status s = ReadError(text);
    EXPECT_THAT(s.message(), HasSubstr("session \""));
    EXPECT_THAT(s.message(), HasSubstr("must be 1 to 64 letters, digits, '_' or '-'"));
  }
  std::string longest = absl::StrReplaceAll(
      ConfigText(), {{R"("session": "test")", R"("session": ")" + std::string(64, 'a') + "\""}});
  EXPECT_OK(ReadConfig(test_support::RealFiles(), WriteConfig(longest)));
}

TEST(ConfigTest, RefusesWhatCouldReadTwoWays) {
  struct Row {
    std::string text;
    std::string error;
  };
  for (const Row& row : {
           Row{ConfigText(R"(, "session": "again")"),
               R"(not usable JSON: json: duplicate object key "session")"},
           Row{ConfigText("", "", R"(, "timeout": "6s")"),
               R"(not usable JSON: json: duplicate object key "timeout")"},
           Row{ConfigText(R"(, "lease_ttl": "1s")"), "lease_ttl 1s is shorter than 3s"},
           Row{ConfigText(R"(, "lease_ttl": "2.5s")"), "lease_ttl 2.5s is shorter than 3s"},
           Row{ConfigText(R"(, "max_pending": 1e-10000000)"), "not usable JSON: json: number"},
           Row{"{\"database\": \"a\xff\"}", "not usable JSON: json: invalid UTF-8"},
       }) {
    SCOPED_TRACE(row.text);
    EXPECT_THAT(ReadError(row.text).message(), HasSubstr(row.error));
  }
  EXPECT_OK(
      ReadConfig(test_support::RealFiles(), WriteConfig(ConfigText(R"(, "lease_ttl": "3s")"))));
}

TEST(ConfigTest, ChecksEachFieldInTheReferencesWords) {
  const std::string server_end = R"(, "manifest": "m.json"}]})";
  struct Row {
    std::string text;
    std::string error;
  };
  for (const Row& row : {
           Row{R"({"session":"s","servers":[{"name":"a","command":["x"],"manifest":"m"}]})",
               "database is required"},
           Row{R"({"database":"","session":"s"})", "database is required"},
           Row{R"({"database":"d","session":"s"})", "at least one server is required"},
           Row{R"({"database":"d","session":"s","servers":[]})", "at least one server is required"},
           Row{R"({"database":"d","session":"s","servers":{}})", R"("servers" is not a list)"},
           Row{R"({"database":"d","session":"s","servers":[{"command":["x"])" + server_end,
               "servers[0]: name is required"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("manifest":"m"},{"name":"a","command":["y"],"manifest":"m"}]})",
               R"(servers[1]: the name "a" is used twice)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a")" + server_end,
               R"(server "a": exactly one of command or endpoint is required)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":[],)"
               R"("endpoint":"")" +
                   server_end,
               R"(server "a": exactly one of command or endpoint is required)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("endpoint":"http://h/")" +
                   server_end,
               R"(server "a": exactly one of command or endpoint is required)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"]}]})",
               R"(server "a": manifest is required)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("inherit_env":["A=B"])" +
                   server_end,
               R"(server "a": InheritEnv entry "A=B" is not a variable name)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("inherit_env":[""])" +
                   server_end,
               R"(server "a": InheritEnv entry "" is not a variable name)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("env":["NOEQUALS"])" +
                   server_end,
               R"(server "a": Env entry "NOEQUALS" is not NAME=value)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("env":["=v"])" +
                   server_end,
               R"(server "a": Env entry "=v" is not NAME=value)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("connect_timeout":"5")" +
                   server_end,
               R"(server "a": connect_timeout: missing unit in duration "5")"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("default_timeout":"-1s")" +
                   server_end,
               R"(server "a": default_timeout: duration "-1s" is negative)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":"x")" + server_end,
               R"(server "a": "command" is not a list of strings)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("rules":[])" +
                   server_end,
               R"(server "a": "rules" is not a JSON object)"},
           Row{R"({"database":"d","session":"s","servers":[{"name":"a","command":["x"],)"
               R"("rules":{"t":{"timeout":"soon"}})" +
                   server_end,
               R"(server "a": tool "t": timeout: invalid duration "soon")"},
           Row{ConfigText(R"(, "policy": {"read_only": "allow", "writes": "deny"})"),
               R"(policy: unknown side effect "writes")"},
           Row{ConfigText(R"(, "policy": {"read_only": true})"),
               "policy: read_only: the outcome is not a string"},
           Row{ConfigText(R"(, "hold": "-1s")"), R"(hold: duration "-1s" is negative)"},
           Row{ConfigText(R"(, "repeat_window": "")"), R"(repeat_window: invalid duration "")"},
           Row{ConfigText(R"(, "approval_ttl": "1d")"), R"(approval_ttl: unknown unit "d")"},
           Row{ConfigText(R"(, "grant_ttl": [])"), R"(grant_ttl: a duration is a string)"},
           Row{ConfigText(R"(, "max_pending": -1)"), "max_pending must not be negative"},
           Row{ConfigText(R"(, "max_pending": 1.5)"), "max_pending is not an integer"},
           Row{ConfigText(R"(, "max_pending": "2")"), "max_pending is not an integer"},
           Row{ConfigText(R"(, "max_pending": 99999999999)"), "max_pending is not an integer"},
           Row{ConfigText(R"(, "status_tool": "gate status")"),
               R"(status_tool "gate status" does not match ^[a-zA-Z0-9_-]{1,64}$)"},
           Row{ConfigText(R"(, "status_tool": "")"), R"(status_tool "" does not match)"},
           Row{"[]", "the configuration is not a JSON object"},
       }) {
    SCOPED_TRACE(row.text);
    std::string path = WriteConfig(row.text);
    absl::Status s = ReadConfig(test_support::RealFiles(), path).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr("config " + path + ": " + row.error));
  }
}

TEST(ConfigTest, ParseConfigReadsBytesAsIfFromThePath) {
  absl::StatusOr<Config> config = ParseConfig(ConfigText(), "/etc/agentrt/proxy.json");
  ASSERT_OK(config);
  EXPECT_EQ(config->path, "/etc/agentrt/proxy.json");
  EXPECT_EQ(config->database, "/etc/agentrt/agentrt.db");
  EXPECT_EQ(config->servers[0].manifest, "/etc/agentrt/bank.manifest.json");
  EXPECT_EQ(ParseConfig("{", "/etc/agentrt/proxy.json").status().message().substr(0, 48),
            "config /etc/agentrt/proxy.json: not usable JSON:");
}

TEST(ConfigTest, RelativePathsAreJoinedToTheFilesFolderWithoutAskingWhereTheProcessIs) {
  // Named by a relative path, the file's relative paths stay relative to the same working
  // directory: the library never reads it, the system resolves both the same way.
  absl::StatusOr<Config> relative = ParseConfig(ConfigText(), "conf/proxy.json");
  ASSERT_OK(relative);
  EXPECT_EQ(relative->database, "conf/agentrt.db");
  EXPECT_EQ(relative->servers[0].manifest, "conf/bank.manifest.json");
  absl::StatusOr<Config> here = ParseConfig(ConfigText(), "proxy.json");
  ASSERT_OK(here);
  EXPECT_EQ(here->database, "agentrt.db");
}

TEST(ConfigTest, RefusesAFileOthersCanWrite) {
  std::string path = WriteConfig(ConfigText(), 0666);
  absl::Status s = ReadConfig(test_support::RealFiles(), path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "config: " + path +
                             " has mode -rw-rw-rw-, which lets its group or others write it: "
                             "chmod go-w it");
  EXPECT_EQ(ReadConfig(test_support::RealFiles(), TestFile("none.json")).status().code(),
            absl::StatusCode::kNotFound);
}

// ---- A server's `auth` block (docs/mcp.md, "Authorized servers") ----

constexpr char kConfigPath[] = "/etc/agentrt/proxy.json";

// A configuration with one HTTP server, "tickets", at `endpoint`, whose auth block is `auth`.
std::string AuthConfigText(std::string auth,
                           std::string endpoint = "https://mcp.tickets.example.com/mcp") {
  return absl::StrCat(R"({"database": "agentrt.db", "session": "test", "servers": [{)",
                      R"("name": "tickets", "endpoint": ")", endpoint,
                      R"(", "manifest": "tickets.manifest.json", "auth": )", auth, "}]}");
}

TEST(ConfigAuthTest, AnEmptyBlockTakesEveryDefault) {
  absl::StatusOr<Config> config = ParseConfig(AuthConfigText("{}"), kConfigPath);
  ASSERT_OK(config);
  ASSERT_TRUE(config->servers[0].auth.has_value());
  const auth::AuthConfig& a = *config->servers[0].auth;
  EXPECT_EQ(a.settings.grant, auth::Grant::kAuthorizationCode);
  EXPECT_EQ(a.settings.client_id, "");
  EXPECT_EQ(a.settings.signing_alg, "ES256");
  EXPECT_EQ(a.settings.token_endpoint_auth_method, "");
  EXPECT_EQ(a.settings.client_metadata_url, "");
  EXPECT_EQ(a.settings.client_name, "agentrt");
  EXPECT_EQ(a.settings.max_step_ups, 2);
  EXPECT_TRUE(a.settings.client_secret.empty());
  EXPECT_TRUE(a.settings.private_key.empty());
  EXPECT_EQ(a.client_secret.env, "");
  EXPECT_EQ(a.client_secret.file, "");
  EXPECT_EQ(a.private_key.env, "");
  EXPECT_EQ(a.private_key.file, "");
  // The credentials file is the server's, beside the configuration.
  EXPECT_EQ(a.credentials, "/etc/agentrt/tickets.credentials.json");
  EXPECT_EQ(a.redirect_port, 0);

  // Beside it when the configuration is named by a relative path too; no block, no auth.
  absl::StatusOr<Config> relative = ParseConfig(AuthConfigText("{}"), "conf/proxy.json");
  ASSERT_OK(relative);
  EXPECT_EQ(relative->servers[0].auth->credentials, "conf/tickets.credentials.json");
  absl::StatusOr<Config> none = ParseConfig(ConfigText(), kConfigPath);
  ASSERT_OK(none);
  EXPECT_FALSE(none->servers[0].auth.has_value());
}

TEST(ConfigAuthTest, ReadsEveryFieldWithPathsJoinedToTheConfigsFolder) {
  absl::StatusOr<Config> config =
      ParseConfig(AuthConfigText(R"({"grant": "client_credentials", "client_id": "agentrt-ci",
        "private_key_file": "secrets/../keys/ci.pem", "signing_alg": "RS256",
        "token_endpoint_auth_method": "private_key_jwt",
        "client_metadata_url": "https://agentrt.example.com/client.json",
        "client_name": "ci bot", "credentials": "state/tickets.json", "redirect_port": 65535,
        "max_step_ups": 10})"),
                  kConfigPath);
  ASSERT_OK(config);
  const auth::AuthConfig& a = *config->servers[0].auth;
  EXPECT_EQ(a.settings.grant, auth::Grant::kClientCredentials);
  EXPECT_EQ(a.settings.client_id, "agentrt-ci");
  EXPECT_EQ(a.private_key.file, "/etc/agentrt/keys/ci.pem");
  EXPECT_EQ(a.private_key.env, "");
  EXPECT_EQ(a.settings.signing_alg, "RS256");
  EXPECT_EQ(a.settings.token_endpoint_auth_method, "private_key_jwt");
  EXPECT_EQ(a.settings.client_metadata_url, "https://agentrt.example.com/client.json");
  EXPECT_EQ(a.settings.client_name, "ci bot");
  EXPECT_EQ(a.credentials, "/etc/agentrt/state/tickets.json");
  EXPECT_EQ(a.redirect_port, 65535);
  EXPECT_EQ(a.settings.max_step_ups, 10);

  absl::StatusOr<Config> secret =
      ParseConfig(AuthConfigText(R"({"client_id": "c", "client_secret_file": "tickets.secret",
        "token_endpoint_auth_method": "client_secret_basic", "credentials": "/var/lib/t.json",
        "redirect_port": 0, "max_step_ups": 0})"),
                  kConfigPath);
  ASSERT_OK(secret);
  EXPECT_EQ(secret->servers[0].auth->client_secret.file, "/etc/agentrt/tickets.secret");
  EXPECT_EQ(secret->servers[0].auth->credentials, "/var/lib/t.json");  // absolute: as written
  EXPECT_EQ(secret->servers[0].auth->settings.max_step_ups, 0);
  EXPECT_EQ(secret->servers[0].auth->settings.grant, auth::Grant::kAuthorizationCode);

  absl::StatusOr<Config> env =
      ParseConfig(AuthConfigText(R"({"grant": "client_credentials", "client_id": "c",
        "client_secret_env": "TICKETS_SECRET", "token_endpoint_auth_method": "client_secret_post"})"),
                  kConfigPath);
  ASSERT_OK(env);
  EXPECT_EQ(env->servers[0].auth->client_secret.env, "TICKETS_SECRET");
  EXPECT_EQ(env->servers[0].auth->client_secret.file, "");
  absl::StatusOr<Config> key_env = ParseConfig(
      AuthConfigText(R"({"client_id": "c", "private_key_env": "TICKETS_KEY"})"), kConfigPath);
  ASSERT_OK(key_env);
  EXPECT_EQ(key_env->servers[0].auth->private_key.env, "TICKETS_KEY");
}

TEST(ConfigAuthTest, PlainHttpIsAcceptedOnlyToThisMachine) {
  for (const char* endpoint : {"http://127.0.0.1:8080/mcp", "http://localhost:3000/mcp",
                               "http://[::1]/mcp", "HTTP://127.0.0.1/mcp"}) {
    SCOPED_TRACE(endpoint);
    EXPECT_OK(ParseConfig(AuthConfigText("{}", endpoint), kConfigPath));
  }
  for (const char* host :
       {"mcp.tickets.example.com", "LOCALHOST", "127.0.0.1.nip.io", "10.0.0.7"}) {
    SCOPED_TRACE(host);
    EXPECT_THAT(
        ParseConfig(AuthConfigText("{}", absl::StrCat("http://", host, ":8080/mcp")), kConfigPath),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("config /etc/agentrt/proxy.json: server \"tickets\": auth: refusing "
                              "to send tokens over plain http to ",
                              host, ", which is not this machine")));
  }
}

TEST(ConfigAuthTest, RefusesEachBadBlockByItsMessage) {
  struct Row {
    std::string auth;
    std::string error;
  };
  for (
      const Row& row : {
          Row{R"({"grant": "client_credentials", "grnat": "x"})", R"(auth: unknown field "grnat")"},
          Row{R"({"client_secret": "s3cr3t"})", R"(auth: unknown field "client_secret")"},
          Row{"[]", "auth: not a JSON object"},
          Row{R"({"grant": "password"})",
              R"(auth: grant "password" is not authorization_code, client_credentials or identity_assertion)"},
          Row{R"({"grant": "client_credentials"})",
              "auth: the client_credentials grant needs client_id with a client secret or a "
              "private key"},
          Row{R"({"grant": "identity_assertion", "idp_token_endpoint": "https://idp/t",)"
              R"( "idp_id_token_env": "T"})",
              "auth: the identity_assertion grant needs client_id with a client secret or a "
              "private key"},
          Row{R"({"grant": "identity_assertion", "client_id": "c", "client_secret_env": "S",)"
              R"( "idp_id_token_env": "T"})",
              "auth: the identity_assertion grant needs idp_token_endpoint and one of "
              "idp_id_token_env or idp_id_token_file"},
          Row{R"({"grant": "identity_assertion", "client_id": "c", "client_secret_env": "S",)"
              R"( "idp_token_endpoint": "https://idp/t", "idp_id_token_env": "T",)"
              R"( "idp_id_token_file": "t"})",
              "auth: the identity_assertion grant needs idp_token_endpoint and one of "
              "idp_id_token_env or idp_id_token_file"},
          Row{R"({"grant": "identity_assertion", "client_id": "c", "client_secret_env": "S",)"
              R"( "idp_token_endpoint": "http://idp.example.com/t", "idp_id_token_env": "T"})",
              "auth: idp_token_endpoint: refusing plain http to idp.example.com, which is not "
              "this machine"},
          Row{R"({"idp_client_id": "c"})",
              "auth: the idp_ fields belong to the identity_assertion grant"},
          Row{R"({"grant": "client_credentials", "client_id": "ci"})",
              "auth: the client_credentials grant needs client_id with a client secret or a "
              "private key"},
          Row{R"({"client_id": "c", "client_secret_env": "S", "client_secret_file": "s"})",
              "auth: client_secret_env and client_secret_file are both set"},
          Row{R"({"client_id": "c", "private_key_env": "K", "private_key_file": "k.pem"})",
              "auth: private_key_env and private_key_file are both set"},
          Row{R"({"client_id": "c", "client_secret_env": "S", "private_key_file": "k.pem"})",
              "auth: a client authenticates with a secret or a private key, not both"},
          Row{R"({"client_secret_env": "S"})",
              "auth: a client secret or private key belongs to a client_id; set it"},
          Row{R"({"grant": "client_credentials", "private_key_file": "k.pem"})",
              "auth: a client secret or private key belongs to a client_id; set it"},
          Row{R"({"signing_alg": "HS256"})", R"(auth: signing_alg "HS256" is not ES256 or RS256)"},
          Row{R"({"signing_alg": "es256"})", R"(auth: signing_alg "es256" is not ES256 or RS256)"},
          Row{R"({"token_endpoint_auth_method": "tls_client_auth"})",
              R"(auth: token_endpoint_auth_method "tls_client_auth" is not client_secret_basic, )"
              "client_secret_post, none or private_key_jwt"},
          Row{R"({"client_id": "c", "token_endpoint_auth_method": "private_key_jwt"})",
              "auth: private_key_jwt goes with a private key, and a private key with it"},
          Row{R"({"client_id": "c", "private_key_env": "K", "token_endpoint_auth_method": "none"})",
              "auth: private_key_jwt goes with a private key, and a private key with it"},
          Row{R"({"client_id": "c", "token_endpoint_auth_method": "client_secret_basic"})",
              "auth: client_secret_basic needs a client secret"},
          Row{R"({"client_id": "c", "token_endpoint_auth_method": "client_secret_post"})",
              "auth: client_secret_post needs a client secret"},
          Row{R"({"client_metadata_url": "http://agentrt.example.com/client.json"})",
              "auth: client_metadata_url must be an https URL with a path"},
          Row{R"({"client_metadata_url": "https://agentrt.example.com/"})",
              "auth: client_metadata_url must be an https URL with a path"},
          Row{R"({"client_metadata_url": "agentrt.example.com/client.json"})",
              "auth: client_metadata_url must be an https URL with a path"},
          Row{R"({"redirect_port": 65536})",
              "auth: redirect_port is not an integer from 0 to 65535"},
          Row{R"({"redirect_port": -1})", "auth: redirect_port is not an integer from 0 to 65535"},
          Row{R"({"redirect_port": "8080"})",
              "auth: redirect_port is not an integer from 0 to 65535"},
          Row{R"({"redirect_port": 80.5})",
              "auth: redirect_port is not an integer from 0 to 65535"},
          Row{R"({"max_step_ups": 11})", "auth: max_step_ups is not an integer from 0 to 10"},
          Row{R"({"max_step_ups": -1})", "auth: max_step_ups is not an integer from 0 to 10"},
      }) {
    SCOPED_TRACE(row.auth);
    EXPECT_THAT(ParseConfig(AuthConfigText(row.auth), kConfigPath),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "config /etc/agentrt/proxy.json: server \"tickets\": " + row.error));
  }
}

TEST(ConfigAuthTest, ReadsAnIdentityAssertionGrant) {
  absl::StatusOr<Config> config = ParseConfig(
      AuthConfigText(R"({"grant": "identity_assertion", "client_id": "app",)"
                     R"( "client_secret_env": "APP_SECRET",)"
                     R"( "idp_token_endpoint": "https://idp.example.com/oauth2/token",)"
                     R"( "idp_client_id": "app-at-idp", "idp_id_token_file": "id-token"})"),
      kConfigPath);
  ASSERT_OK(config);
  const auth::AuthConfig& a = *config->servers[0].auth;
  EXPECT_EQ(a.settings.grant, auth::Grant::kIdentityAssertion);
  EXPECT_EQ(a.settings.idp_token_endpoint, "https://idp.example.com/oauth2/token");
  EXPECT_EQ(a.settings.idp_client_id, "app-at-idp");
  EXPECT_EQ(a.idp_id_token.file, "/etc/agentrt/id-token");
  EXPECT_EQ(a.client_secret.env, "APP_SECRET");
}

TEST(ConfigAuthTest, RefusesABlockOnACommandServer) {
  EXPECT_THAT(ParseConfig(ConfigText("", R"(, "auth": {})"), kConfigPath),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "config /etc/agentrt/proxy.json: server \"bank\": auth: only a server "
                       "reached over HTTP (an endpoint) is authorized to"));
}

}  // namespace
}  // namespace agentrt::mcp
