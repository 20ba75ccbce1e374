// CurlNetwork against real loopback servers: our own HttpServer where a plain answer does, and a
// raw socket peer (raw_server.h) where the test must control each byte — a stream written event
// by event, a stall, a body cut short, a proxy that counts its connections; and openssl's
// s_server with a certificate made for the test (tls_server.h) for what the network trusts. Nothing
// here sleeps to wait for an event: each side waits on the other's signal, and what must time out
// does so within a few hundred milliseconds.
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/http_server.h"
#include "runtime/world/redirect_policy.h"
#include "runtime/world/sse_parser.h"
#include "tests/runtime/world/raw_server.h"
#include "tests/runtime/world/tls_server.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"

namespace agentrt::world {
namespace {

constexpr absl::Duration kLong = absl::Seconds(10);         // what must happen, happens well within
constexpr absl::Duration kShort = absl::Milliseconds(300);  // what must time out

// An HttpService that answers as told and keeps every request it served.
class Recorder final : public HttpService {
 public:
  using Answer = std::function<ServerResponse(const ServerRequest&)>;
  explicit Recorder(Answer answer) : answer_(std::move(answer)) {}

  std::size_t max_body() const override { return 1 << 20; }
  std::optional<ServerResponse> Admit(const ServerRequest&) override { return std::nullopt; }
  ServerResponse Serve(const ServerRequest& request) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
    return answer_(request);
  }
  ServerResponse Refused(const ServerRequest&, int status) override {
    return {status, {{"Content-Type", "text/plain"}}, "refused"};
  }
  std::vector<ServerRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  const Answer answer_;
  mutable absl::Mutex mu_;
  std::vector<ServerRequest> requests_ ABSL_GUARDED_BY(mu_);
};

// A Recorder behind an HttpServer on 127.0.0.1.
struct Served {
  explicit Served(Recorder::Answer answer) : service(std::move(answer)) {
    absl::StatusOr<std::unique_ptr<HttpServer>> listening =
        HttpServer::Listen("127.0.0.1", 0, service);
    EXPECT_OK(listening);
    server = *std::move(listening);
  }
  std::string Url(std::string_view path = "/") const {
    return absl::StrCat("http://127.0.0.1:", server->port(), ToAbsl(path));
  }
  Recorder service;
  std::unique_ptr<HttpServer> server;
};

Recorder::Answer Always(int status, std::string body, HttpFields headers = {}) {
  return [=](const ServerRequest&) {
    HttpFields h = headers;
    h.emplace_back("Content-Type", "text/plain");
    return ServerResponse{status, h, body};
  };
}

// Environment variables set for one test, put back as they were at its end.
class ScopedEnv {
 public:
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value.has_value()) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  void Set(const std::string& name, std::optional<std::string> value) {
    if (!saved_.contains(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old == nullptr ? std::nullopt : std::optional<std::string>(old);
    }
    if (value.has_value()) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  // A proxy for plain http, and nothing that would exempt loopback from it.
  void UseProxy(const std::string& url) {
    Set("http_proxy", url);
    for (const char* name : {"no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"}) {
      Set(name, std::nullopt);
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// A RealClock that tells a test when a wait begins (so it can act while a Read is blocked).
class SignallingClock final : public ClockWrapper {
 public:
  SignallingClock() : ClockWrapper(real_) {}  // binds the member, used only once it is built
  bool WaitUntil(absl::Notification& done, absl::Time deadline) const override {
    {
      absl::MutexLock lock(&mu_);
      if (waiting_ != nullptr) std::exchange(waiting_, nullptr)->Notify();
    }
    return ClockWrapper::WaitUntil(done, deadline);
  }
  // The next wait to begin notifies `waiting`.
  void NotifyAtNextWait(absl::Notification* waiting) {
    absl::MutexLock lock(&mu_);
    waiting_ = waiting;
  }

 private:
  RealClock real_;
  mutable absl::Mutex mu_;
  mutable absl::Notification* waiting_ ABSL_GUARDED_BY(mu_) = nullptr;
};

class NetworkTest : public ::testing::Test {
 protected:
  // Tests reach loopback directly, whatever proxy the machine's environment names.
  std::unique_ptr<CurlNetwork> Make(CurlNetworkOptions options = {
                                        .proxy_from_environment = false}) {
    absl::StatusOr<std::unique_ptr<CurlNetwork>> network = CurlNetwork::Create(clock_, options);
    EXPECT_OK(network);
    return *std::move(network);
  }
  absl::Time In(absl::Duration d) const { return clock_.Now() + d; }

  RealClock clock_;
};

std::string ReadAll(HttpResponse& response) {
  absl::StatusOr<std::string> body = ReadBody(response, RealClock().Now() + kLong);
  EXPECT_OK(body);
  return body.ok() ? *body : "";
}

// The head a raw server answers a stream with.
constexpr std::string_view kChunkedHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

TEST_F(NetworkTest, JsonAnswerBringsStatusHeadersAndBody) {
  Served served([](const ServerRequest& request) {
    return ServerResponse{200,
                          {{"Content-Type", "application/json"}, {"Mcp-Session-Id", "s-1"}},
                          R"({"jsonrpc":"2.0","id":1,"result":{}})"};
  });
  std::unique_ptr<CurlNetwork> network = Make();
  const std::string request_body = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.method = "POST",
                     .url = served.Url("/mcp"),
                     .headers = {{"Content-Type", "application/json"},
                                 {"Accept", "application/json, text/event-stream"}},
                     .body = request_body},
                    In(kLong));

  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 200);
  EXPECT_EQ(FindHeader((*response)->headers(), "content-type"), "application/json");
  EXPECT_EQ(FindHeader((*response)->headers(), "MCP-SESSION-ID"), "s-1");
  EXPECT_EQ(ReadAll(**response), R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_EQ((*response)->Read(In(kLong)).value_or("error"), "");  // the end stays the end

  std::vector<ServerRequest> got = served.service.requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].path, "/mcp");
  EXPECT_EQ(got[0].body, request_body);
  EXPECT_EQ(got[0].Header("Content-Type"), "application/json");
  EXPECT_EQ(got[0].Header("Accept"), "application/json, text/event-stream");
  EXPECT_EQ(got[0].Header("Content-Length"), std::to_string(request_body.size()));
  EXPECT_EQ(got[0].Header("Expect"), std::nullopt);
}

TEST_F(NetworkTest, MethodsAndBodiesGoAsGiven) {
  Served served(Always(200, "ok"));
  std::unique_ptr<CurlNetwork> network = Make();
  struct Case {
    std::string method;
    std::string body;
    std::optional<std::string> content_length;
  };
  const std::vector<Case> cases = {
      {"GET", "", std::nullopt}, {"POST", "", "0"},    {"DELETE", "", std::nullopt},
      {"PUT", "put body", "8"},  {"PATCH", "{}", "2"}, {"DELETE", "why", "3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.body);
    absl::StatusOr<std::unique_ptr<HttpResponse>> response =
        network->Send({.method = c.method, .url = served.Url("/m"), .body = c.body}, In(kLong));
    ASSERT_OK(response);
    EXPECT_EQ(ReadAll(**response), "ok");
    ServerRequest got = served.service.requests().back();
    EXPECT_EQ(got.method, c.method);
    EXPECT_EQ(got.body, c.body);
    EXPECT_EQ(got.Header("Content-Length"), c.content_length);
    EXPECT_EQ(got.Header("Content-Type"), std::nullopt);  // none unless the caller sets one
  }
}

// Reads until the parser completes at least one event.
std::vector<SseEvent> NextEvents(HttpResponse& response, SseParser& parser) {
  for (;;) {
    absl::StatusOr<std::string> bytes = response.Read(RealClock().Now() + kLong);
    EXPECT_OK(bytes);
    if (!bytes.ok() || bytes->empty()) return {};
    absl::StatusOr<std::vector<SseEvent>> events = parser.Feed(*bytes);
    EXPECT_OK(events);
    if (!events.ok() || !events->empty()) return events.value_or(std::vector<SseEvent>{});
  }
}

TEST_F(NetworkTest, AnSseAnswerIsReadEventByEventAsItIsWritten) {
  // The server writes each event only after the client has read the one before: a client that
  // waited for the whole body would never see the first.
  absl::Notification read_first, read_second;
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write(kChunkedHead);
    c.Write(Chunk("id: 1\ndata: \n\n"));  // the priming event: an id, no data
    c.Write(Chunk("event: message\nid: 2\ndata: one\n\n"));
    if (!read_first.WaitForNotificationWithTimeout(kLong)) return;
    c.Write(Chunk(": ping\n\ndata: t"));
    c.Write(Chunk("wo\r\n\r\n"));
    if (!read_second.WaitForNotificationWithTimeout(kLong)) return;
    c.Write(Chunk("data: three\n\n"));
    c.Write("0\r\n\r\n");
  });
  std::unique_ptr<CurlNetwork> network = Make();

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.method = "POST", .url = server.Url("/mcp"), .body = "{}"}, In(kLong));
  ASSERT_OK(response);
  EXPECT_EQ(FindHeader((*response)->headers(), "Content-Type"), "text/event-stream");

  SseParser parser;
  EXPECT_THAT(NextEvents(**response, parser), ElementsAre(SseEvent{"message", "one", "2"}));
  read_first.Notify();
  EXPECT_THAT(NextEvents(**response, parser), ElementsAre(SseEvent{"message", "two", "2"}));
  read_second.Notify();
  EXPECT_THAT(NextEvents(**response, parser), ElementsAre(SseEvent{"message", "three", "2"}));
  EXPECT_EQ((*response)->Read(In(kLong)).value_or("error"), "");
  EXPECT_THAT(*parser.Finish(), IsEmpty());
}

