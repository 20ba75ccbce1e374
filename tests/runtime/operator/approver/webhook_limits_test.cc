// The approval webhook under slow clients (issue 13): the server's caps on connections and its
// deadlines on a request's arrival (runtime/world/http_server.h), over real sockets on loopback.
// The slow clients come from 127.0.0.2 and up, the operator from 127.0.0.1 (loopback_client.h).
// Deadlines that must fire are configured small; waits on an answer are bounded (a bound only
// ends a failing test).
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/json_object.h"
#include "runtime/operator/approver/local.h"
#include "runtime/operator/approver/webhook/handler.h"
#include "runtime/operator/approver/webhook/signature.h"
#include "runtime/records/run_reader.h"
#include "runtime/world/http_server.h"
#include "tests/runtime/operator/approver/loopback_client.h"
#include "tests/runtime/operator/approver/paused_run.h"
#include "tests/support/status_matchers.h"

namespace agentrt::approver::webhook {
namespace {

using testing::Answer;
using testing::Bytes;
using testing::Parse;
using testing::PausedRunTest;
using testing::RawClient;
using testing::SlowClients;

const std::string kSecret = "0123456789abcdef0123456789abcdef-limits";

class WebhookLimitsTest : public PausedRunTest {
 protected:
  void SetUp() override {
    PausedRunTest::SetUp();
    local_ = std::make_unique<Local>(*store_, clock_);
  }
  void TearDown() override {
    server_.reset();
    PausedRunTest::TearDown();
  }

  void Serve(world::HttpServerOptions options) {
    Config config;
    config.approver = local_.get();
    config.secret = kSecret;
    config.clock = &clock_;
    config.observer = [this](const store::Event& e) {
      absl::MutexLock lock(&mu_);
      if (e.type == "webhook.refused") refusals_.push_back(e.payload_json);
    };
    absl::StatusOr<std::unique_ptr<Handler>> handler = Handler::Create(std::move(config));
    ASSERT_OK(handler);
    handler_ = *std::move(handler);
    absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
        world::HttpServer::Listen("127.0.0.1", 0, *handler_, options);
    ASSERT_OK(server);
    server_ = *std::move(server);
  }
  int port() const { return server_->port(); }

  std::string Signed(std::string_view method, std::string_view path, std::string_view body = "") {
    return Bytes(NewRequest(kSecret, clock_.Now(), entropy_, method, path, body));
  }
  // Sends `bytes` on a fresh connection from `from` and reads the answer to its end.
  Answer Ask(const std::string& bytes, const char* from = "127.0.0.1") {
    RawClient client(port(), from);
    client.Send(bytes);
    return Parse(client.ReadToEnd());
  }

  std::vector<std::string> Refusals() {
    absl::MutexLock lock(&mu_);
    return refusals_;
  }

  std::unique_ptr<Local> local_;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<world::HttpServer> server_;
  absl::Mutex mu_;
  std::vector<std::string> refusals_ ABSL_GUARDED_BY(mu_);
};

void ExpectBusy(const Answer& answer) {
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(answer.Member("code"), "busy");
  EXPECT_EQ(answer.Header("Retry-After"), "1");
  EXPECT_EQ(answer.Header("Cache-Control"), "no-store");
  EXPECT_EQ(answer.Count("Connection"), 1);
  EXPECT_EQ(answer.Header("Connection"), "close");
}

TEST_F(WebhookLimitsTest, SixtySlowClientsDoNotSilenceASignedRequest) {
  Serve({});  // the defaults: 64 connections, 8 an address, 5 s for the headers
  Start("run-1");
  SlowClients slow(port(), "127.0.0.2", 60);

  absl::Time sent = absl::Now();
  Answer list = Ask(Signed("GET", "/runs/run-1/approvals"));
  absl::Duration took = absl::Now() - sent;
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Member("run_id"), "run-1");
  EXPECT_LT(took, absl::Seconds(2));

