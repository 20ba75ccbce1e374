// The OpenAI-compatible chat completions adapter against a loopback peer of the test's own
// making, through the real network: the exact request it sends (checked as canonical JSON), how
// it reads a reply (tool calls, finish reasons, usage), how every failure is sorted into the
// model caller's kinds, where an API key may go, and that the key never prints.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "providers/api_key.h"
#include "providers/openai/openai_model.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/model.h"
#include "runtime/prices.h"
#include "tests/providers/every_printing.h"
#include "tests/providers/provider_server.h"
#include "tests/runtime/world/raw_server.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::agentrt::test_support::CannedAnswer;
using ::agentrt::test_support::CutAfterHead;
using ::agentrt::test_support::Exchange;
using ::agentrt::test_support::HelloRequest;
using ::agentrt::test_support::ProviderServer;
using ::agentrt::test_support::ProviderWorld;
using ::agentrt::test_support::ReceivedRequest;
using ::agentrt::test_support::Reply;
using ::agentrt::test_support::Soon;
using ::testing::_;
using ::testing::Field;

constexpr char kKey[] = "sk-test-4f1c9a7e0b2d";

// ---- Replies in the shape the API reference documents for POST /v1/chat/completions ----

std::string UsageJson(int prompt, int completion, int cached) {
  return absl::StrFormat(R"({"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,)"
                         R"("prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},)"
                         R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)"
                         R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}})",
                         prompt, completion, prompt + completion, cached);
}

// A tool call as the API reference documents it: `arguments` is a string holding JSON.
std::string ToolCallJson(const std::string& id, const std::string& name,
                         const std::string& arguments) {
  std::string call = R"({"type":"function",)";
  if (!id.empty()) call += R"("id":)" + json::JsonString(id) + ",";
  return call + R"("function":{"name":)" + json::JsonString(name) + R"(,"arguments":)" +
         json::JsonString(arguments) + "}}";
}

std::string MessageJson(const std::string& content, const std::vector<std::string>& calls = {}) {
  std::string message = R"({"role":"assistant","content":)" +
                        (content.empty() ? std::string("null") : json::JsonString(content)) +
                        R"(,"refusal":null,"annotations":[])";
  if (!calls.empty()) {
    message += R"(,"tool_calls":[)";
    for (std::size_t i = 0; i < calls.size(); ++i) message += (i ? "," : "") + calls[i];
    message += "]";
  }
  return message + "}";
}

// The whole completion, with the members the reference lists (id, object, created, model,
// choices[{index, message, logprobs, finish_reason}], usage, service_tier).
std::string Completion(const std::string& message, const std::string& finish_reason,
                       const std::string& usage) {
  return R"({"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion",)"
         R"("created":1741570283,"model":"gpt-oss:20b","choices":[{"index":0,"message":)" +
         message + R"(,"logprobs":null,"finish_reason":")" + finish_reason + R"("}],"usage":)" +
         usage + R"(,"service_tier":"default","system_fingerprint":"fp_test"})";
}

std::string Completion(const std::string& message, const std::string& finish_reason) {
  return Completion(message, finish_reason, UsageJson(12, 3, 0));
}

// ---- Running the adapter ----

OpenAiConfig ConfigFor(const ProviderServer& server, ApiKey key = ApiKey()) {
  OpenAiConfig config;
  config.model = "gpt-oss:20b";
  config.base_url = server.Url() + "/v1";
  config.api_key = std::move(key);
  return config;
}

std::unique_ptr<OpenAiModel> ModelFor(OpenAiConfig config, const ProviderWorld& world) {
  return test_support::Created(OpenAiModel::Create(std::move(config), world.world()));
}

Exchange GenerateAgainst(CannedAnswer answer, const ModelRequest& request = HelloRequest(),
                         ApiKey key = ApiKey()) {
  ProviderServer server({std::move(answer)});
  ProviderWorld world;
  std::unique_ptr<OpenAiModel> model = ModelFor(ConfigFor(server, std::move(key)), world);
  if (model == nullptr) return {absl::InternalError("no model"), {}};
  absl::StatusOr<ModelResponse> result = model->Generate(request, Soon());
  return {std::move(result), server.Requests()};
}

