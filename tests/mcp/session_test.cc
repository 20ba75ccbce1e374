// The MCP client session over a real child process (tests/mcp/fake_mcp_server.cc): the
// handshake and its versions, requests answered by id while the server asks things of the
// client, a dead session failing fast, Close at any time, phase errors with the server's stderr,
// and a child that gets exactly its environment and leaves nothing behind
// (docs/mcp.md, "The configuration").
#include "mcp/session.h"

#include <signal.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/pin.h"
#include "mcp/server.h"
#include "mcp/stdio_transport.h"
#include "runtime/world/clock.h"
#include "runtime/world/environment.h"
#include "runtime/world/real_launcher.h"
#include "tests/support/process_gone.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

constexpr char kServer[] = AGENTRT_FAKE_MCP_SERVER;

// What a server wrote to stderr, from the launcher's thread.
class Captured {
 public:
  std::function<void(std::string_view)> Sink() {
    return [this](std::string_view bytes) {
      absl::MutexLock lock(&mu_);
      text_ += bytes;
    };
  }
  std::string Text() {
    absl::MutexLock lock(&mu_);
    return text_;
  }
  // The text once it holds a whole line starting with `prefix`, or as it is after `timeout`:
  // stderr is read on its own pipe, so what a server printed before it answered on stdout may
  // arrive after the answer.
  std::string TextOnceItHoldsALine(std::string_view prefix, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto holds = [&] {
      std::size_t at = text_.find(prefix);
      return at != std::string::npos && text_.find('\n', at) != std::string::npos;
    };
    mu_.AwaitWithTimeout(absl::Condition(&holds), timeout);
    return text_;
  }

 private:
  absl::Mutex mu_;
  std::string text_;
};

class SessionTest : public ::testing::Test {
 protected:
  Server FakeServer(std::vector<std::string> args) {
    Server server;
    server.name = "fs";
    server.command = {kServer};
    server.command.insert(server.command.end(), args.begin(), args.end());
    server.connect_timeout = absl::Seconds(10);
    return server;
  }
  world::World World() {
    return {.clock = &clock_, .launcher = &launcher_, .environment = &environment_};
  }
  absl::StatusOr<std::unique_ptr<Session>> Open(std::vector<std::string> args,
                                                absl::Duration timeout = absl::Seconds(10)) {
    Server server = FakeServer(std::move(args));
    server.connect_timeout = timeout;
    return Connect(server, World(), clock_.Now() + timeout);
  }
  absl::Time In(absl::Duration d) { return clock_.Now() + d; }

  world::RealClock clock_;
  world::FixedEnvironment environment_{{{"PATH", "/usr/bin:/bin"},
                                        {"HOME", "/home/op"},
                                        {"AWS_SECRET_ACCESS_KEY", "s3cret"},
                                        {"LANG", "C"}}};
  world::RealLauncher launcher_{
      clock_, {.stdin_grace = absl::Milliseconds(300), .term_grace = absl::Milliseconds(300)}};
};

TEST_F(SessionTest, HandshakeThenRequestsAnsweredById) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"normal"});
  ASSERT_OK(session);
  EXPECT_EQ((*session)->protocol_version(), "2025-11-25");
  EXPECT_THAT((*session)->server_info(), HasSubstr(R"("serverInfo":{"name":"fake")"));
  absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", In(absl::Seconds(10)));
  ASSERT_OK(tools);
  EXPECT_THAT(*tools, HasSubstr(R"("name":"read_file")"));
  absl::StatusOr<std::string> call = (*session)->Request(
      "tools/call", R"({"arguments":{"path":"a"},"name":"read_file"})", In(absl::Seconds(10)));
  ASSERT_OK(call);
  EXPECT_THAT(*call, HasSubstr(R"(\"name\":\"read_file\")"));
  absl::StatusOr<std::string> unknown =
      (*session)->Request("resources/list", "", In(absl::Seconds(10)));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(unknown.status().message(),
            "the server answered resources/list with error -32601: \"not here\"");
}

