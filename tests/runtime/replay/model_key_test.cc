// Replay keys (docs/architecture.md, "Record and replay"): they keep number literals, and
// existing keys are unchanged.
#include "runtime/replay/model_key.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/sha256.h"
#include "tests/runtime/model_fixtures.h"
#include "tests/support/status_matchers.h"

namespace agentrt::replay {
namespace {

using ::agentrt::model_fixtures::Ask;
using ::agentrt::model_fixtures::TextBlock;
using ::agentrt::model_fixtures::ToolResultBlock;
using ::agentrt::model_fixtures::ToolUseBlock;

// Every part a request has: system text, text, a tool use with input, a tool result that is
// an error, a tool on offer and an output cap.
ModelRequest FixedRequest() {
  ModelRequest request;
  request.system = "You are terse.";
  request.messages.push_back({"user", {TextBlock("List /tmp")}});
  request.messages.push_back(
      {"assistant", {ToolUseBlock("t1", "list_dir", R"({ "path": "/tmp", "depth": 1.0 })")}});
  request.messages.push_back({"user", {ToolResultBlock("t1", "denied", /*is_error=*/true)}});
  ToolSpec tool;
  tool.name = "list_dir";
  tool.description = "List a folder.";
  tool.input_schema = R"({"type":"object"})";
  tool.timeout = absl::Seconds(5);
  request.tools.push_back(tool);
  request.max_output_tokens = 64;
  return request;
}

// Pinned: every cassette ever recorded is filed under keys computed this way, so a change to
// the request's canonical form or to the key's preimage makes them all unreplayable. If this
// test fails, the change must be deliberate: a new cassette format version, or a migration.
// The hex was computed once from the preimage below with `sha256sum`, outside this code.
TEST(ModelKeyTest, KeyOfAFixedRequestIsPinned) {
  ModelRequest request = FixedRequest();
  std::string request_json = ModelRequestJson(request);
  EXPECT_EQ(
      request_json,
      R"({"max_output_tokens":64,"messages":[{"content":[{"text":"List /tmp","type":"text"}],)"
      R"("role":"user"},{"content":[{"input":{"depth":1,"path":"/tmp"},"name":"list_dir",)"
      R"("tool_use_id":"t1","type":"tool_use"}],"role":"assistant"},{"content":[{"content":)"
      R"("denied","is_error":true,"tool_use_id":"t1","type":"tool_result"}],"role":"user"}],)"
      R"("system":"You are terse.","tools":[{"description":"List a folder.","input_schema":)"
      R"({"type":"object"},"name":"list_dir","side_effect":"read_only","timeout":5000000000}]})");
  std::string preimage = R"({"model":"claude-test","request":)" + request_json + "}";
  EXPECT_EQ(json::Sha256Hex(preimage), ModelKey("claude-test", request));
  EXPECT_EQ(ModelKey("claude-test", request),
            "4fb970d87096e8c93521af3ab219ed0a5f2fda0f6a11927f2138303fa2e7b54b");
}

TEST(ModelKeyTest, KeyIsLowercaseHexAndDependsOnTheModelName) {
  ModelRequest request = Ask("hello");
  EXPECT_THAT(ModelKey("a", request), MatchesRegex("[0-9a-f]{64}"));
  EXPECT_NE(ModelKey("a", request), ModelKey("b", request));
  EXPECT_EQ(ModelKey("a", request), ModelKeyOfJson("a", ModelRequestJson(request)));
  EXPECT_EQ(KeyPrefix(ModelKey("a", request)), ModelKey("a", request).substr(0, 12));
}

ModelRequest WithToolInput(const std::string& input) {
  ModelRequest request = Ask("go");
  request.messages.push_back({"assistant", {ToolUseBlock("t", "n", input)}});
  return request;
}

TEST(ModelKeyTest, LargeIntegersInToolInputKeepTheirLiteral) {
  // 2^53 + 1 rounds to 2^53 as a double: decoding through a double would file both requests
  // under one key and replay the wrong answer.
  EXPECT_NE(ModelKey("m", WithToolInput(R"({"n":9007199254740993})")),
            ModelKey("m", WithToolInput(R"({"n":9007199254740992})")));
  EXPECT_NE(ModelKey("m", WithToolInput(R"({"id":12345678901234567890123})")),
            ModelKey("m", WithToolInput(R"({"id":12345678901234567890124})")));
  EXPECT_THAT(ModelRequestJson(WithToolInput(R"({"n":9007199254740993})")),
              ::testing::HasSubstr("9007199254740993"));
}

TEST(ModelKeyTest, SpellingsOfTheSameInputShareAKey) {
  std::string key = ModelKey("m", WithToolInput(R"({"a":1,"b":[true]})"));
  EXPECT_EQ(ModelKey("m", WithToolInput(R"({ "b" : [ true ], "a" : 1.0 })")), key);
  EXPECT_EQ(ModelKey("m", WithToolInput(R"({"a":1e0,"b":[true]})")), key);
  EXPECT_EQ(ModelKey("m", WithToolInput(R"({"\u0061":1,"b":[true]})")), key);
}

}  // namespace
}  // namespace agentrt::replay