::testing::Matcher<Usage> UsageIs(std::int64_t input, std::int64_t output, std::int64_t cached) {
  return AllOf(Field(&Usage::input_tokens, input), Field(&Usage::output_tokens, output),
               Field(&Usage::cached_input_tokens, cached));
}

::testing::Matcher<ToolUse> ToolUseIs(::testing::Matcher<const std::string&> id,
                                      const std::string& name, const std::string& args) {
  return AllOf(Field(&ToolUse::id, id), Field(&ToolUse::name, name), Field(&ToolUse::args, args));
}

std::string Canonical(std::string_view json) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json);
  EXPECT_OK(canonical) << json;
  return canonical.ok() ? *canonical : std::string(json);
}

// ---- Construction ----

TEST(OpenAiTest, CreateRequiresAModelAndNamesItself) {
  ProviderWorld world;
  EXPECT_THAT(OpenAiModel::Create(OpenAiConfig{}, world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, "openai: model is required"));

  std::unique_ptr<OpenAiModel> named = ModelFor(OpenAiConfig{.model = "gpt-oss:20b"}, world);
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->Name(), "openai:gpt-oss:20b");
  EXPECT_EQ(OpenAiName("gpt-oss:20b"), "openai:gpt-oss:20b");

  std::unique_ptr<OpenAiModel> local =
      ModelFor(OpenAiConfig{.model = "gpt-oss:20b", .name = "local"}, world);
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->Name(), "local");
}

TEST(OpenAiTest, CreateRefusesAWorldWithoutANetwork) {
  ProviderWorld provider_world;
  world::World world = provider_world.world();
  world.network = nullptr;
  EXPECT_THAT(OpenAiModel::Create(OpenAiConfig{.model = "m"}, world),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("openai: the world has no")));
}

TEST(OpenAiTest, CreateRefusesAKeyOverPlainHttpToARemoteHost) {
  ProviderWorld world;
  auto create = [&](const std::string& base, ApiKey key) {
    return OpenAiModel::Create(
        OpenAiConfig{.model = "m", .base_url = base, .api_key = std::move(key)}, world.world());
  };
  EXPECT_THAT(create("http://example.com/v1", ApiKey(kKey)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "openai: refusing to send an API key over plain http to example.com"));
  EXPECT_OK(create("http://example.com/v1", ApiKey()));  // a local-style server without a key
  EXPECT_OK(create("http://127.0.0.1:8080/v1", ApiKey(kKey)));
  EXPECT_OK(create("https://example.com/v1", ApiKey(kKey)));
  EXPECT_OK(create("", ApiKey(kKey)));  // the default endpoint is https
  EXPECT_THAT(create("ftp://example.com/v1", ApiKey()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("openai: base URL \"ftp://example.com/v1\" is not an http or "
                                 "https URL")));
}

TEST(OpenAiTest, CreateTrustsOnlyLiteralLoopbackOrLocalhostWithAKey) {
  ProviderWorld world;
  struct Row {
    std::string base;
    bool accepted;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"http://LOCALHOST:8080/v1", false, "over plain http to"},
      {"http://localhost.:8080/v1", false, "over plain http to"},
      {"http://foo.localhost:8080/v1", false, "over plain http to"},
      {"http://127.1:8080/v1", false, "over plain http to"},
      {"http://127.0.0.1.nip.io/v1", false, "over plain http to"},
      {"http://user:pw@127.0.0.1:8080/v1", false, "carries user information"},
      {"http://localhost:8080/v1", true, ""},
      {"http://127.0.0.2:8080/v1", true, ""},
      {"http://[::1]:8080/v1", true, ""},
      {"http://[::ffff:127.0.0.1]:8080/v1", true, ""},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.base);
    absl::StatusOr<std::unique_ptr<OpenAiModel>> model = OpenAiModel::Create(
        OpenAiConfig{.model = "m", .base_url = row.base, .api_key = ApiKey(kKey)}, world.world());
    if (row.accepted) {
      EXPECT_OK(model);
    } else {
      EXPECT_THAT(model, StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(StartsWith("openai: "), HasSubstr(row.error),
                                        Not(HasSubstr(kKey)))));
    }
  }
}