TEST_F(SessionTest, OlderProtocolVersionsAreAcceptedAndOthersRefused) {
  for (const char* version : {"2025-06-18", "2025-03-26"}) {
    absl::StatusOr<std::unique_ptr<Session>> session = Open({"version", version});
    ASSERT_OK(session);
    EXPECT_EQ((*session)->protocol_version(), version);
  }
  absl::StatusOr<std::unique_ptr<Session>> future = Open({"version", "2099-01-01\x1b[2J"});
  EXPECT_EQ(future.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(future.status().message(),
              HasSubstr("mcp: server \"fs\": connect: the server speaks protocol version "
                        "\"2099-01-01\\x1b[2J\", which this client does not"));
}

// A server that asks things of the client, notifies, answers with a wrong id and writes a line
// that is not JSON before each answer never stalls a request: pings are answered, the rest
// refused, with the server's own ids (strings here) echoed.
TEST_F(SessionTest, AServerThatAsksAndChattersIsAnsweredAndTheRequestStillCompletes) {
  Server server = FakeServer({"chatty"});
  Captured stderr_text;
  server.stderr_sink = stderr_text.Sink();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(server, World(), In(absl::Seconds(10)));
  ASSERT_OK(session);
  absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", In(absl::Seconds(10)));
  ASSERT_OK(tools);
  EXPECT_THAT(*tools, HasSubstr("read_file"));
  (*session)->Close();  // the server's stderr is whole once it is gone
  std::string text = stderr_text.Text();
  EXPECT_THAT(text, HasSubstr(R"(answer: {"id":"srv-1","jsonrpc":"2.0","result":{}})"));
  EXPECT_THAT(text, HasSubstr(R"(answer: {"error":{"code":-32601,"message":"agentrt does )"
                              R"(not support sampling/createMessage"},"id":"srv-2")"));
  EXPECT_THAT(text, HasSubstr(R"(answer: {"error":{"code":-32601,"message":"a request needs a )"
                              R"(method"},"id":3,"jsonrpc":"2.0"})"));
}

TEST_F(SessionTest, AnUnansweredRequestTimesOutSayingWhatTheServerSentInstead) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"hang-call"});
  ASSERT_OK(session);
  absl::Time start = clock_.Now();
  absl::StatusOr<std::string> call =
      (*session)->Request("tools/call", R"({"name":"read_file"})", In(absl::Milliseconds(200)));
  EXPECT_EQ(call.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(call.status().message(), "no answer to tools/call by the deadline");
  EXPECT_LT(clock_.Now() - start, absl::Seconds(5));
  // The session is still usable after a timeout.
  EXPECT_OK((*session)->Request("tools/list", "", In(absl::Seconds(10))));
}

TEST_F(SessionTest, ADeadSessionFailsAtOnceNamingWhyEveryTime) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"die-on-call"});
  ASSERT_OK(session);
  absl::StatusOr<std::string> first =
      (*session)->Request("tools/call", R"({"name":"read_file"})", In(absl::Seconds(10)));
  EXPECT_EQ(first.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(first.status().message(), "the connection is lost: the server closed its output");
  absl::Time start = clock_.Now();
  absl::StatusOr<std::string> second = (*session)->Request("tools/list", "", In(absl::Seconds(10)));
  EXPECT_EQ(second.status(), first.status());
  EXPECT_LT(clock_.Now() - start, absl::Seconds(1));
}

TEST_F(SessionTest, CloseIsSafeTwiceFromTwoThreadsAndWhileARequestWaits) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"hang-call"});
  ASSERT_OK(session);
  absl::StatusOr<std::string> call;
  std::thread caller([&] {
    call = (*session)->Request("tools/call", R"({"name":"read_file"})", In(absl::Seconds(30)));
  });
  // Two closers at once, while the call waits (it fails however the threads interleave).
  std::thread a([&] { (*session)->Close(); });
  std::thread b([&] { (*session)->Close(); });
  a.join();
  b.join();
  caller.join();
  EXPECT_EQ(call.status().code(), absl::StatusCode::kCancelled);
  (*session)->Close();
  EXPECT_EQ((*session)->Request("tools/list", "", In(absl::Seconds(1))).status().code(),
            absl::StatusCode::kCancelled);
}