TEST_F(NetworkTest, AStalledStreamTimesOutAReadAndLosesNothing) {
  absl::Notification timed_out;
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write(kChunkedHead);
    if (!timed_out.WaitForNotificationWithTimeout(kLong)) return;
    c.Write(Chunk("data: late\n\n"));
    c.Write("0\r\n\r\n");
  });
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = server.Url("/stream")}, In(kLong));
  ASSERT_OK(response);

  absl::StatusOr<std::string> stalled = (*response)->Read(In(kShort));
  EXPECT_EQ(stalled.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(stalled.status().message(), HasSubstr("GET " + server.Url("/stream")));
  timed_out.Notify();

  EXPECT_EQ(ReadAll(**response), "data: late\n\n");
}

TEST_F(NetworkTest, ReadsWaitOnTheInjectedClock) {
  // A one-hour deadline on a manual clock ends when the clock is moved past it, not an hour of
  // real time later.
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write(kChunkedHead);
    c.WaitForPeerClose(kLong);
  });
  ManualClock manual(absl::FromUnixSeconds(1'800'000'000));
  absl::StatusOr<std::unique_ptr<CurlNetwork>> network =
      CurlNetwork::Create(manual, {.proxy_from_environment = false});
  ASSERT_OK(network);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      (*network)->Send({.url = server.Url()}, manual.Now() + absl::Hours(1));
  ASSERT_OK(response);

  absl::Time deadline = manual.Now() + absl::Hours(1);
  std::thread mover([&] { manual.Set(deadline + absl::Seconds(1)); });
  absl::StatusOr<std::string> read = (*response)->Read(deadline);
  mover.join();
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(NetworkTest, SendTimesOutWhenTheHeadDoesNotArrive) {
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.WaitForPeerClose(kLong);  // answers nothing
  });
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = server.Url("/silent")}, In(kShort));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(response.status().message(), HasSubstr("GET " + server.Url("/silent")));
}

