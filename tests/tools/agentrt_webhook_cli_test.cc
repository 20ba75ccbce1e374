// `agentrt webhook serve` as an operator runs it: the built binary serving a real database on
// loopback (a SQLite file, or a PostgreSQL server in the "[postgres]" registration), decided over
// signed HTTP, and the run then resumed by its consumer.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/operator/approver/webhook/signature.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/clock.h"
#include "runtime/world/entropy.h"
#include "tests/runtime/operator/approver/loopback_client.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/support/test_store.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

extern char** environ;

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::Answer;
using ::agentrt::testing::Bytes;
using ::agentrt::testing::Parse;
using ::agentrt::testing::ProcessResult;
using ::agentrt::testing::RawClient;
using ::agentrt::testing::RunProcess;
using ::agentrt::testing::SlowClients;

const std::string kSecret = "a shared secret of more than thirty-two bytes";

// Reads `fd` to its end.
std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// The command running in the background: its first line of output is read as it comes.
class Server {
 public:
  explicit Server(const std::vector<std::string>& argv) {
    int out[2], err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~Server() {
    if (pid_ > 0) Stop();
  }

  // The first line the command prints (blocks until it is printed or the command exits).
  std::string FirstLine() {
    std::string line;
    char c;
    while (read(out_, &c, 1) == 1 && c != '\n') line.push_back(c);
    return line;
  }

  // The port of the `listening on http://HOST:PORT` line it prints first; 0 when it printed
  // none.
  int Port() {
    std::string listening = FirstLine();
    int port = 0;
    if (!listening.starts_with("listening on http://") ||
        !absl::SimpleAtoi(listening.substr(listening.rfind(':') + 1), &port)) {
      ADD_FAILURE() << "not a listening line: " << listening;
    }
    return port;
  }

  // Sends SIGTERM and waits: the exit code, the rest of stdout, and stderr.
  ProcessResult Stop() {
    kill(pid_, SIGTERM);
    ProcessResult result;
    result.out = ReadAll(out_);
    result.err = ReadAll(err_);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    close(out_);
    close(err_);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int err_ = -1;
};

class AgentrtWebhookCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::TestFolder();
    // A file, or a schema of the test server in the suite's [postgres] registration: the
    // webhook and the consumer are different processes on one database either way.
    db_ = test_support::TestDatabase("audit.db");
    secret_file_ =
        WriteSecret("secret", kSecret + "\n",
                    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    ::unsetenv("AGENTRT_DB");
  }

  std::string WriteSecret(const std::string& name, const std::string& text,
                          std::filesystem::perms perms) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    std::filesystem::permissions(path, perms);
    return path;
  }

  // A run `demo scripted` paused for approval in the database: its id ("" when it failed).
  std::string PausedRun() {
    ProcessResult paused = Agentrt({"demo", "scripted", "--db", db_, "--approval"});
    EXPECT_EQ(paused.exit_code, 0) << paused.err;
    return paused.exit_code == 0 ? paused.out.substr(4, 32) : "";
  }

  std::vector<std::string> Serve(const std::string& secret_file) {
    return {AGENTRT_BIN, "webhook",     "serve",         "--db",     db_,
            "--listen",  "127.0.0.1:0", "--secret_file", secret_file};
  }

  std::filesystem::path dir_;
  std::string db_;
  std::string secret_file_;
};

TEST_F(AgentrtWebhookCliTest, ServesSignedDecisionsUntilSignalled) {
  std::string run = PausedRun();
  ASSERT_FALSE(run.empty());

  Server server(Serve(secret_file_));
  int port = server.Port();
  ASSERT_NE(port, 0);

  // The command reads the real clock, so the client signs with it too.
  world::RealClock clock;
  world::OsEntropy entropy;
  httplib::Client client("127.0.0.1", port);
  auto headers = [](const world::ServerRequest& request) {
    httplib::Headers h;
    for (const auto& [key, value] : request.headers) h.emplace(key, value);
    return h;
  };
  std::string list_path = absl::StrCat("/runs/", run, "/approvals");
  httplib::Result list = client.Get(
      list_path.c_str(),
      headers(approver::webhook::NewRequest(kSecret, clock.Now(), entropy, "GET", list_path)));
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200) << list->body;
  absl::StatusOr<json::Document> doc = json::Parse(list->body);
  ASSERT_OK(doc);
  json::Value pending = doc->root().Find("pending")->element(0);
  std::string id = json::MemberText(pending, "id");
  std::string hash = json::MemberText(pending, "hash");

  std::string approve_path = absl::StrCat(list_path, "/", id, "/approve");
  std::string body = json::JsonObject()
                         .String("run_id", run)
                         .String("approval_id", id)
                         .String("hash", hash)
                         .String("by", "ops")
                         .Build();
  httplib::Result approved =
      client.Post(approve_path.c_str(),
                  headers(approver::webhook::NewRequest(kSecret, clock.Now(), entropy, "POST",
                                                        approve_path, body)),
                  body, "application/json");
  ASSERT_TRUE(approved);
  EXPECT_EQ(approved->status, 202) << approved->body;

  ProcessResult stopped = server.Stop();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_THAT(stopped.out, HasSubstr("stopped"));
  EXPECT_THAT(stopped.err, HasSubstr("webhook.decision"));

  ProcessResult resumed = Agentrt({"demo", "scripted", "--db", db_, "--resume", run});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("COMPLETED"));
}