  // All 60 were accepted before the signed request: 8 hold their address's slots, the other 52
  // were answered as they came in.
  std::vector<std::string> answers = slow.Answers(52, absl::Seconds(2));
  int held = 0;
  for (const std::string& answer : answers) {
    if (answer.empty()) {
      ++held;
      continue;
    }
    SCOPED_TRACE(answer);
    ExpectBusy(Parse(answer));
  }
  EXPECT_EQ(held, 8);
  std::vector<std::string> refusals = Refusals();
  ASSERT_FALSE(refusals.empty());
  EXPECT_THAT(refusals.front(), HasSubstr(R"("remote":"127.0.0.2:)"));
  EXPECT_THAT(refusals.front(), HasSubstr(R"("status":503)"));
}

TEST_F(WebhookLimitsTest, TheHeadersMustArriveWithinTheHeaderTimeout) {
  world::HttpServerOptions options;
  options.header_timeout = absl::Milliseconds(300);
  Serve(options);
  struct Row {
    std::string name;
    std::string first;  // sent on connecting
    bool drip;          // then a header line every 50 ms, far inside any per-read timeout
  };
  const Row rows[] = {
      {"nothing sent", "", false},
      {"the request line only", "GET /runs/run-1/approvals HTTP/1.1\r\n", false},
      {"a header line every 50 ms", "GET /runs/run-1/approvals HTTP/1.1\r\n", true},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    absl::Time start = absl::Now();
    RawClient client(port(), "127.0.0.2");
    if (!row.first.empty()) client.Send(row.first);
    for (int line = 0;
         !client.Readable(absl::Milliseconds(50)) && absl::Now() - start < absl::Seconds(5);
         ++line) {
      if (row.drip) client.Send(absl::StrCat("X-Line-", line, ": 1\r\n"));
    }
    Answer answer = Parse(client.ReadToEnd());
    absl::Duration took = absl::Now() - start;
    EXPECT_EQ(answer.status, 408) << answer.body;
    EXPECT_EQ(answer.Member("code"), "request_timeout");
    EXPECT_EQ(answer.Count("Connection"), 1);
    EXPECT_GE(took, absl::Milliseconds(300));
    EXPECT_LT(took, absl::Milliseconds(300) + absl::Seconds(2));
  }
  std::vector<std::string> refusals = Refusals();
  ASSERT_EQ(refusals.size(), 3u);
  for (const std::string& refusal : refusals) EXPECT_THAT(refusal, HasSubstr(R"("status":408)"));
}

TEST_F(WebhookLimitsTest, TheHeadIsBoundedInBytes) {
  world::HttpServerOptions options;
  options.header_timeout = absl::Seconds(30);  // the bound in bytes answers, not the time
  Serve(options);
  RawClient client(port(), "127.0.0.1");
  std::string head = "GET /runs/run-1/approvals HTTP/1.1\r\n";
  while (head.size() <= world::kMaxHeadBytes) {
    absl::StrAppend(&head, "X-Filler-", head.size(), ": ", std::string(1000, 'f'), "\r\n");
  }
  absl::Time start = absl::Now();
  client.Send(head);
  Answer answer = Parse(client.ReadToEnd());
  EXPECT_EQ(answer.status, 400) << answer.body;
  EXPECT_EQ(answer.Member("code"), "bad_request");
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST_F(WebhookLimitsTest, TheBodyHasTimeByItsSize) {
  world::HttpServerOptions options;
  options.body_timeout = absl::Milliseconds(200);
  options.min_body_rate = 1000;  // bytes a second
  Serve(options);
  Start("run-1");
  const std::string path = "/runs/run-1/cancel";

  // A short body has little more than body_timeout: half of it, and then nothing, is answered
  // 408 before the rest would have come.
  std::string short_body = R"({"run_id":"run-1","by":"ops"})";
  std::string request = Signed("POST", path, short_body);
  RawClient slow(port(), "127.0.0.1");
  absl::Time start = absl::Now();
  slow.Send(request.substr(0, request.size() - short_body.size() / 2));
  Answer late = Parse(slow.ReadToEnd());
  EXPECT_EQ(late.status, 408) << late.body;
  EXPECT_EQ(late.Member("code"), "request_timeout");
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  ASSERT_FALSE(Refusals().empty());
  EXPECT_THAT(Refusals().back(), HasSubstr(R"("path":"/runs/run-1/cancel")"));
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);

  // 1500 bytes have 200 ms + 1.5 s: a pause of 600 ms halfway, three times body_timeout, is
  // within it. (The pause is the slow client under test, not a wait for the server.)
  std::string long_body = json::JsonObject()
                              .String("run_id", "run-1")
                              .String("by", "ops")
                              .String("note", std::string(1450, 'n'))
                              .Build();
  request = Signed("POST", path, long_body);
  RawClient patient(port(), "127.0.0.1");
  std::size_t half = request.size() - long_body.size() / 2;
  patient.Send(request.substr(0, half));
  absl::SleepFor(absl::Milliseconds(600));
  patient.Send(request.substr(half));
  Answer cancelled = Parse(patient.ReadToEnd());
  EXPECT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.Member("status"), "cancelled");
}

TEST_F(WebhookLimitsTest, AConnectionOverTheOverallCapIsAnsweredAtOnce) {
  world::HttpServerOptions options;
  options.max_connections = 4;
  options.max_connections_per_address = 3;
  options.header_timeout = absl::Seconds(30);  // nothing here ends by time
  Serve(options);
  Start("run-1");
  RawClient a1(port(), "127.0.0.2"), a2(port(), "127.0.0.2"), a3(port(), "127.0.0.2");
  RawClient b(port(), "127.0.0.3");

  absl::Time start = absl::Now();
  ExpectBusy(Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.4"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));

  // A slot is free again once the answer on it has ended.
  b.Send(Signed("GET", "/runs/run-1/approvals"));
  EXPECT_EQ(Parse(b.ReadToEnd()).status, 200);
  Answer list = Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.4");
  EXPECT_EQ(list.status, 200) << list.body;
}

TEST_F(WebhookLimitsTest, AConnectionOverTheCapPerAddressIsAnsweredAtOnce) {
  world::HttpServerOptions options;
  options.max_connections = 8;
  options.max_connections_per_address = 2;
  options.header_timeout = absl::Seconds(30);
  Serve(options);
  Start("run-1");
  RawClient a1(port(), "127.0.0.2"), a2(port(), "127.0.0.2");

  absl::Time start = absl::Now();
  ExpectBusy(Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.2"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  std::vector<std::string> refusals = Refusals();
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_THAT(refusals[0], HasSubstr(R"("remote":"127.0.0.2:)"));
  EXPECT_THAT(refusals[0], HasSubstr(R"("reason":"too many connections open; retry shortly")"));

  // Another address is not held back by the first one's.
  start = absl::Now();
  EXPECT_EQ(Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.1").status, 200);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST_F(WebhookLimitsTest, ATooLargeBodyIsRefusedWithOneConnectionClose) {
  Serve({});
  RawClient client(port(), "127.0.0.1");
  // Signed headers, so the refusal is the body's (a signature is checked only once it is read).
  std::string head = Signed("POST", "/runs/run-1/approvals/x/approve");
  head.replace(head.find("Content-Length: 0"), 17, "Content-Length: 100000");
  client.Send(head);
  std::string wire = client.ReadToEnd();
  Answer answer = Parse(wire);
  EXPECT_EQ(answer.status, 413);
  EXPECT_EQ(answer.Member("code"), "body_too_large");
  EXPECT_EQ(answer.Count("Connection"), 1) << wire;
  EXPECT_EQ(answer.Header("Connection"), "close");
}

// Issue 22: unsigned requests spent the rate limit every client shares, so a flood from one
// address answered a signed request from another 429. The transport tells the handler each
// request's address, and only that address pays for its failures.
TEST_F(WebhookLimitsTest, AnUnsignedFloodFromOneAddressDoesNotSilenceAnother) {
  Serve({});
  Start("run-1");
  const std::string unsigned_request = "GET /runs/run-1/approvals HTTP/1.1\r\nHost: a\r\n\r\n";
  int unauthorized = 0, limited = 0;
  for (int i = 0; i < 100; ++i) {
    Answer answer = Ask(unsigned_request, "127.0.0.2");
    unauthorized += answer.status == 401;
    limited += answer.status == 429;
  }
  EXPECT_EQ(unauthorized, 20);
  EXPECT_EQ(limited, 80);

  Answer list = Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.1");
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Member("run_id"), "run-1");
  // The flooding address is refused whatever it sends until it earns a failure back.
  Answer flooder = Ask(Signed("GET", "/runs/run-1/approvals"), "127.0.0.2");
  EXPECT_EQ(flooder.status, 429);
  EXPECT_EQ(flooder.Member("code"), "rate_limited");
  EXPECT_EQ(flooder.Header("Retry-After"), "1");
}

TEST_F(WebhookLimitsTest, StopEndsTheConnectionsStillArriving) {
  world::HttpServerOptions options;
  options.header_timeout = absl::Seconds(30);
  Serve(options);
  RawClient waiting(port(), "127.0.0.2");
  waiting.Send("GET /runs/run-1/approvals HTTP/1.1\r\nX-Half: ");
  absl::Time start = absl::Now();
  server_->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(waiting.ReadToEnd(), "");  // closed without a word
  EXPECT_TRUE(Refusals().empty());
}

TEST_F(WebhookLimitsTest, OptionsAreValidated) {
  world::HttpServerOptions options;
  EXPECT_OK(world::Validate(options));
  options.max_connections_per_address = options.max_connections;
  absl::Status status = world::Validate(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("one address cannot hold every connection"));

  options = {};
  options.header_timeout = absl::ZeroDuration();
  EXPECT_THAT(world::Validate(options).message(), HasSubstr("header_timeout"));
  options = {};
  options.min_body_rate = 0;
  EXPECT_THAT(world::Validate(options).message(), HasSubstr("min_body_rate"));

  Config config;
  config.approver = local_.get();
  config.secret = kSecret;
  config.clock = &clock_;
  std::unique_ptr<Handler> handler = *Handler::Create(std::move(config));
  options.min_body_rate = 0;
  EXPECT_EQ(world::HttpServer::Listen("127.0.0.1", 0, *handler, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentrt::approver::webhook