TEST_F(NetworkTest, ARedirectComesBackAsItIsAndItsTargetGetsNoRequest) {
  Served target(Always(200, "followed"));
  Served origin(Always(307, "moved", {{"Location", target.Url("/landing")}}));
  std::unique_ptr<CurlNetwork> network = Make();

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.method = "POST",
                     .url = origin.Url("/mcp"),
                     .headers = {{"Authorization", "Bearer secret"}},
                     .body = "{}"},
                    In(kLong));

  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 307);
  EXPECT_EQ(FindHeader((*response)->headers(), "Location"), target.Url("/landing"));
  EXPECT_EQ(ReadAll(**response), "moved");
  EXPECT_THAT(target.service.requests(), IsEmpty());
}

TEST_F(NetworkTest, ARedirectingNetworkFollowsUnderItsPolicyAndDropsAHeader) {
  Served target(Always(200, "followed"));
  // "localhost" is another host than "127.0.0.1" to the policy, though the same server.
  std::string target_url = absl::StrCat("http://localhost:", target.server->port(), "/landing");
  Served origin(Always(307, "moved", {{"Location", target_url}}));
  std::unique_ptr<CurlNetwork> curl = Make();
  RedirectingNetwork network(
      *curl, [](const HttpRequest& previous, int status, std::string_view location) {
        HttpRequest next = previous;
        next.url = std::string(location);
        std::erase_if(next.headers, [](const auto& h) { return h.first == "Authorization"; });
        return std::optional<HttpRequest>(next);
      });

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.method = "POST",
                    .url = origin.Url("/mcp"),
                    .headers = {{"Authorization", "Bearer secret"}, {"X-Keep", "kept"}},
                    .body = "{}"},
                   In(kLong));

  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 200);
  EXPECT_EQ(ReadAll(**response), "followed");
  ASSERT_EQ(origin.service.requests().size(), 1u);
  EXPECT_EQ(origin.service.requests()[0].Header("Authorization"), "Bearer secret");
  std::vector<ServerRequest> followed = target.service.requests();
  ASSERT_EQ(followed.size(), 1u);
  EXPECT_EQ(followed[0].path, "/landing");
  EXPECT_EQ(followed[0].Header("Authorization"), std::nullopt);
  EXPECT_EQ(followed[0].Header("X-Keep"), "kept");
  EXPECT_EQ(followed[0].body, "{}");
}