TEST_F(SessionTest, AServerThatFailsToStartIsAConnectErrorWithItsStderr) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"fail-start"});
  EXPECT_EQ(session.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(session.status().message(), HasSubstr("mcp: server \"fs\": connect: "));
  EXPECT_THAT(session.status().message(), HasSubstr("; stderr: \"oops: missing config\""));

  // 20,000 bytes of stderr: the message ends with the last of it, bounded.
  absl::StatusOr<std::unique_ptr<Session>> flood = Open({"flood", "20000"});
  EXPECT_THAT(flood.status().message(), HasSubstr("the end"));
  EXPECT_LE(flood.status().message().size(), 4096u + 500u);

  // With a sink the stderr goes there and not into the error.
  std::string sunk;
  Server server = FakeServer({"fail-start"});
  server.stderr_sink = [&](std::string_view bytes) { sunk += bytes; };
  absl::StatusOr<std::unique_ptr<Session>> with_sink =
      Connect(server, World(), In(absl::Seconds(10)));
  EXPECT_THAT(with_sink.status().message(), Not(HasSubstr("stderr")));
  EXPECT_THAT(sunk, HasSubstr("oops: missing config"));
}

TEST_F(SessionTest, AServerThatDiesOnTheListingIsAListToolsErrorWithItsStderr) {
  absl::StatusOr<Manifest> pinned = Pin(FakeServer({"die-on-list"}), World());
  EXPECT_EQ(pinned.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(pinned.status().message(), HasSubstr("mcp: server \"fs\": list tools: "));
  EXPECT_THAT(pinned.status().message(), HasSubstr("; stderr: \"listing refused: no licence\""));
}

// A launcher that counts what it was asked to start, and starts it.
class CountingLauncher final : public world::LauncherWrapper {
 public:
  explicit CountingLauncher(world::Launcher& real) : LauncherWrapper(real) {}
  absl::StatusOr<std::unique_ptr<world::Process>> Start(const world::LaunchSpec& spec) override {
    ++starts;
    return LauncherWrapper::Start(spec);
  }
  int starts = 0;
};

TEST_F(SessionTest, AMalformedServerIsRefusedBeforeAnythingStarts) {
  struct Case {
    std::function<void(Server&)> edit;
    std::string error;
  };
  const std::vector<Case> cases = {
      {[](Server& s) { s.env = {"NOEQUALS"}; },
       R"(mcp: server "fs": Env entry "NOEQUALS" is not NAME=value)"},
      {[](Server& s) { s.env = {"=v"}; }, R"(mcp: server "fs": Env entry "=v" is not NAME=value)"},
      {[](Server& s) { s.inherit_env = {"A=B"}; },
       R"(mcp: server "fs": InheritEnv entry "A=B" is not a variable name)"},
      {[](Server& s) { s.inherit_env = {""}; },
       R"(mcp: server "fs": InheritEnv entry "" is not a variable name)"},
      {[](Server& s) { s.endpoint = "http://127.0.0.1:1/mcp"; },
       R"(mcp: server "fs": Command and Endpoint are exclusive)"},
      {[](Server& s) { s.command.clear(); },
       R"(mcp: server "fs": one of Command or Endpoint is required)"},
      {[](Server& s) { s.name.clear(); }, "mcp: server name is required"},
  };
  CountingLauncher counting(launcher_);
  for (const Case& c : cases) {
    Server server = FakeServer({});
    c.edit(server);
    world::World w = World();
    w.launcher = &counting;
    absl::StatusOr<std::unique_ptr<Session>> session = Connect(server, w, In(absl::Seconds(10)));
    EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument) << c.error;
    EXPECT_EQ(session.status().message(), c.error);
    absl::StatusOr<Manifest> pinned = Pin(server, w);
    EXPECT_EQ(pinned.status().message(), c.error);
  }
  EXPECT_EQ(counting.starts, 0);
}

TEST(ConnectTimeoutTest, AServerWithoutOneGetsThirtySecondsNeverNone) {
  Server server;
  EXPECT_EQ(ConnectTimeout(server), absl::Seconds(30));
  server.connect_timeout = absl::Milliseconds(50);
  EXPECT_EQ(ConnectTimeout(server), absl::Milliseconds(50));
}

