// The proxy over streamable HTTP (mcp/proxy/http_front.h), the service called directly as the
// transport would: DNS rebinding refused before the body, sessions, and what each method gets.
// The real socket and the official suite: tools/dev/conformance-server (ctest
// proxy_conformance).
#include "mcp/proxy/http_front.h"

#include "tests/mcp/proxy/proxy_harness.h"
#include "tests/support/status_matchers.h"

namespace agentrt::proxy::testing {
namespace {

using ::testing::Optional;

constexpr char kInitialize[] =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

class HttpFrontTest : public ProxyHarness {
 protected:
  void SetUp() override {
    Open();
    front_ = std::make_unique<HttpFront>(*proxy_, entropy_, HttpFrontOptions{});
  }
  world::ServerRequest Request(std::string method, std::string body = "",
                               world::HttpFields headers = {}) {
    world::ServerRequest r;
    r.method = std::move(method);
    r.path = "/mcp";
    r.body = std::move(body);
    r.headers = {{"Host", "127.0.0.1:8931"}};
    for (auto& h : headers) r.headers.push_back(std::move(h));
    return r;
  }
  // Admit, then Serve when admitted: what the transport does.
  world::ServerResponse Send(const world::ServerRequest& r) {
    if (std::optional<world::ServerResponse> refused = front_->Admit(r)) return *refused;
    return front_->Serve(r);
  }
  std::string OpenSession(world::ServerResponse* answer = nullptr) {
    world::ServerResponse r = Send(Request("POST", kInitialize));
    if (answer != nullptr) *answer = r;
    return world::FindHeader(r.headers, "Mcp-Session-Id").value_or("");
  }
  std::unique_ptr<HttpFront> front_;
};

TEST_F(HttpFrontTest, AForeignHostOrOriginIsRefusedBeforeTheBody) {
  world::ServerRequest evil = Request("POST", kInitialize);
  evil.headers = {{"Host", "evil.example.com"}};
  std::optional<world::ServerResponse> refused = front_->Admit(evil);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
  world::ServerRequest origin =
      Request("POST", kInitialize, {{"Origin", "http://evil.example.com"}});
  ASSERT_TRUE(front_->Admit(origin).has_value());
  EXPECT_EQ(front_->Admit(origin)->status, 403);
  for (std::string_view host : {"localhost:1", "127.0.0.1", "[::1]:80", "LOCALHOST"}) {
    world::ServerRequest ok = Request("POST", kInitialize, {{"Origin", "http://localhost:3000"}});
    ok.headers[0].second = std::string(host);
    EXPECT_FALSE(front_->Admit(ok).has_value()) << host;
  }
  // The operator named another address: that name is accepted too, and only it.
  HttpFront wide(*proxy_, entropy_, HttpFrontOptions{.allowed_hosts = {"10.0.0.5"}});
  world::ServerRequest named = Request("POST", kInitialize);
  named.headers[0].second = "10.0.0.5:8931";
  EXPECT_FALSE(wide.Admit(named).has_value());
  named.headers[0].second = "10.0.0.6:8931";
  EXPECT_TRUE(wide.Admit(named).has_value());
}

TEST_F(HttpFrontTest, InitializeOpensASessionEveryLaterMessageMustName) {
  world::ServerResponse answer;
  std::string session = OpenSession(&answer);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(session.size(), 32u);
  EXPECT_THAT(answer.body, AllOf(HasSubstr("gated-tools"), HasSubstr("2025-11-25")));
  std::string list = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
  EXPECT_EQ(Send(Request("POST", list)).status, 400);
  EXPECT_EQ(Send(Request("POST", list, {{"Mcp-Session-Id", "nope"}})).status, 404);
  world::ServerResponse tools = Send(Request("POST", list, {{"Mcp-Session-Id", session}}));
  EXPECT_EQ(tools.status, 200);
  EXPECT_THAT(tools.body, AllOf(HasSubstr("bank_pay"), HasSubstr("gate_status")));
  world::ServerResponse note =
      Send(Request("POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                   {{"Mcp-Session-Id", session}}));
  EXPECT_EQ(note.status, 202);
  EXPECT_EQ(note.body, "");
  world::ServerResponse call = Send(Request(
      "POST",
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bank_balance","arguments":{"account":"A-1"}}})",
      {{"Mcp-Session-Id", session}}));
  EXPECT_THAT(call.body, HasSubstr("account A-1 holds 120.00 EUR"));
  EXPECT_EQ(Send(Request("DELETE", "", {{"Mcp-Session-Id", session}})).status, 204);
  EXPECT_EQ(Send(Request("POST", list, {{"Mcp-Session-Id", session}})).status, 404);
}

TEST_F(HttpFrontTest, AHostThatTakesOnlyAStreamGetsTheAnswerAsAnEvent) {
  std::string session = OpenSession();
  world::ServerResponse streamed =
      Send(Request("POST", R"({"jsonrpc":"2.0","id":4,"method":"ping"})",
                   {{"Mcp-Session-Id", session}, {"Accept", "text/event-stream"}}));
  EXPECT_EQ(streamed.status, 200);
  EXPECT_THAT(world::FindHeader(streamed.headers, "Content-Type"),
              Optional(std::string("text/event-stream")));
  EXPECT_EQ(streamed.body,
            "event: message\ndata: {\"id\":4,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n");
  world::ServerResponse both = Send(
      Request("POST", R"({"jsonrpc":"2.0","id":5,"method":"ping"})",
              {{"Mcp-Session-Id", session}, {"Accept", "application/json, text/event-stream"}}));
  EXPECT_THAT(world::FindHeader(both.headers, "Content-Type"),
              Optional(std::string("application/json")));
}

TEST_F(HttpFrontTest, WhatIsNotOneMessageForThisEndpointIsRefused) {
  std::string session = OpenSession();
  EXPECT_EQ(Send(Request("GET", "", {{"Mcp-Session-Id", session}})).status, 405);
  EXPECT_EQ(Send(Request("PUT", "{}")).status, 405);
  world::ServerRequest elsewhere = Request("POST", kInitialize);
  elsewhere.path = "/other";
  EXPECT_EQ(Send(elsewhere).status, 404);
  EXPECT_EQ(Send(Request("POST", "[" + std::string(kInitialize) + "]")).status, 400);
  EXPECT_EQ(Send(Request("POST", "not json")).status, 400);
  EXPECT_EQ(Send(Request("POST", R"({"jsonrpc":"2.0","id":9,"method":"ping"})",
                         {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "1999-01-01"}}))
                .status,
            400);
  EXPECT_EQ(Send(Request("POST", R"({"jsonrpc":"2.0","id":9,"method":"ping"})",
                         {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-06-18"}}))
                .status,
            200);
}

TEST_F(HttpFrontTest, SessionsAreBoundedByEndingTheIdlestAndShutdownRefusesEverything) {
  HttpFront small(*proxy_, entropy_, HttpFrontOptions{.max_sessions = 2});
  auto post = [&](HttpFront& f, std::string body, std::string session = "") {
    world::ServerRequest r = Request("POST", std::move(body));
    if (!session.empty()) r.headers.push_back({"Mcp-Session-Id", session});
    return f.Serve(r);
  };
  auto id = [](const world::ServerResponse& r) {
    return world::FindHeader(r.headers, "Mcp-Session-Id").value_or("");
  };
  std::string a = id(post(small, kInitialize));
  std::string b = id(post(small, kInitialize));
  std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
  EXPECT_EQ(post(small, ping, a).status, 200);  // a is used again: b is now the idlest
  std::string c = id(post(small, kInitialize));
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(post(small, ping, b).status, 404);  // a host that went away left b behind
  EXPECT_EQ(post(small, ping, a).status, 200);
  EXPECT_EQ(post(small, ping, c).status, 200);
  front_->Shutdown();
  EXPECT_EQ(post(*front_, kInitialize).status, 503);
}

}  // namespace
}  // namespace agentrt::proxy::testing