TEST_F(AgentrtWebhookCliTest, RefusesAWeakSecretAndADatabaseThatIsNotThere) {
  ASSERT_EQ(Agentrt({"demo", "scripted", "--db", db_, "--approval"}).exit_code, 0);
  std::string shared =
      WriteSecret("shared", kSecret,
                  std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                      std::filesystem::perms::others_read);
  ProcessResult r = RunProcess(Serve(shared));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("chmod 600"));

  std::string short_secret =
      WriteSecret("short", "too short\n",
                  std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  r = RunProcess(Serve(short_secret));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("at least 32 bytes"));

  std::string missing = (dir_ / "missing.db").string();
  r = Agentrt({"webhook", "serve", "--db", missing, "--listen", "127.0.0.1:0", "--secret_file",
               secret_file_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(missing));

  r = Agentrt({"webhook", "serve", "--db", db_, "--secret_file", secret_file_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--listen must be HOST:PORT"));
  r = Agentrt({"webhook", "listen"});
  EXPECT_EQ(r.exit_code, 2);
}

// The issue's attack on the command as it is run, with its defaults: 60 connections from
// another address each sending a header line every half second. The operator's signed request
// is answered within 2 s while they hold on, and SIGTERM still stops the command at once.
TEST_F(AgentrtWebhookCliTest, SlowClientsDoNotSilenceTheCommand) {
  std::string run = PausedRun();
  ASSERT_FALSE(run.empty());
  Server server(Serve(secret_file_));
  int port = server.Port();
  ASSERT_NE(port, 0);

  SlowClients slow(port, "127.0.0.2", 60);
  world::RealClock clock;
  world::OsEntropy entropy;
  std::string path = absl::StrCat("/runs/", run, "/approvals");
  absl::Time sent = absl::Now();
  RawClient operator_client(port, "127.0.0.1");
  operator_client.Send(
      Bytes(approver::webhook::NewRequest(kSecret, clock.Now(), entropy, "GET", path)));
  Answer list = Parse(operator_client.ReadToEnd());
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_LT(absl::Now() - sent, absl::Seconds(2));

  // 8 hold their address's slots; the other 52 were answered 503 as they came.
  std::vector<std::string> answers = slow.Answers(52, absl::Seconds(2));
  int held = 0;
  for (const std::string& answer : answers) {
    if (answer.empty()) {
      ++held;
    } else {
      EXPECT_EQ(Parse(answer).status, 503) << answer;
    }
  }
  EXPECT_EQ(held, 8);

  absl::Time stopping = absl::Now();
  ProcessResult stopped = server.Stop();
  EXPECT_LT(absl::Now() - stopping, absl::Seconds(2));
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_THAT(stopped.err, HasSubstr("webhook.refused"));
  EXPECT_THAT(stopped.err, HasSubstr(R"("status":503)"));
}

// Issue 22's attack on the command: a flood of unsigned requests from one address, more than
// the rate limit's burst, made the operator's signed request answer 429. Only the flooding
// address is held back now.
TEST_F(AgentrtWebhookCliTest, AnUnsignedFloodDoesNotSilenceTheCommand) {
  std::string run = PausedRun();
  ASSERT_FALSE(run.empty());
  Server server(Serve(secret_file_));
  int port = server.Port();
  ASSERT_NE(port, 0);

  std::string path = absl::StrCat("/runs/", run, "/approvals");
  int limited = 0;
  for (int i = 0; i < 100; ++i) {
    RawClient flood(port, "127.0.0.2");
    flood.Send(absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: a\r\n\r\n"));
    limited += Parse(flood.ReadToEnd()).status == 429;
  }
  EXPECT_GT(limited, 0);  // the flooding address is held back

  world::RealClock clock;
  world::OsEntropy entropy;
  RawClient operator_client(port, "127.0.0.1");
  operator_client.Send(
      Bytes(approver::webhook::NewRequest(kSecret, clock.Now(), entropy, "GET", path)));
  Answer list = Parse(operator_client.ReadToEnd());
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(server.Stop().exit_code, 0);
}

TEST_F(AgentrtWebhookCliTest, TheConnectionCapsAreFlags) {
  ASSERT_EQ(Agentrt({"demo", "scripted", "--db", db_, "--approval"}).exit_code, 0);
  std::vector<std::string> argv = Serve(secret_file_);
  for (const char* flag : {"--max_connections", "4", "--max_connections_per_address", "2"}) {
    argv.push_back(flag);
  }
  Server server(argv);
  int port = server.Port();
  ASSERT_NE(port, 0);
  RawClient first(port, "127.0.0.2");
  RawClient second(port, "127.0.0.2");
  RawClient third(port, "127.0.0.2");
  Answer busy = Parse(third.ReadToEnd());
  EXPECT_EQ(busy.status, 503) << busy.body;
  EXPECT_EQ(busy.Member("code"), "busy");
  EXPECT_EQ(server.Stop().exit_code, 0);

  // A cap per address that would let one address take every connection is a usage error.
  argv = Serve(secret_file_);
  for (const char* flag : {"--max_connections", "8", "--max_connections_per_address", "8"}) {
    argv.push_back(flag);
  }
  ProcessResult r = RunProcess(argv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("one address cannot hold every connection"));
}

}  // namespace
}  // namespace agentrt