TEST(OpenAiTest, EnvironmentKeyGoesOnlyToTheDefaultEndpoint) {
  constexpr char kEnvKey[] = "sk-from-the-environment-93b1";
  ProviderWorld world(std::map<std::string, std::string, std::less<>>{{"OPENAI_API_KEY", kEnvKey}});
  test_support::MemoryFilesystem files;

  EXPECT_EQ(OpenAiDefaultKeySource("").env, "OPENAI_API_KEY");
  EXPECT_EQ(OpenAiDefaultKeySource("https://api.openai.com/v1/").env, "OPENAI_API_KEY");
  ProviderServer server({Reply(200, Completion(MessageJson("hi"), "stop")),
                         Reply(200, Completion(MessageJson("hi"), "stop"))});
  KeySource custom = OpenAiDefaultKeySource(server.Url() + "/v1");
  EXPECT_EQ(custom.env, "");
  EXPECT_EQ(custom.file, "");

  // A configured base never gets the environment's key.
  absl::StatusOr<ApiKey> none = ReadKey(custom, *world.world().environment, files);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
  std::unique_ptr<OpenAiModel> keyless = ModelFor(ConfigFor(server, *none), world);
  ASSERT_NE(keyless, nullptr);
  ASSERT_OK(keyless->Generate(HelloRequest(), Soon()));

  // A key the operator names explicitly goes where the operator sends it.
  std::unique_ptr<OpenAiModel> keyed = ModelFor(ConfigFor(server, ApiKey(kKey)), world);
  ASSERT_NE(keyed, nullptr);
  ASSERT_OK(keyed->Generate(HelloRequest(), Soon()));

  std::vector<ReceivedRequest> requests = server.Requests();
  ASSERT_THAT(requests, SizeIs(2));
  EXPECT_FALSE(requests[0].HasHeader("Authorization"));
  EXPECT_EQ(requests[1].Header("Authorization"), absl::StrCat("Bearer ", kKey));
  for (const ReceivedRequest& request : requests) {
    for (const auto& [name, value] : request.headers) EXPECT_THAT(value, Not(HasSubstr(kEnvKey)));
    EXPECT_THAT(request.body, Not(HasSubstr(kEnvKey)));
  }

  // The default endpoint reads it, and the model holding it never prints it.
  absl::StatusOr<ApiKey> env_key =
      ReadKey(OpenAiDefaultKeySource(""), *world.world().environment, files);
  ASSERT_OK(env_key);
  EXPECT_EQ(env_key->Reveal(), kEnvKey);
  std::unique_ptr<OpenAiModel> openai =
      ModelFor(OpenAiConfig{.model = "gpt-5", .api_key = *env_key}, world);
  ASSERT_NE(openai, nullptr);
  std::ostringstream streamed;
  streamed << *openai;
  for (const std::string& shown :
       {absl::StrFormat("%s", *openai), streamed.str(), ::testing::PrintToString(*openai)}) {
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kEnvKey)), HasSubstr("[redacted]"),
                             HasSubstr("https://api.openai.com/v1")));
  }
}

// ---- The request ----