// A body past the limit fails, with a limit of 10.
TEST_F(NetworkTest, ABodyOfExactlyTheLimitIsRead) {
  Served served(Always(200, "0123456789"));
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = served.Url(), .max_body_bytes = 10}, In(kLong));
  ASSERT_OK(response);
  EXPECT_EQ(ReadAll(**response), "0123456789");
}

TEST_F(NetworkTest, AChunkedBodyOneByteOverTheLimitFailsTheReadThatPassesIt) {
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    c.Write(Chunk("01234"));
    c.Write(Chunk("567890"));
    c.Write("0\r\n\r\n");
  });
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = server.Url(), .max_body_bytes = 10}, In(kLong));
  ASSERT_OK(response);

  std::string read;
  absl::Status end;
  for (;;) {
    absl::StatusOr<std::string> bytes = (*response)->Read(In(kLong));
    if (!bytes.ok() || bytes->empty()) {
      end = bytes.status();
      break;
    }
    read += *bytes;
  }
  EXPECT_EQ(end.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(end.message(), HasSubstr("response body exceeds 10 bytes"));
  EXPECT_THAT(end.message(), HasSubstr("GET " + server.Url()));
  EXPECT_EQ(read, "0123456789");  // never more than the limit, and never a silent end
  EXPECT_EQ((*response)->Read(In(kLong)).status(), end);
}

TEST_F(NetworkTest, ADeclaredLengthOverTheLimitFailsSend) {
  Served served(Always(200, "0123456789X"));
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = served.Url(), .max_body_bytes = 10}, In(kLong));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(response.status().message(), HasSubstr("response body of 11 bytes exceeds 10"));
  EXPECT_THAT(response.status().message(), HasSubstr("GET " + served.Url()));
}

TEST_F(NetworkTest, AServerThatClosesMidBodyIsUnavailable) {
  struct Case {
    std::string name;
    std::string head;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"DeclaredLength", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", "first part"},
      {"Chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", Chunk("first part")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RawServer server([&](RawConnection& connection) {
      connection.ReadRequest();
      connection.Write(c.head);
      connection.Write(c.body);
      connection.Close();
    });
    std::unique_ptr<CurlNetwork> network = Make();
    absl::StatusOr<std::unique_ptr<HttpResponse>> response =
        network->Send({.url = server.Url("/cut")}, In(kLong));
    ASSERT_OK(response);
    absl::StatusOr<std::string> body = ReadBody(**response, In(kLong));
    EXPECT_EQ(body.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(body.status().message(), HasSubstr("GET " + server.Url("/cut")));
    EXPECT_THAT(body.status().message(), HasSubstr("broke after 10 body bytes"));
  }
}

TEST_F(NetworkTest, ARefusedConnectionIsUnavailableNamingTheUrl) {
  std::string url = absl::StrCat("http://127.0.0.1:", ClosedPort(), "/mcp");
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.method = "POST", .url = url, .body = "{}"}, In(kLong));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("POST " + url));
}

