// ParseMessage: what a server's line becomes, and what is refused (mcp/jsonrpc.h).
#include "mcp/jsonrpc.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::mcp {
namespace {

TEST(JsonRpcTest, KindsAreToldApartAndPartsKeptAsCanonicalJson) {
  absl::StatusOr<Message> request =
      ParseMessage(R"({"jsonrpc":"2.0","id":"a","method":"ping","params":{"b":1,"a":[1.0]}})");
  ASSERT_OK(request);
  EXPECT_EQ(request->kind, Message::Kind::kRequest);
  EXPECT_EQ(request->id, R"("a")");
  EXPECT_EQ(request->params, R"({"a":[1],"b":1})");

  absl::StatusOr<Message> note = ParseMessage(R"({"jsonrpc":"2.0","method":"notifications/x"})");
  ASSERT_OK(note);
  EXPECT_EQ(note->kind, Message::Kind::kNotification);
  EXPECT_EQ(note->id, "");

  absl::StatusOr<Message> result =
      ParseMessage(R"({"jsonrpc":"2.0","id":7,"result":{"z":1e2,"big":123456789012345678901}})");
  ASSERT_OK(result);
  EXPECT_EQ(result->kind, Message::Kind::kResult);
  EXPECT_EQ(result->id, "7");
  // Numbers are canonical decimals, never float-decoded copies: the big one keeps its digits.
  EXPECT_EQ(result->result, R"({"big":123456789012345678901,"z":100})");

  absl::StatusOr<Message> error =
      ParseMessage(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})");
  ASSERT_OK(error);
  EXPECT_EQ(error->kind, Message::Kind::kError);
  EXPECT_EQ(error->error_code, -32700);
  EXPECT_EQ(error->error_message, "bad");
}

// JSON-RPC asks only for a string: an empty method is still a request, which the session
// answers "method not found" with the id echoed, rather than leaving the server waiting.
TEST(JsonRpcTest, AnEmptyMethodIsARequestWithItsId) {
  absl::StatusOr<Message> request = ParseMessage(R"({"jsonrpc":"2.0","id":1,"method":""})");
  ASSERT_OK(request);
  EXPECT_EQ(request->kind, Message::Kind::kRequest);
  EXPECT_EQ(request->id, "1");
  EXPECT_EQ(request->method, "");
}

TEST(JsonRpcTest, WhatIsNotOneMessageIsRefusedSayingWhy) {
  struct Case {
    const char* line;
    const char* why;
  };
  for (const Case& c : {
           Case{R"([1])", "not a JSON object"},
           Case{R"({"id":1,"method":"x"})", R"("jsonrpc" is not "2.0")"},
           Case{R"({"jsonrpc":"2.0","id":true,"method":"x"})", "neither a number nor a string"},
           Case{R"({"jsonrpc":"2.0","id":null,"method":"x"})", "neither a number nor a string"},
           Case{R"({"jsonrpc":"2.0","id":1,"method":"x","result":{}})", "exactly one of"},
           Case{R"({"jsonrpc":"2.0","id":1})", "exactly one of"},
           Case{R"({"jsonrpc":"2.0","id":1,"method":2})", "the method is not a string"},
           Case{R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})", "params is neither"},
           Case{R"({"jsonrpc":"2.0","result":{}})", "a response without an id"},
           Case{R"({"jsonrpc":"2.0","id":1,"error":{"code":1.5}})", "code is not an integer"},
           Case{R"({"jsonrpc":"2.0","id":1,"error":[]})", "the error is not an object"},
           Case{R"({"jsonrpc":"2.0","id":1,"method":"x")", "not a JSON-RPC message"},
       }) {
    absl::StatusOr<Message> message = ParseMessage(c.line);
    ASSERT_THAT(message, Not(IsOk())) << c.line;
    EXPECT_EQ(message.status().code(), absl::StatusCode::kInvalidArgument) << c.line;
    EXPECT_THAT(message.status().message(), HasSubstr(c.why)) << c.line;
  }
}

}  // namespace
}  // namespace agentrt::mcp