// An authorization that always offers the same header (ValidateServer only asks whether there
// is one).
class FixedAuthorization final : public Authorization {
 public:
  absl::StatusOr<std::string> Header(absl::Time) override { return "Bearer from-authorization"; }
  absl::Status Refused(int, const world::HttpFields&, absl::Time) override {
    return absl::PermissionDeniedError("refused");
  }
};

Server TicketsServer() {
  Server server;
  server.name = "tickets";
  server.endpoint = "https://mcp.tickets.example.com/mcp";
  return server;
}

TEST(ValidateServerTest, AnAuthorizationHeaderOrAnAuthorizationAloneIsAccepted) {
  Server header = TicketsServer();
  header.headers = {{"Authorization", "Bearer t0ken-S3cret"}};
  EXPECT_OK(ValidateServer(header));
  Server authorization = TicketsServer();
  authorization.authorization = std::make_shared<FixedAuthorization>();
  EXPECT_OK(ValidateServer(authorization));
  Server configured = TicketsServer();
  configured.auth = auth::AuthConfig{};
  EXPECT_OK(ValidateServer(configured));
  // Other headers sit beside an authorization: only one thing may say what Authorization is.
  configured.headers = {{"X-Tenant", "ops"}, {"Proxy-Authorization", "Basic cHJveHk="}};
  EXPECT_OK(ValidateServer(configured));
}

TEST(ValidateServerTest, AnAuthorizationHeaderBesideAnAuthorizationIsRefused) {
  const std::string error =
      R"(mcp: server "tickets": an Authorization header and an authorization are exclusive )"
      "(which would be sent?)";
  for (const char* name : {"Authorization", "authorization", "AUTHORIZATION"}) {
    SCOPED_TRACE(name);
    Server authorization = TicketsServer();
    authorization.headers = {{"X-Tenant", "ops"}, {name, "Bearer t0ken-S3cret"}};
    authorization.authorization = std::make_shared<FixedAuthorization>();
    EXPECT_THAT(ValidateServer(authorization), StatusIs(absl::StatusCode::kInvalidArgument, error));

    Server configured = TicketsServer();
    configured.headers = {{name, "Bearer t0ken-S3cret"}};
    configured.auth = auth::AuthConfig{};
    EXPECT_THAT(ValidateServer(configured), StatusIs(absl::StatusCode::kInvalidArgument, error));
  }
}

TEST(PhaseErrorTest, NamesTheStepKeepsTheCauseAndQuotesTheTail) {
  // A deadline reads as the step's own timeout; the code stays, so callers still see a deadline.
  absl::Status late =
      PhaseError("fs", "list tools", absl::DeadlineExceededError("context"), absl::Seconds(5), "");
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(late.message(), R"(mcp: server "fs": list tools: timed out after 5s)");
  // Any other cause keeps its code and its words, escaped.
  absl::Status cancelled =
      PhaseError("fs", "connect", absl::CancelledError("stopped\x1b[2K"), absl::Seconds(5), "");
  EXPECT_EQ(cancelled.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(cancelled.message(), HasSubstr(R"(mcp: server "fs": connect: stopped)"));
  EXPECT_EQ(std::string(cancelled.message()).find('\x1b'), std::string::npos);
  // The stderr tail, trimmed, quoted and escaped after the reason.
  absl::Status with_tail = PhaseError("fs", "connect", absl::UnavailableError("exited"),
                                      absl::Seconds(5), "  boom\r\x1b]8;;x\x07\n");
  EXPECT_THAT(with_tail.message(), HasSubstr(R"(mcp: server "fs": connect: exited; stderr: ")"));
  std::string text(with_tail.message());
  EXPECT_EQ(text.find_first_of("\r\n\x1b\x07"), std::string::npos) << text;
}

TEST_F(SessionTest, TheConnectTimeoutBoundsAHandshakeThatNeverAnswers) {
  absl::Time start = clock_.Now();
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"hang-init"}, absl::Milliseconds(50));
  EXPECT_EQ(session.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(session.status().message(), "mcp: server \"fs\": connect: timed out after 50ms");
  EXPECT_LT(clock_.Now() - start, absl::Seconds(5));
}

// Issue 22: a connect or a listing that timed out after lines that are not JSON-RPC said only
// `timed out after`. The error names how many lines the server sent and the last one, escaped
// and cut to its first 200 bytes. (The timeout is long enough for the lines to arrive first.)
TEST_F(SessionTest, AHandshakeThatTimesOutAfterGarbageNamesTheLinesSkipped) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"noisy-init"}, absl::Seconds(2));
  EXPECT_EQ(session.status().code(), absl::StatusCode::kDeadlineExceeded);
  std::string message(session.status().message());
  EXPECT_THAT(message, HasSubstr("mcp: server \"fs\": connect: timed out after 2s (the server "
                                 "sent 3 lines that are not JSON-RPC messages; the last: "
                                 "\"\\x1b]0;owned\\x07xxxx"));
  EXPECT_THAT(message, HasSubstr("…(+310 bytes) (not a JSON-RPC message: "));
  EXPECT_EQ(message.find_first_of("\r\n\x1b\x07"), std::string::npos) << message;
}