TEST_F(NetworkTest, AnUnresolvableHostIsAFailedPreconditionNotUnavailable) {
  // .invalid never resolves (RFC 6761), with or without a resolver on the machine: asking again
  // cannot help, which is what sets it apart from a refused connection.
  std::unique_ptr<CurlNetwork> network = Make();
  EXPECT_THAT(
      network->Send({.url = "http://agentrt-network-test.invalid/"}, In(kLong)),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("the host name does not resolve")));
}

TEST_F(NetworkTest, LoopbackOnlyRefusesAnotherAddressWithoutTryingIt) {
  // 192.0.2.1 (TEST-NET-1) never answers: only a refusal before connecting ends this before
  // the 30-second connect timeout and the 10-second deadline. A proxy in the environment is
  // not a way around it.
  RawServer proxy([](RawConnection& c) { c.ReadRequest(); });
  ScopedEnv env;
  env.UseProxy(proxy.Url());
  std::unique_ptr<CurlNetwork> network = Make({.loopback_only = true});
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = "http://192.0.2.1/mcp"}, In(kLong));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(response.status().message(), HasSubstr("address 192.0.2.1 is not loopback"));
  EXPECT_THAT(response.status().message(), HasSubstr("GET http://192.0.2.1/mcp"));
  EXPECT_EQ(proxy.connections(), 0);
}

TEST_F(NetworkTest, LoopbackOnlyReachesLoopback) {
  Served served(Always(200, "here"));
  std::unique_ptr<CurlNetwork> network = Make({.loopback_only = true});
  for (const std::string& url :
       {served.Url(), absl::StrCat("http://localhost:", served.server->port(), "/")}) {
    SCOPED_TRACE(url);
    absl::StatusOr<std::unique_ptr<HttpResponse>> response = network->Send({.url = url}, In(kLong));
    ASSERT_OK(response);
    EXPECT_EQ(ReadAll(**response), "here");
  }
}

TEST_F(NetworkTest, WithoutProxyFromEnvironmentAProxyVariableIsIgnored) {
  RawServer proxy([](RawConnection& c) { c.ReadRequest(); });
  Served target(Always(200, "direct"));
  ScopedEnv env;
  env.UseProxy(proxy.Url());
  std::unique_ptr<CurlNetwork> network = Make({.proxy_from_environment = false});
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = target.Url()}, In(kLong));
  ASSERT_OK(response);
  EXPECT_EQ(ReadAll(**response), "direct");
  EXPECT_EQ(proxy.connections(), 0);
}

TEST_F(NetworkTest, WithProxyFromEnvironmentTheProxyVariableIsUsed) {
  std::string asked;
  RawServer proxy([&](RawConnection& c) {
    asked = c.ReadRequest();
    c.Write("HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nvia proxy");
  });
  Served target(Always(200, "direct"));
  ScopedEnv env;
  env.UseProxy(proxy.Url());
  std::unique_ptr<CurlNetwork> network = Make({.proxy_from_environment = true});
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = target.Url("/x")}, In(kLong));
  ASSERT_OK(response);
  EXPECT_EQ(ReadAll(**response), "via proxy");
  EXPECT_EQ(proxy.connections(), 1);
  EXPECT_THAT(asked, ::testing::StartsWith("GET " + target.Url("/x") + " HTTP/1.1\r\n"));
  EXPECT_THAT(target.service.requests(), IsEmpty());
}

TEST_F(NetworkTest, CloseFromAnotherThreadCancelsABlockedReadAndDropsTheConnection) {
  absl::Notification peer_closed;
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write(kChunkedHead);
    if (c.WaitForPeerClose(kLong)) peer_closed.Notify();
  });
  SignallingClock clock;
  absl::StatusOr<std::unique_ptr<CurlNetwork>> network =
      CurlNetwork::Create(clock, {.proxy_from_environment = false});
  ASSERT_OK(network);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      (*network)->Send({.url = server.Url("/stream")}, clock.Now() + kLong);
  ASSERT_OK(response);

  absl::Notification reading;
  clock.NotifyAtNextWait(&reading);
  std::thread closer([&] {
    reading.WaitForNotification();  // the Read is waiting for bytes
    (*response)->Close();
  });
  absl::StatusOr<std::string> read = (*response)->Read(clock.Now() + kLong);
  closer.join();

  EXPECT_EQ(read.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(read.status().message(), HasSubstr("GET " + server.Url("/stream")));
  EXPECT_TRUE(peer_closed.WaitForNotificationWithTimeout(kLong));
  (*response)->Close();  // idempotent
  EXPECT_EQ((*response)->Read(clock.Now() + kLong).status().code(), absl::StatusCode::kCancelled);
}

