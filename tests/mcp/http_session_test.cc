// The MCP client session over streamable HTTP, against a real server on loopback
// (tests/mcp/fake_http_mcp.h) through the real network: JSON and event-stream answers (a
// priming event and a decoy event skipped), the session id and protocol version on every later
// request, a forgotten session initialized again, a cut stream resumed after its retry, DELETE
// on close, no redirect followed, and a body over 16 MiB refused by name.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/pin.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/http_server.h"
#include "tests/mcp/fake_http_mcp.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

using ::agentrt::mcp::testing::FakeHttpMcp;

class HttpSessionTest : public ::testing::Test {
 protected:
  void Serve(FakeHttpMcp::Options options) {
    server_.reset();  // the old server stops before its service goes
    service_ = std::make_unique<FakeHttpMcp>(std::move(options));
    absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
        world::HttpServer::Listen("127.0.0.1", 0, *service_);
    ASSERT_OK(server);
    server_ = *std::move(server);
    network_ = *world::CurlNetwork::Create(clock_, {.loopback_only = true});
  }
  std::string Url(const std::string& path = "/mcp") {
    return absl::StrCat("http://127.0.0.1:", server_->port(), path);
  }
  absl::StatusOr<std::unique_ptr<Session>> Open() {
    Server server;
    server.name = "web";
    server.endpoint = Url();
    server.headers = {{"Authorization", "Bearer t0ken"}};
    return Connect(server, {.clock = &clock_, .network = network_.get()},
                   clock_.Now() + absl::Seconds(10));
  }
  absl::Time In(absl::Duration d) { return clock_.Now() + d; }

  world::RealClock clock_;
  std::unique_ptr<FakeHttpMcp> service_;
  std::unique_ptr<world::HttpServer> server_;
  std::unique_ptr<world::CurlNetwork> network_;
};

TEST_F(HttpSessionTest, JsonAndEventStreamAnswersBothWork) {
  for (bool sse : {false, true}) {
    SCOPED_TRACE(sse ? "event stream" : "JSON");
    Serve({.sse = sse,
           .schema = R"({"properties":{"n":{"maximum":9007199254740993}},)"
                     R"("type":"object"})"});
    absl::StatusOr<std::unique_ptr<Session>> session = Open();
    ASSERT_OK(session);
    absl::StatusOr<std::string> tools =
        (*session)->Request("tools/list", "", In(absl::Seconds(10)));
    ASSERT_OK(tools);
    // The raw number survives; the decoy event of another type is never taken for the answer.
    EXPECT_THAT(*tools, HasSubstr("9007199254740993"));
    EXPECT_THAT(*tools, ::testing::Not(HasSubstr("decoy")));
    absl::StatusOr<std::string> call =
        (*session)->Request("tools/call", R"({"name":"read_file"})", In(absl::Seconds(10)));
    ASSERT_OK(call);
    EXPECT_THAT(*call, HasSubstr("contents"));
    (*session)->Close();
  }
}

TEST_F(HttpSessionTest, LaterRequestsCarryTheSessionAndVersionAndCloseDeletesIt) {
  Serve({});
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  ASSERT_OK(session);
  ASSERT_OK((*session)->Request("tools/list", "", In(absl::Seconds(10))));
  (*session)->Close();
  std::vector<FakeHttpMcp::Seen> seen = service_->seen();
  ASSERT_EQ(seen.size(), 4u);  // initialize, initialized, tools/list, DELETE
  EXPECT_EQ(world::FindHeader(seen[0].headers, "Mcp-Session-Id"), std::nullopt);
  EXPECT_EQ(world::FindHeader(seen[0].headers, "Accept"), "application/json, text/event-stream");
  EXPECT_EQ(world::FindHeader(seen[0].headers, "Authorization"), "Bearer t0ken");
  for (std::size_t i = 1; i < seen.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(world::FindHeader(seen[i].headers, "Mcp-Session-Id"), "session-1");
    EXPECT_EQ(world::FindHeader(seen[i].headers, "MCP-Protocol-Version"), "2025-11-25");
  }
  EXPECT_THAT(seen[1].body, HasSubstr("notifications/initialized"));
  EXPECT_EQ(seen[3].method, "DELETE");
}

TEST_F(HttpSessionTest, AForgottenSessionIsInitializedAgainAndTheRequestSentOnceMore) {
  Serve({.forget_session_at = 2});  // the initialized notice is 1, tools/list is 2
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  ASSERT_OK(session);
  absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", In(absl::Seconds(10)));
  ASSERT_OK(tools);
  EXPECT_EQ(service_->sessions_started(), 2);
  std::vector<FakeHttpMcp::Seen> seen = service_->seen();
  EXPECT_EQ(world::FindHeader(seen.back().headers, "Mcp-Session-Id"), "session-2");
}