TEST_F(SessionTest, AListingThatTimesOutAfterGarbageNamesTheLinesSkipped) {
  Server server = FakeServer({"noisy-list"});
  server.connect_timeout = absl::Seconds(2);
  absl::StatusOr<Manifest> pinned = Pin(server, World());
  EXPECT_EQ(pinned.status().code(), absl::StatusCode::kDeadlineExceeded);
  std::string message(pinned.status().message());
  EXPECT_THAT(message, HasSubstr("mcp: server \"fs\": list tools: timed out after 2s (the "
                                 "server sent 3 lines that are not JSON-RPC messages; the last: "
                                 "\"\\x1b]0;owned\\x07xxxx"));
  EXPECT_EQ(message.find_first_of("\r\n\x1b\x07"), std::string::npos) << message;
}

TEST_F(SessionTest, AServersErrorMessageIsEscapedInTheError) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open({"errors"});
  ASSERT_THAT(session, StatusIs(absl::StatusCode::kFailedPrecondition));
  std::string message(session.status().message());
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_EQ(message.find('\r'), std::string::npos);
  EXPECT_EQ(message.find('\x07'), std::string::npos);
  EXPECT_THAT(message, HasSubstr("pinned 3 tools OK"));
}

TEST_F(SessionTest, TheServerGetsOnlyTheEnvironmentItIsGiven) {
  Server server = FakeServer({"env"});
  server.inherit_env = {"LANG", "UNSET"};
  server.env = {"API_KEY=k", "EMPTY="};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(server, World(), In(absl::Seconds(10)));
  ASSERT_OK(session);
  absl::StatusOr<std::string> call =
      (*session)->Request("tools/call", R"({"name":"env"})", In(absl::Seconds(10)));
  ASSERT_OK(call);
  EXPECT_THAT(*call, HasSubstr(R"("text":"PATH=/usr/bin:/bin\nHOME=/home/op\nLANG=C\n)"
                               R"(API_KEY=k\nEMPTY=\n")"));
  EXPECT_THAT(*call, Not(HasSubstr("s3cret")));
}

TEST_F(SessionTest, CloseLeavesNoDescendantOfTheServerBehind) {
  Server server = FakeServer({"grandchild"});
  Captured stderr_text;
  server.stderr_sink = stderr_text.Sink();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Connect(server, World(), In(absl::Seconds(10)));
  ASSERT_OK(session);
  // The grandchild is running once the server answered (it printed its pid before serving).
  pid_t grandchild = 0;
  std::string text = stderr_text.TextOnceItHoldsALine("grandchild ", absl::Seconds(10));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "grandchild ")) (void)absl::SimpleAtoi(line, &grandchild);
  }
  ASSERT_GT(grandchild, 0) << text;
  ASSERT_FALSE(test_support::ProcessGone(grandchild));
  (*session)->Close();
  EXPECT_TRUE(test_support::ProcessGoneWithin(grandchild, absl::Seconds(5)));
}

}  // namespace
}  // namespace agentrt::mcp