TEST_F(NetworkTest, AHeaderThatCouldInjectIsRefusedAndNothingIsSent) {
  RawServer server([](RawConnection& c) { c.ReadRequest(); });
  std::unique_ptr<CurlNetwork> network = Make();
  struct Case {
    std::string name;
    HttpRequest request;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"LineBreakInAValue",
       {.url = server.Url(), .headers = {{"Authorization", "secret\r\nX-Injected: 1"}}},
       "header Authorization has a control character"},
      {"BareLineFeedInAValue",
       {.url = server.Url(), .headers = {{"X-Token", "secret\nX-Injected: 1"}}},
       "header X-Token has a control character"},
      {"NulInAValue",
       {.url = server.Url(), .headers = {{"X-Token", std::string("se\0cret", 7)}}},
       "header X-Token has a control character"},
      {"ColonInAName", {.url = server.Url(), .headers = {{"X-A: secret", "v"}}}, "not a token"},
      {"LineBreakInAName", {.url = server.Url(), .headers = {{"X-A\r\nX-B", "v"}}}, "not a token"},
      {"WholeLineInAName",
       {.url = server.Url(), .headers = {{"Authorization: Bearer secret", ""}}},
       "header name \"Authorization...\" is not a token (byte 13 is :)"},
      {"EmptyName", {.url = server.Url(), .headers = {{"", "v"}}}, "an empty header name"},
      {"ContentLength",
       {.url = server.Url(), .headers = {{"Content-Length", "5"}}},
       "Content-Length is the network's to set"},
      {"TransferEncoding",
       {.url = server.Url(), .headers = {{"transfer-encoding", "chunked"}}},
       "transfer-encoding is the network's to set"},
      {"LineBreakInTheUrl", {.url = server.Url("/a\r\nX-Injected: 1")}, "not an absolute http(s)"},
      {"SpaceInTheUrl", {.url = server.Url("/a b")}, "not an absolute http(s)"},
      {"NotHttp", {.url = "file:///etc/passwd"}, "not an absolute http(s)"},
      {"NoHost", {.url = "http:///x"}, "not an absolute http(s)"},
      {"Relative", {.url = "/mcp"}, "not an absolute http(s)"},
      {"MethodWithASpace",
       {.method = "GET /x HTTP/1.1\r\n", .url = server.Url()},
       "not an HTTP token"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::unique_ptr<HttpResponse>> response = network->Send(c.request, In(kLong));
    EXPECT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(response.status().message(), HasSubstr(c.says));
    EXPECT_THAT(response.status().message(), Not(HasSubstr("secret")));
  }
  EXPECT_EQ(server.connections(), 0);
}

TEST_F(NetworkTest, ErrorMessagesLeaveOutTheUrlsUserInformation) {
  std::string url = absl::StrCat("http://user:hunter2@127.0.0.1:", ClosedPort(), "/");
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response = network->Send({.url = url}, In(kLong));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), Not(HasSubstr("hunter2")));
  EXPECT_THAT(response.status().message(), HasSubstr("GET http://127.0.0.1:"));
}