TEST_F(HttpSessionTest, AStreamCutBeforeItsResponseIsResumedAfterItsRetry) {
  Serve({.sse = true, .cut_first_call = true});
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  ASSERT_OK(session);
  absl::Time start = clock_.Now();
  absl::StatusOr<std::string> call =
      (*session)->Request("tools/call", R"({"name":"read_file"})", In(absl::Seconds(10)));
  ASSERT_OK(call);
  EXPECT_THAT(*call, HasSubstr("contents"));
  EXPECT_GE(clock_.Now() - start, absl::Milliseconds(50));  // the retry the server asked for
  std::vector<FakeHttpMcp::Seen> seen = service_->seen();
  const FakeHttpMcp::Seen& resumed = seen.back();
  EXPECT_EQ(resumed.method, "GET");
  EXPECT_EQ(world::FindHeader(resumed.headers, "Last-Event-ID"), "ev-cut");
  EXPECT_EQ(world::FindHeader(resumed.headers, "Accept"), "text/event-stream");
}

TEST_F(HttpSessionTest, ARedirectIsNeverFollowedAndItsTargetGetsNothing) {
  FakeHttpMcp target({});
  absl::StatusOr<std::unique_ptr<world::HttpServer>> other =
      world::HttpServer::Listen("127.0.0.1", 0, target);
  ASSERT_OK(other);
  Serve({.redirect_to = absl::StrCat("http://127.0.0.1:", (*other)->port(), "/mcp")});
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  EXPECT_EQ(session.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(session.status().message(),
              HasSubstr("mcp: server \"web\": connect: the connection is lost: the server "
                        "answered HTTP 307, a redirect, which is never followed"));
  EXPECT_THAT(target.seen(), IsEmpty());
}

TEST_F(HttpSessionTest, AnAnswerOver16MiBIsRefusedByName) {
  Serve({.huge_description = std::size_t{16} << 20});
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  ASSERT_OK(session);
  absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", In(absl::Seconds(30)));
  EXPECT_EQ(tools.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(tools.status().message(), HasSubstr("exceeds 16777216"));
}

TEST_F(HttpSessionTest, AMessageEventWhoseNameIsPaddedIsStillTheMessage) {
  // `event:  message ` names the message event once trimmed; the decoy
  // of another type before it is still skipped.
  Serve({.sse = true, .message_event = "  message "});
  absl::StatusOr<std::unique_ptr<Session>> session = Open();
  ASSERT_OK(session);
  absl::StatusOr<std::string> tools = (*session)->Request("tools/list", "", In(absl::Seconds(10)));
  ASSERT_OK(tools);
  EXPECT_THAT(*tools, HasSubstr("read_file"));
  EXPECT_THAT(*tools, Not(HasSubstr("decoy")));
}

TEST_F(HttpSessionTest, ResultsAndPinnedSchemasKeepTheirNumbersInBothAnswerModes) {
  // A number no double holds, in a call's structured content and in a listed schema, arrives
  // as the server wrote it through JSON and event-stream answers alike.
  for (bool sse : {false, true}) {
    SCOPED_TRACE(sse ? "event stream" : "json");
    Serve({.sse = sse,
           .schema = R"({"properties":{"n":{"maximum":9007199254740993,"type":"integer"}},)"
                     R"("type":"object"})",
           .call_result = R"({"content":[],"structuredContent":{"n":9007199254740993}})"});
    absl::StatusOr<std::unique_ptr<Session>> session = Open();
    ASSERT_OK(session);
    absl::StatusOr<std::string> call = (*session)->Request(
        "tools/call", R"({"arguments":{},"name":"read_file"})", In(absl::Seconds(10)));
    ASSERT_OK(call);
    EXPECT_THAT(*call, HasSubstr(R"("structuredContent":{"n":9007199254740993})"));

    Server server;
    server.name = "web";
    server.endpoint = Url();
    absl::StatusOr<Manifest> manifest = Pin(server, {.clock = &clock_, .network = network_.get()});
    ASSERT_OK(manifest);
    EXPECT_EQ(manifest->tools.at("read_file").input_schema,
              R"({"properties":{"n":{"maximum":9007199254740993,"type":"integer"}},)"
              R"("type":"object"})");
  }
}

}  // namespace
}  // namespace agentrt::mcp