TEST(OpenAiTest, GenerateMapsRequestToolCallsAndUsage) {
  ModelRequest request;
  request.system = "You add numbers with the add tool.";
  request.messages = {
      Message{.role = "user", .content = {ContentBlock{.type = "text", .text = "Add 3."}}},
      Message{.role = "assistant",
              .content = {ContentBlock{
                  .type = "tool_use", .tool_use_id = "step_0", .name = "add", .input = ""}}},
      Message{.role = "user",
              .content = {ContentBlock{
                  .type = "tool_result", .tool_use_id = "step_0", .content = "{\"sum\":3}"}}},
  };
  // The schema as a person writes it: whitespace and unsorted keys, sent canonical.
  request.tools = {ToolSpec{.name = "add",
                            .description = "Add n to the total.",
                            .input_schema = R"({ "type": "object", "required": ["n"],
                           "properties": { "n": { "type": "integer" } } })"}};
  request.max_output_tokens = 512;

  std::string body =
      Completion(MessageJson("Adding.", {ToolCallJson("call_1", "add", R"({"n":3})")}),
                 "tool_calls", UsageJson(142, 30, 64));
  Exchange exchange = GenerateAgainst(Reply(200, body), request, ApiKey(kKey));

  ASSERT_OK(exchange.result);
  EXPECT_EQ(exchange.result->text, "Adding.");
  EXPECT_THAT(exchange.result->tool_uses, ElementsAre(ToolUseIs("call_1", "add", R"({"n":3})")));
  EXPECT_EQ(exchange.result->stop_reason, stop_reason::kToolUse);
  EXPECT_THAT(exchange.result->usage, UsageIs(142, 30, 64));
  EXPECT_EQ(exchange.result->raw, body);

  ASSERT_THAT(exchange.requests, SizeIs(1));
  const ReceivedRequest& sent = exchange.requests[0];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.path, "/v1/chat/completions");
  EXPECT_EQ(sent.Header("Content-Type"), "application/json");
  EXPECT_EQ(sent.Header("Authorization"), absl::StrCat("Bearer ", kKey));
  // The system prompt first; the assistant's tool use with type function, its id and "{}" for
  // an empty input (a string holding JSON); the result as a tool message; content always there.
  EXPECT_EQ(Canonical(sent.body), Canonical(R"({
    "model": "gpt-oss:20b",
    "messages": [
      {"role": "system", "content": "You add numbers with the add tool."},
      {"role": "user", "content": "Add 3."},
      {"role": "assistant", "content": "",
       "tool_calls": [{"id": "step_0", "type": "function",
                       "function": {"name": "add", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "step_0", "content": "{\"sum\":3}"}
    ],
    "tools": [{"type": "function",
               "function": {"name": "add", "description": "Add n to the total.",
                            "parameters": {"type": "object", "required": ["n"],
                                           "properties": {"n": {"type": "integer"}}}}}],
    "tool_choice": "auto",
    "parallel_tool_calls": false,
    "temperature": 0,
    "max_tokens": 512
  })"));
}

TEST(OpenAiTest, GenerateWithoutToolsSendsNoToolChoice) {
  Exchange exchange = GenerateAgainst(Reply(200, Completion(MessageJson("Hello to you."), "stop")));

  ASSERT_OK(exchange.result);
  EXPECT_EQ(exchange.result->text, "Hello to you.");
  EXPECT_THAT(exchange.result->tool_uses, IsEmpty());
  EXPECT_EQ(exchange.result->stop_reason, stop_reason::kEndTurn);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  // No tools, tool_choice, parallel_tool_calls or max_tokens: only what the request has.
  EXPECT_EQ(Canonical(exchange.requests[0].body), Canonical(R"({
    "model": "gpt-oss:20b",
    "messages": [{"role": "user", "content": "Hello."}],
    "temperature": 0
  })"));
}

TEST(OpenAiTest, NoKeySendsNoAuthorization) {
  Exchange exchange = GenerateAgainst(Reply(200, Completion(MessageJson("hi"), "stop")));

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  EXPECT_FALSE(exchange.requests[0].HasHeader("Authorization"));
}

// ---- The reply ----

TEST(OpenAiTest, FinishReasonsMapAndDropPartialCalls) {
  struct Row {
    std::string finish_reason;
    bool with_call;
    std::string stop_reason;
    std::size_t calls_kept;
  };
  const std::vector<Row> rows = {
      {"tool_calls", true, "tool_use", 1},
      {"stop", true, "end_turn", 1},
      {"length", true, "max_tokens", 0},       // a call cut at the cap is never run
      {"content_filter", true, "refusal", 0},  // nor one from a refused reply
      {"", true, "tool_use", 1},
      {"", false, "end_turn", 0},
      {"function_call", true, "tool_use", 1},
      {"insufficient_system_resource", false, "insufficient_system_resource", 0},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(absl::StrCat("finish_reason \"", row.finish_reason, "\", call: ", row.with_call));
    std::vector<std::string> calls;
    if (row.with_call) calls.push_back(ToolCallJson("call_9", "add", R"({"n":1})"));
    Exchange exchange = GenerateAgainst(
        Reply(200, Completion(MessageJson("", calls), row.finish_reason, UsageJson(100, 20, 0))));

    ASSERT_OK(exchange.result);
    EXPECT_EQ(exchange.result->stop_reason, row.stop_reason);
    EXPECT_THAT(exchange.result->tool_uses, SizeIs(row.calls_kept));
    EXPECT_THAT(exchange.result->usage, UsageIs(100, 20, 0));  // always charged
  }
}

TEST(OpenAiTest, ACallCutMidArgumentsAtTheCapIsDroppedNotRefused) {
  // The cap cut the call inside its arguments: they are not JSON, and need not be, since a cut
  // reply's calls are never run. The reply is charged and reads as truncated.
  for (const char* finish_reason : {"length", "content_filter"}) {
    SCOPED_TRACE(finish_reason);
    Exchange exchange = GenerateAgainst(
        Reply(200, Completion(MessageJson("", {ToolCallJson("call_1", "add", R"({"n":)")}),
                              finish_reason, UsageJson(300, 1024, 0))));
    ASSERT_OK(exchange.result);
    EXPECT_THAT(exchange.result->tool_uses, IsEmpty());
    EXPECT_THAT(exchange.result->usage, UsageIs(300, 1024, 0));
  }
}

TEST(OpenAiTest, ArgumentsMustBeAJsonObject) {
  // "n=1" is not JSON: the reply was served (and is charged) but cannot be used.
  Exchange refused = GenerateAgainst(Reply(
      200, Completion(MessageJson("", {ToolCallJson("call_1", "add", "n=1")}), "tool_calls")));
  EXPECT_THAT(refused.result,
              StatusIs(_, "openai: tool call add: arguments are not a JSON object: n=1"));
  EXPECT_EQ(ClassifyModelError(refused.result.status()).kind, ModelErrorKind::kServed);

  // Empty arguments are {}; a call without an id gets one; surrounding whitespace goes; every
  // call of a reply is returned, in order.
  Exchange accepted = GenerateAgainst(
      Reply(200, Completion(MessageJson("", {ToolCallJson("", "now", ""),
                                             ToolCallJson("", "add", "  {\"n\": 2}\n")}),
                            "tool_calls")));
  ASSERT_OK(accepted.result);
  EXPECT_THAT(
      accepted.result->tool_uses,
      ElementsAre(ToolUseIs(AllOf(StartsWith("call_"), EndsWith("_0")), "now", "{}"),
                  ToolUseIs(AllOf(StartsWith("call_"), EndsWith("_1")), "add", "{\"n\": 2}")));
}

TEST(OpenAiTest, EchoedArgumentsAreBounded) {
  std::string name(100'000, 'n');
  std::string arguments = "[" + std::string(100'000, '1') + "]";
  Exchange exchange = GenerateAgainst(Reply(
      200, Completion(MessageJson("", {ToolCallJson("call_1", name, arguments)}), "tool_calls")));

  ASSERT_THAT(
      exchange.result,
      StatusIs(_, AllOf(StartsWith("openai: tool call nnn"),
                        HasSubstr("…: arguments are not a JSON object: [111"), EndsWith("…"))));
  EXPECT_LE(exchange.result.status().message().size(), 2048u);
  EXPECT_EQ(ClassifyModelError(exchange.result.status()).kind, ModelErrorKind::kServed);
}

TEST(OpenAiTest, UnusableReplyIsChargedWhatItReported) {
  const std::string usage = UsageJson(5000, 300, 0);
  struct Row {
    std::string name;
    std::string body;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"truncated arguments",
       Completion(MessageJson("", {ToolCallJson("c", "add", R"({"n":)")}), "tool_calls", usage),
       "openai: tool call add: arguments are not a JSON object: {\"n\":"},
      {"array arguments",
       Completion(MessageJson("", {ToolCallJson("c", "add", "[1]")}), "tool_calls", usage),
       "openai: tool call add: arguments are not a JSON object: [1]"},
      {"no choice",
       R"({"id":"chatcmpl-1","object":"chat.completion","choices":[],"usage":)" + usage + "}",
       "openai: response carried no choice"},
      {"choices absent", R"({"id":"chatcmpl-1","usage":)" + usage + "}",
       "openai: response carried no choice"},
      {"error object",
       R"({"error":{"message":"The server had an error.","type":"server_error","param":null,)"
       R"("code":null},"usage":)" +
           usage + "}",
       "openai: server_error: The server had an error."},
      {"choices not an array", R"({"choices":7,"usage":)" + usage + "}",
       "openai: decode: choices is a number, not an array"},
      {"content not a string",
       Completion(R"({"role":"assistant","content":[{"type":"text"}]})", "stop", usage),
       "openai: decode: choices[0].message.content is an array, not a string"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    Exchange exchange = GenerateAgainst(Reply(200, row.body));
    ModelErrorInfo info = ClassifyModelError(exchange.result.status());
    EXPECT_THAT(exchange.result, StatusIs(_, row.error));
    EXPECT_EQ(info.kind, ModelErrorKind::kServed);
    EXPECT_THAT(info.usage, Optional(UsageIs(5000, 300, 0)));
  }
}

TEST(OpenAiTest, BodyThatIsNotJsonIsServedWithNoUsage) {
  Exchange exchange = GenerateAgainst(Reply(200, "<html>upstream said no</html>", {}, "text/html"));

  ModelErrorInfo info = ClassifyModelError(exchange.result.status());
  EXPECT_THAT(exchange.result, StatusIs(_, StartsWith("openai: decode: ")));
  EXPECT_EQ(info.kind, ModelErrorKind::kServed);
  EXPECT_THAT(info.usage, Optional(UsageIs(0, 0, 0)));
}

TEST(OpenAiTest, UnusableUsageIsChargedNothing) {
  auto usage = [](const std::string& prompt, const std::string& completion,
                  const std::string& cached) {
    return R"({"prompt_tokens":)" + prompt + R"(,"completion_tokens":)" + completion +
           R"(,"prompt_tokens_details":{"cached_tokens":)" + cached + "}}";
  };
  struct Row {
    std::string usage;
    std::string names;
  };
  const std::vector<Row> rows = {
      {usage("-1", "5", "0"), "prompt_tokens"},
      {usage("10", "9223372036854775808", "0"), "completion_tokens"},
      {usage("1.5", "5", "0"), "prompt_tokens"},
      {usage("\"12\"", "5", "0"), "prompt_tokens"},
      {usage("10", "5", "1e3"), "cached_tokens"},
      {usage("10", "5", "11"), "cached input tokens 11 exceed"},
      {R"("lots")", "usage"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.usage);
    Exchange exchange =
        GenerateAgainst(Reply(200, Completion(MessageJson("hi"), "stop", row.usage)));
    ModelErrorInfo info = ClassifyModelError(exchange.result.status());
    EXPECT_THAT(exchange.result, StatusIs(_, AllOf(StartsWith("openai: "), HasSubstr(row.names))));
    EXPECT_EQ(info.kind, ModelErrorKind::kUnusableUsage);
    EXPECT_THAT(info.usage.value_or(Usage{}), UsageIs(0, 0, 0));
  }

  // Honest counts pass, cached equal to input included; an absent usage object is zero.
  Exchange honest =
      GenerateAgainst(Reply(200, Completion(MessageJson("hi"), "stop", usage("10", "5", "10"))));
  EXPECT_THAT(honest.result, IsOkAndHolds(Field(&ModelResponse::usage, UsageIs(10, 5, 10))));
  Exchange absent = GenerateAgainst(
      Reply(200, R"({"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},)"
                 R"("finish_reason":"stop"}]})"));
  EXPECT_THAT(absent.result, IsOkAndHolds(Field(&ModelResponse::usage, UsageIs(0, 0, 0))));
}

// ---- Failures sorted into the model caller's kinds ----

TEST(OpenAiTest, ErrorsAreClassifiedByKind) {
  const std::string error_object =
      R"({"error":{"message":"Rate limit reached","type":"requests","param":null,)"
      R"("code":"rate_limit_exceeded"}})";

  Exchange limited = GenerateAgainst(Reply(429, error_object, {{"Retry-After", "3"}}));
  ModelErrorInfo limited_info = ClassifyModelError(limited.result.status());
  EXPECT_THAT(limited.result, StatusIs(_, StartsWith("openai: 429: ")));
  EXPECT_EQ(limited_info.kind, ModelErrorKind::kTransient);
  EXPECT_EQ(limited_info.retry_after, absl::Seconds(3));

  Exchange overloaded = GenerateAgainst(Reply(503, "overloaded"));
  EXPECT_EQ(ClassifyModelError(overloaded.result.status()).kind, ModelErrorKind::kTransient);

  Exchange bad = GenerateAgainst(Reply(
      400,
      R"({"error":{"message":"Unrecognized request argument","type":"invalid_request_error"}})"));
  EXPECT_THAT(bad.result,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("openai: 400: {\"error\":{\"message\":\"Unrecognized")));
  EXPECT_EQ(ClassifyModelError(bad.result.status()).kind, ModelErrorKind::kPermanent);

  Exchange served_error = GenerateAgainst(Reply(200, error_object));
  EXPECT_THAT(served_error.result, StatusIs(_, "openai: requests: Rate limit reached"));
  EXPECT_EQ(ClassifyModelError(served_error.result.status()).kind, ModelErrorKind::kServed);

  Exchange no_choice = GenerateAgainst(Reply(200, R"({"choices":[]})"));
  EXPECT_THAT(no_choice.result, StatusIs(_, "openai: response carried no choice"));
  EXPECT_EQ(ClassifyModelError(no_choice.result.status()).kind, ModelErrorKind::kServed);

  ProviderWorld world;
  std::unique_ptr<OpenAiModel> unreachable = ModelFor(
      OpenAiConfig{.model = "m",
                   .base_url = absl::StrCat("http://127.0.0.1:", world::ClosedPort(), "/v1")},
      world);
  ASSERT_NE(unreachable, nullptr);
  absl::StatusOr<ModelResponse> refused = unreachable->Generate(HelloRequest(), Soon());
  EXPECT_THAT(refused, StatusIs(_, StartsWith("openai: ")));
  EXPECT_EQ(ClassifyModelError(refused.status()).kind, ModelErrorKind::kTransient);
}

TEST(OpenAiTest, BodyCutShortIsAmbiguous) {
  Exchange exchange = GenerateAgainst(CutAfterHead(R"({"id":"chatcmpl-1","choices":[)", 4096));

  ModelErrorInfo info = ClassifyModelError(exchange.result.status());
  EXPECT_THAT(exchange.result, StatusIs(_, StartsWith("openai: ")));
  EXPECT_EQ(info.kind, ModelErrorKind::kAmbiguous);  // it may have been served: not permanent
}

TEST(OpenAiTest, TheDeadlineIsTheEarlierOfTheCallersAndTheTimeout) {
  test_support::DeadlineNetwork network;
  test_support::ManualWorld manual(network);
  OpenAiConfig config{.model = "gpt-oss:20b", .base_url = "http://127.0.0.1:9/v1"};
  config.timeout = absl::Seconds(5);
  std::unique_ptr<OpenAiModel> model =
      test_support::Created(OpenAiModel::Create(config, manual.world));
  ASSERT_NE(model, nullptr);
  const absl::Time now = manual.clock.Now();

  absl::StatusOr<ModelResponse> late = model->Generate(HelloRequest(), absl::InfiniteFuture());
  EXPECT_THAT(late, StatusIs(absl::StatusCode::kDeadlineExceeded, StartsWith("openai: ")));
  EXPECT_EQ(ClassifyModelError(late.status()).kind, ModelErrorKind::kAmbiguous);
  ASSERT_THAT(network.deadlines, SizeIs(1));
  EXPECT_EQ(network.deadlines[0], now + absl::Seconds(5));  // the timeout, the earlier

  EXPECT_THAT(model->Generate(HelloRequest(), now + absl::Seconds(1)), Not(IsOk()));
  ASSERT_THAT(network.deadlines, SizeIs(2));
  EXPECT_EQ(network.deadlines[1], now + absl::Seconds(1));  // the caller's, the earlier
}

TEST(OpenAiTest, RedirectIsRefusedAndTheKeyStaysHome) {
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    SCOPED_TRACE(host);
    ProviderServer target({Reply(200, Completion(MessageJson("stolen"), "stop"))});
    std::string port = target.Url().substr(target.Url().rfind(':') + 1);
    std::string location =
        absl::StrCat("http://", host, ":", port, "/v1/chat/completions?token=", kKey);
    Exchange exchange =
        GenerateAgainst(Reply(307, "", {{"Location", location}}), HelloRequest(), ApiKey(kKey));

    EXPECT_THAT(
        exchange.result,
        StatusIs(_, AllOf(StartsWith("openai: 307: redirects are not followed"),
                          HasSubstr(absl::StrCat("host \"", host, "\"")), Not(HasSubstr(kKey)),
                          Not(HasSubstr("token")), Not(HasSubstr("/chat/completions")))));
    EXPECT_EQ(ClassifyModelError(exchange.result.status()).kind, ModelErrorKind::kPermanent);
    EXPECT_THAT(exchange.requests, SizeIs(1));
    EXPECT_THAT(target.Requests(), IsEmpty());
    EXPECT_EQ(target.connections(), 0);
  }
}