TEST_F(NetworkTest, AStreamNotReadIsPausedNotBuffered) {
  // The server writes far more than the client keeps unread; while the client reads nothing the
  // server must come to a stop, and every Read then returns at most about 1 MiB.
  constexpr std::size_t kTotal = std::size_t{48} << 20;
  const std::string body(kTotal, 'x');
  absl::Notification stopped;
  std::atomic<bool> blocked{false};
  RawServer server([&](RawConnection& c) {
    c.ReadRequest();
    c.Write(absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", kTotal, "\r\n\r\n"));
    c.WriteUntilBlocked(body, kShort, [&] {
      blocked = true;
      stopped.Notify();
    });
    if (!stopped.HasBeenNotified()) stopped.Notify();  // wrote everything: never held back
  });
  std::unique_ptr<CurlNetwork> network = Make();
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network->Send({.url = server.Url(), .max_body_bytes = kTotal}, In(kLong));
  ASSERT_OK(response);

  ASSERT_TRUE(stopped.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(blocked);
  std::size_t total = 0, largest = 0;
  for (;;) {
    absl::StatusOr<std::string> bytes = (*response)->Read(In(kLong));
    ASSERT_OK(bytes);
    if (bytes->empty()) break;
    total += bytes->size();
    largest = std::max(largest, bytes->size());
  }
  EXPECT_EQ(total, kTotal);
  EXPECT_LE(largest, (std::size_t{1} << 20) + (64 << 10));
}

TEST(CurlNetworkCreateTest, RefusesOptionsItCannotHonour) {
  RealClock clock;
  absl::StatusOr<std::unique_ptr<CurlNetwork>> no_time =
      CurlNetwork::Create(clock, {.connect_timeout = absl::ZeroDuration()});
  EXPECT_EQ(no_time.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_time.status().message(), HasSubstr("connect_timeout"));

  absl::StatusOr<std::unique_ptr<CurlNetwork>> no_file =
      CurlNetwork::Create(clock, {.ca_file = "/nonexistent/ca.pem"});
  EXPECT_EQ(no_file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_file.status().message(), HasSubstr("/nonexistent/ca.pem"));
}

// ---- TLS: a certificate is trusted through the system's store or the configured CA file only ----

// An HTTPS server on loopback with a self-signed certificate (tls_server.h), which no system
// store trusts.
class TlsTest : public NetworkTest {
 protected:
  void SetUp() override {
    if (!TlsServer::OpensslInstalled()) {
      GTEST_SKIP() << "no /usr/bin/openssl to serve HTTPS with a certificate of the test's own";
    }
    absl::StatusOr<std::unique_ptr<TlsServer>> started = TlsServer::Start();
    ASSERT_OK(started);
    server_ = *std::move(started);
  }
  std::vector<std::string> Urls() const {
    return {server_->Url("127.0.0.1"), server_->Url("localhost")};
  }

  std::unique_ptr<TlsServer> server_;
};

TEST_F(TlsTest, ASelfSignedCertificateIsRefusedAsNotTrusted) {
  std::unique_ptr<CurlNetwork> network =
      Make({.loopback_only = true, .proxy_from_environment = false});
  for (const std::string& url : Urls()) {
    SCOPED_TRACE(url);
    // FailedPrecondition, not Unavailable: asking again cannot make the certificate trusted.
    EXPECT_THAT(network->Send({.url = url}, In(kLong)),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr("the server's certificate is not trusted"),
                               HasSubstr("GET " + url))));
  }
}

TEST_F(TlsTest, TheSameCertificateTrustedThroughTheCaFileIsAccepted) {
  std::unique_ptr<CurlNetwork> network = Make({.loopback_only = true,
                                               .proxy_from_environment = false,
                                               .ca_file = server_->certificate_file()});
  for (const std::string& url : Urls()) {
    SCOPED_TRACE(url);
    absl::StatusOr<std::unique_ptr<HttpResponse>> response = network->Send({.url = url}, In(kLong));
    ASSERT_OK(response) << server_->Output();
    EXPECT_EQ((*response)->status(), 200);
    EXPECT_THAT(ReadAll(**response), HasSubstr("s_server"));  // openssl's status page
  }
}

TEST_F(TlsTest, ACaFileThatHoldsNoCertificateTrustsNothing) {
  // Readable, so Create accepts it; that it is no certificate shows only at the handshake, and
  // must not pass for "trust anything".
  const std::string not_a_certificate = test_support::TestFile("not_a_ca.pem");
  std::ofstream(not_a_certificate) << "not a certificate\n";
  std::unique_ptr<CurlNetwork> network =
      Make({.loopback_only = true, .proxy_from_environment = false, .ca_file = not_a_certificate});
  EXPECT_THAT(network->Send({.url = server_->Url()}, In(kLong)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("the server's certificate is not trusted")));
}

}  // namespace
}  // namespace agentrt::world