// ---- Prices and printing ----

TEST(OpenAiTest, FreePricesTheReportedName) {
  ProviderWorld world;
  std::unique_ptr<OpenAiModel> model = ModelFor(OpenAiConfig{.model = "gpt-oss:20b"}, world);
  ASSERT_NE(model, nullptr);
  PriceTable table = Free({model->Name()});
  EXPECT_OK(PriceFor(table, "openai:gpt-oss:20b"));
  EXPECT_THAT(PriceFor(table, "gpt-oss:20b"), StatusIs(absl::StatusCode::kNotFound));

  std::unique_ptr<OpenAiModel> renamed =
      ModelFor(OpenAiConfig{.model = "gpt-oss:20b", .name = "local"}, world);
  ASSERT_NE(renamed, nullptr);
  EXPECT_OK(PriceFor(Free({renamed->Name()}), "local"));
}

TEST(OpenAiTest, ConfigAndModelPrintWithoutTheKey) {
  ProviderWorld world;
  OpenAiConfig config{.model = "gpt-oss:20b",
                      .base_url = "http://127.0.0.1:9/v1",
                      .api_key = ApiKey(kKey),
                      .timeout = absl::Minutes(2)};
  std::unique_ptr<OpenAiModel> model = ModelFor(config, world);
  ASSERT_NE(model, nullptr);

  for (const std::string& shown : test_support::EveryPrinting(config, *model)) {
    SCOPED_TRACE(shown);
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kKey)), Not(HasSubstr("sk-")),
                             HasSubstr("api_key: [redacted]"), HasSubstr("gpt-oss:20b")));
  }
  EXPECT_EQ(absl::StrFormat("%s", config),
            "OpenAiConfig{model: gpt-oss:20b, name: , base_url: http://127.0.0.1:9/v1, "
            "api_key: [redacted], timeout: 2m}");

  OpenAiConfig keyless{.model = "m"};
  EXPECT_THAT(absl::StrFormat("%s", keyless), HasSubstr("api_key: \"\""));
}

TEST(OpenAiTest, ConfigHeldInOtherValuesPrintsWithoutTheKey) {
  OpenAiConfig config{.model = "m", .api_key = ApiKey(kKey)};
  std::vector<OpenAiConfig> list = {config, config};
  std::optional<OpenAiConfig> maybe = config;
  std::pair<std::string, OpenAiConfig> named = {"primary", config};
  std::unique_ptr<OpenAiConfig> owned = std::make_unique<OpenAiConfig>(config);

  for (const std::string& shown :
       {::testing::PrintToString(list), ::testing::PrintToString(maybe),
        ::testing::PrintToString(named), ::testing::PrintToString(*owned),
        ::testing::PrintToString(config.api_key), absl::StrFormat("%s", config)}) {
    SCOPED_TRACE(shown);
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kKey)), HasSubstr("[redacted]")));
  }
}

}  // namespace
}  // namespace agentrt::providers
