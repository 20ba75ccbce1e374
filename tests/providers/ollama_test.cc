// OllamaModel against a loopback peer that answers in the shape of Ollama's /api/chat
// (non-streaming) as its API documentation gives it (docs/api.md, "Generate a chat completion"):
// model, created_at, message{role, content, tool_calls[{function{name, arguments}}]},
// done_reason, done, and the durations and counts.
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "providers/http_call.h"
#include "providers/ollama/ollama_model.h"
#include "runtime/json/canonical_json.h"
#include "runtime/prices.h"
#include "tests/providers/provider_server.h"
#include "tests/runtime/world/raw_server.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using test_support::CutAfterHead;
using test_support::ProviderServer;
using test_support::ProviderWorld;
using test_support::ReceivedRequest;
using test_support::Reply;
using ::testing::_;

constexpr std::string_view kModel = "qwen3:30b-a3b";

using Variables = std::map<std::string, std::string, std::less<>>;

// A reply in the documented shape; `message` is the message object's JSON and `counts` the
// prompt_eval_count and eval_count members as written (so a test can send bad ones).
std::string ChatReply(const std::string& message, const std::string& done_reason,
                      const std::string& counts = R"("prompt_eval_count":142,"eval_count":30)") {
  return absl::StrCat(R"({"model":"qwen3:30b-a3b","created_at":"2025-06-01T10:00:00.123456Z",)",
                      R"("message":)", message, R"(,"done_reason":")", done_reason,
                      R"(","done":true,"total_duration":4883583458,"load_duration":1334875,)",
                      R"("prompt_eval_duration":128000000,"eval_duration":4753000000,)", counts,
                      "}");
}

std::string Text(const std::string& content) {
  return absl::StrCat(R"({"role":"assistant","content":")", content, R"("})");
}

ModelRequest Hello() {
  ModelRequest request;
  request.messages.push_back({"user", {{.type = "text", .text = "Hello"}}});
  request.max_output_tokens = 512;
  return request;
}

std::unique_ptr<OllamaModel> ModelFor(const ProviderServer& server, const ProviderWorld& world,
                                      OllamaConfig config = {}) {
  if (config.model.empty()) config.model = std::string(kModel);
  config.host = server.Url();
  return test_support::Created(OllamaModel::Create(config, world.world()));
}

absl::Time InAMinute() { return absl::Now() + absl::Minutes(1); }

std::string Canonical(std::string_view json) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json);
  EXPECT_THAT(canonical, IsOk()) << json;
  return canonical.ok() ? *canonical : std::string();
}

ModelErrorKind KindOf(const absl::Status& status) { return ClassifyModelError(status).kind; }

// The usage a served error carries, as {input, output}.
std::vector<std::int64_t> ServedUsage(const absl::Status& status) {
  ModelErrorInfo info = ClassifyModelError(status);
  EXPECT_EQ(info.kind, ModelErrorKind::kServed) << status;
  if (!info.usage) return {};
  return {info.usage->input_tokens, info.usage->output_tokens};
}

TEST(OllamaTest, CreateRequiresAModelAndNamesItself) {
  ProviderWorld world;
  EXPECT_THAT(OllamaModel::Create({}, world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, "ollama: model is required"));

  absl::StatusOr<std::unique_ptr<OllamaModel>> model =
      OllamaModel::Create({.model = std::string(kModel)}, world.world());
  ASSERT_THAT(model, IsOk());
  EXPECT_EQ((*model)->Name(), "ollama:qwen3:30b-a3b");
  EXPECT_EQ(OllamaName(kModel), "ollama:qwen3:30b-a3b");

  absl::StatusOr<std::unique_ptr<OllamaModel>> named =
      OllamaModel::Create({.model = std::string(kModel), .name = "local"}, world.world());
  ASSERT_THAT(named, IsOk());
  EXPECT_EQ((*named)->Name(), "local");

  EXPECT_THAT(OllamaModel::Create({.model = std::string(kModel)}, world::World{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ollama: the world has no")));
}

TEST(OllamaTest, ConfigPrintsEverySetting) {
  std::ostringstream out;
  out << OllamaConfig{.model = "m", .host = "http://box:1", .think = true, .num_ctx = 8};
  EXPECT_EQ(out.str(),
            "OllamaConfig{model: m, name: , host: http://box:1, think: true, num_ctx: 8, "
            "timeout: 15m}");
}

TEST(OllamaTest, HostDefaultsAndPrefixesTheScheme) {
  EXPECT_THAT(OllamaHost("", nullptr), IsOkAndHolds("http://127.0.0.1:11434"));
  world::FixedEnvironment unset;
  EXPECT_THAT(OllamaHost("", &unset), IsOkAndHolds("http://127.0.0.1:11434"));
  world::FixedEnvironment env(Variables{{"OLLAMA_HOST", "box:1234/"}});
  EXPECT_THAT(OllamaHost("", &env), IsOkAndHolds("http://box:1234"));
  EXPECT_THAT(OllamaHost("https://box:443", &env), IsOkAndHolds("https://box:443"));
  EXPECT_THAT(OllamaHost("http://[::1]:11434/", nullptr), IsOkAndHolds("http://[::1]:11434"));

  // The environment's host is where requests go when the config names none.
  ProviderServer server({Reply(200, ChatReply(Text("hi"), "stop"))});
  std::string port = server.Url().substr(server.Url().rfind(':') + 1);
  ProviderWorld world(Variables{{"OLLAMA_HOST", absl::StrCat("127.0.0.1:", port, "/")}});
  absl::StatusOr<std::unique_ptr<OllamaModel>> model =
      OllamaModel::Create({.model = std::string(kModel)}, world.world());
  ASSERT_THAT(model, IsOk());
  EXPECT_THAT((*model)->Generate(Hello(), InAMinute()), IsOk());
  ASSERT_THAT(server.Requests(), SizeIs(1));
  EXPECT_EQ(server.Requests()[0].path, "/api/chat");
}

TEST(OllamaTest, CreateRefusesAHostThatIsNotAnHttpServer) {
  ProviderWorld world;
  for (std::string bad : {"ftp://x", "file:///etc/passwd"}) {
    SCOPED_TRACE(bad);
    std::string message =
        absl::StrCat("ollama: host \"", bad, "\": the scheme must be http or https");
    EXPECT_THAT(OllamaHost(bad, nullptr), StatusIs(absl::StatusCode::kInvalidArgument, message));
    EXPECT_THAT(OllamaModel::Create({.model = "m", .host = bad}, world.world()),
                StatusIs(absl::StatusCode::kInvalidArgument, message));
  }
  for (std::string bad :
       {"http://", "http://u:p@box:1", "http://box:1/?q=1", "http://box:1/#top", "box:1/api"}) {
    SCOPED_TRACE(bad);
    std::string message = absl::StrCat("ollama: host \"", bad, "\" is not a server address");
    EXPECT_THAT(OllamaHost(bad, nullptr), StatusIs(absl::StatusCode::kInvalidArgument, message));
    EXPECT_THAT(OllamaModel::Create({.model = "m", .host = bad}, world.world()),
                StatusIs(absl::StatusCode::kInvalidArgument, message));
  }
  // A bad OLLAMA_HOST is refused the same way.
  ProviderWorld env_world(Variables{{"OLLAMA_HOST", "http://u:p@box:1"}});
  EXPECT_THAT(OllamaModel::Create({.model = "m"}, env_world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not a server address")));
}

TEST(OllamaTest, MapsRequestAndToolCalls) {
  std::string answer =
      ChatReply(R"({"role":"assistant","content":"Adding.","tool_calls":[)"
                R"({"id":"call_1","function":{"name":"add","arguments":{"a":1,"b":2}}}]})",
                "stop");
  ProviderServer server({Reply(200, answer)});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  ModelRequest request;
  request.system = "You add numbers.";
  request.messages = {
      {"user", {{.type = "text", .text = "What is 1+2?"}}},
      {"assistant",
       {{.type = "text", .text = "Let me add."},
        {.type = "tool_use",
         .tool_use_id = "call_0",
         .name = "add",
         .input = R"({"b":2, "a":1})"}}},
      {"user", {{.type = "tool_result", .tool_use_id = "call_0", .name = "add", .content = "3"}}},
  };
  request.tools = {{.name = "add",
                    .description = "Adds two numbers.",
                    .input_schema = R"({"type": "object", "properties": {"a": {"type": "number"},
                                       "b": {"type": "number"}}})"}};
  request.max_output_tokens = 512;

  absl::StatusOr<ModelResponse> response = model->Generate(request, InAMinute());
  ASSERT_THAT(response, IsOk());

  ASSERT_THAT(server.Requests(), SizeIs(1));
  ReceivedRequest sent = server.Requests()[0];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.path, "/api/chat");
  EXPECT_THAT(sent.Header("Content-Type"), StartsWith("application/json"));
  EXPECT_FALSE(sent.HasHeader("Authorization"));
  EXPECT_EQ(Canonical(sent.body), Canonical(R"({
    "model": "qwen3:30b-a3b",
    "messages": [
      {"role": "system", "content": "You add numbers."},
      {"role": "user", "content": "What is 1+2?"},
      {"role": "assistant", "content": "Let me add.",
       "tool_calls": [{"id": "call_0", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}}]},
      {"role": "tool", "content": "3", "tool_name": "add"}
    ],
    "tools": [{"type": "function", "function": {"name": "add", "description": "Adds two numbers.",
               "parameters": {"type": "object", "properties": {"a": {"type": "number"},
                                                               "b": {"type": "number"}}}}}],
    "stream": false,
    "think": false,
    "options": {"num_ctx": 32768, "num_predict": 512, "temperature": 0}
  })"));

  EXPECT_EQ(response->text, "Adding.");
  ASSERT_THAT(response->tool_uses, SizeIs(1));
  EXPECT_EQ(response->tool_uses[0].id, "call_1");
  EXPECT_EQ(response->tool_uses[0].name, "add");
  EXPECT_EQ(response->tool_uses[0].args, R"({"a":1,"b":2})");
  EXPECT_EQ(response->usage.input_tokens, 142);
  EXPECT_EQ(response->usage.output_tokens, 30);
  EXPECT_EQ(response->usage.cached_input_tokens, 0);
  EXPECT_EQ(response->stop_reason, stop_reason::kToolUse);
  EXPECT_EQ(response->raw, answer);
}

TEST(OllamaTest, UserTurnsSendTextThenToolResultsAndUnsetFieldsAreOmitted) {
  ProviderServer server({Reply(200, ChatReply(Text("ok"), "stop"))});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world, {.think = true, .num_ctx = 4096});
  ASSERT_NE(model, nullptr);

  ModelRequest request;  // no system prompt, no tools, no output cap
  request.messages = {
      {"assistant",
       {{.type = "tool_use", .name = "list"},
        {.type = "tool_use", .tool_use_id = "t2", .name = "stat", .input = " null "},
        {.type = "tool_result", .name = "dropped", .content = "never sent"}}},
      {"user",
       {{.type = "tool_result", .tool_use_id = "t1", .content = "a b"},
        {.type = "text", .text = "and "},
        {.type = "tool_result", .tool_use_id = "t2", .name = "stat", .content = "1 KiB"},
        {.type = "text", .text = "now?"}}},
      {"user", {{.type = "tool_result", .tool_use_id = "t3", .name = "x", .content = ""}}},
  };
  ASSERT_THAT(model->Generate(request, InAMinute()), IsOk());

  ASSERT_THAT(server.Requests(), SizeIs(1));
  EXPECT_EQ(Canonical(server.Requests()[0].body), Canonical(R"({
    "model": "qwen3:30b-a3b",
    "messages": [
      {"role": "assistant", "content": "",
       "tool_calls": [{"function": {"name": "list", "arguments": {}}},
                      {"id": "t2", "function": {"name": "stat", "arguments": {}}}]},
      {"role": "user", "content": "and now?"},
      {"role": "tool", "content": "a b"},
      {"role": "tool", "content": "1 KiB", "tool_name": "stat"},
      {"role": "tool", "content": "", "tool_name": "x"}
    ],
    "stream": false,
    "think": true,
    "options": {"num_ctx": 4096, "temperature": 0}
  })"));
}

TEST(OllamaTest, ToolUseInputThatIsNotJsonIsRefusedBeforeSending) {
  ProviderServer server({});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  ModelRequest request;
  request.messages = {{"assistant", {{.type = "tool_use", .name = "add", .input = "{a:1}"}}}};
  absl::StatusOr<ModelResponse> response = model->Generate(request, InAMinute());
  EXPECT_THAT(response, StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("ollama: tool use \"add\": input:")));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kPermanent);
  EXPECT_EQ(server.connections(), 0);
}

TEST(OllamaTest, TextOnlyAndMissingIds) {
  ProviderServer server({
      Reply(200, ChatReply(Text("Just text."), "stop")),
      Reply(200, ChatReply(R"({"role":"assistant","content":"","tool_calls":[)"
                           R"({"function":{"name":"list"}},)"
                           R"({"function":{"name":"stat","arguments":null}},)"
                           R"({"function":{"name":"add","arguments":{"n":3}}}]})",
                           "stop")),
  });
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  absl::StatusOr<ModelResponse> text = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(text->text, "Just text.");
  EXPECT_THAT(text->tool_uses, IsEmpty());
  EXPECT_EQ(text->stop_reason, stop_reason::kEndTurn);

  absl::StatusOr<ModelResponse> calls = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(calls, IsOk());
  ASSERT_THAT(calls->tool_uses, SizeIs(3));  // all of them, though the runtime runs the first
  EXPECT_EQ(calls->stop_reason, stop_reason::kToolUse);
  EXPECT_EQ(calls->tool_uses[0].name, "list");
  EXPECT_EQ(calls->tool_uses[0].args, "{}");
  EXPECT_EQ(calls->tool_uses[1].args, "{}");
  EXPECT_EQ(calls->tool_uses[2].args, R"({"n":3})");
  for (std::size_t i = 0; i < calls->tool_uses.size(); ++i) {
    EXPECT_THAT(calls->tool_uses[i].id, MatchesRegex(absl::StrCat("call_[0-9a-f]{16}_", i)));
  }
  EXPECT_NE(calls->tool_uses[0].id, calls->tool_uses[1].id);
}

TEST(OllamaTest, StopReasonsMapToTheRuntimeVocabulary) {
  std::string with_call = R"({"role":"assistant","content":"cut","tool_calls":[)"
                          R"({"id":"c1","function":{"name":"add","arguments":{"a":1}}}]})";
  ProviderServer server({
      Reply(200, ChatReply(Text("done"), "stop")),
      Reply(200, ChatReply(Text("done"), "")),
      Reply(200, ChatReply(with_call, "length", R"("prompt_eval_count":9,"eval_count":512)")),
      Reply(200, ChatReply(Text("bye"), "unload")),
  });
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  absl::StatusOr<ModelResponse> stop = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(stop, IsOk());
  EXPECT_EQ(stop->stop_reason, stop_reason::kEndTurn);

  absl::StatusOr<ModelResponse> empty = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(empty->stop_reason, stop_reason::kEndTurn);

  absl::StatusOr<ModelResponse> length = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(length, IsOk());
  EXPECT_EQ(length->stop_reason, stop_reason::kMaxTokens);
  EXPECT_THAT(length->tool_uses, IsEmpty());
  EXPECT_EQ(length->text, "cut");
  EXPECT_EQ(length->usage.input_tokens, 9);
  EXPECT_EQ(length->usage.output_tokens, 512);

  absl::StatusOr<ModelResponse> other = model->Generate(Hello(), InAMinute());
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(other->stop_reason, "unload");
}

TEST(OllamaTest, UnusableReplyIsChargedWhatItReported) {
  std::string counts = R"("prompt_eval_count":7,"eval_count":2)";
  ProviderServer server({
      Reply(200, absl::StrCat(R"({"error":"model \"qwen3\" not found, try pulling it first",)",
                              counts, "}")),
      Reply(200, ChatReply(R"({"role":"assistant","content":"","tool_calls":[)"
                           R"({"function":{"name":"add","arguments":7}}]})",
                           "stop", counts)),
      Reply(200, ChatReply(R"({"role":"assistant","content":"","tool_calls":[)"
                           R"({"function":{"name":"add","arguments":"{\"a\":1}"}}]})",
                           "stop", counts)),
      Reply(200, ChatReply(R"({"role":"assistant","content":42})", "stop", counts)),
      Reply(200, "<html>Bad Gateway</html>"),
      Reply(200, "[1,2]"),
  });
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  absl::StatusOr<ModelResponse> error = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(error, StatusIs(absl::StatusCode::kInternal,
                              "ollama: \"model \"qwen3\" not found, try pulling it first\""));
  EXPECT_THAT(ServedUsage(error.status()), ElementsAre(7, 2));

  absl::StatusOr<ModelResponse> number = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(number, StatusIs(absl::StatusCode::kInternal,
                               "ollama: tool call \"add\": arguments are not a JSON object: 7"));
  EXPECT_THAT(ServedUsage(number.status()), ElementsAre(7, 2));

  absl::StatusOr<ModelResponse> string = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(string, StatusIs(absl::StatusCode::kInternal,
                               HasSubstr("arguments are not a JSON object: \"{")));
  EXPECT_THAT(ServedUsage(string.status()), ElementsAre(7, 2));

  absl::StatusOr<ModelResponse> content = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(content, StatusIs(absl::StatusCode::kInternal,
                                "ollama: decode: message.content is a number, not a string"));
  EXPECT_THAT(ServedUsage(content.status()), ElementsAre(7, 2));

  // A body that is not a JSON object reports no usage: served, charged zero.
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<ModelResponse> garbled = model->Generate(Hello(), InAMinute());
    EXPECT_THAT(garbled, StatusIs(absl::StatusCode::kInternal, StartsWith("ollama: decode: ")));
    EXPECT_THAT(ServedUsage(garbled.status()), ElementsAre(0, 0));
  }
}

TEST(OllamaTest, LongErrorIsCutTo512Bytes) {
  std::string long_error(3000, 'e');
  ProviderServer server({Reply(200, absl::StrCat(R"({"error":")", long_error, R"("})"))});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
  // 509 bytes and the 3-byte mark, between quotes.
  EXPECT_THAT(response, StatusIs(_, absl::StrCat("ollama: \"", std::string(509, 'e'), "…\"")));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kServed);
}

TEST(OllamaTest, UnusableUsageIsChargedNothing) {
  struct Case {
    std::string counts;
    std::string field;
  };
  std::vector<Case> cases = {
      {R"("prompt_eval_count":-1,"eval_count":2)", "prompt_eval_count is -1"},
      {R"("prompt_eval_count":7,"eval_count":9223372036854775808)",
       "eval_count is 9223372036854775808"},
      {R"("prompt_eval_count":7.5,"eval_count":2)", "prompt_eval_count is 7.5"},
      {R"("prompt_eval_count":7,"eval_count":"12")", "eval_count is \"12\""},
  };
  std::vector<test_support::CannedAnswer> answers;
  for (const Case& c : cases)
    answers.push_back(Reply(200, ChatReply(Text("hi"), "stop", c.counts)));
  ProviderServer server(answers);
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  for (const Case& c : cases) {
    SCOPED_TRACE(c.counts);
    absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
    EXPECT_THAT(response,
                StatusIs(_, absl::StrCat("ollama: unusable usage: ", c.field, ", not a count")));
    ModelErrorInfo info = ClassifyModelError(response.status());
    EXPECT_EQ(info.kind, ModelErrorKind::kUnusableUsage);
    EXPECT_FALSE(info.usage.has_value());
  }
}

TEST(OllamaTest, ErrorsClassified) {
  ProviderServer server({
      Reply(503, R"({"error":"server busy"})"),
      Reply(404, R"({"error":"model \"qwen3\" not found, try pulling it first"})"),
      Reply(200, R"({"error":"unexpected server status"})"),
  });
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);

  absl::StatusOr<ModelResponse> busy = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(busy, StatusIs(_, R"(ollama: 503: {"error":"server busy"})"));
  EXPECT_EQ(KindOf(busy.status()), ModelErrorKind::kTransient);

  absl::StatusOr<ModelResponse> missing = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kNotFound, StartsWith("ollama: 404: ")));
  EXPECT_EQ(KindOf(missing.status()), ModelErrorKind::kPermanent);

  absl::StatusOr<ModelResponse> served = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(served, StatusIs(_, "ollama: \"unexpected server status\""));
  EXPECT_EQ(KindOf(served.status()), ModelErrorKind::kServed);

  absl::StatusOr<std::unique_ptr<OllamaModel>> refused = OllamaModel::Create(
      {.model = std::string(kModel), .host = absl::StrCat("127.0.0.1:", world::ClosedPort())},
      world.world());
  ASSERT_THAT(refused, IsOk());
  absl::StatusOr<ModelResponse> closed = (*refused)->Generate(Hello(), InAMinute());
  EXPECT_THAT(closed, StatusIs(_, StartsWith("ollama: ")));
  EXPECT_EQ(KindOf(closed.status()), ModelErrorKind::kTransient) << closed.status();
}

TEST(OllamaTest, RetryAfterIsCarried) {
  ProviderServer server({Reply(429, R"({"error":"slow down"})", {{"Retry-After", "3"}})});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(response, StatusIs(_, R"(ollama: 429: {"error":"slow down"})"));
  ModelErrorInfo info = ClassifyModelError(response.status());
  EXPECT_EQ(info.kind, ModelErrorKind::kTransient);
  EXPECT_EQ(info.retry_after, absl::Seconds(3));
}

TEST(OllamaTest, RedirectIsRefused) {
  ProviderServer target({Reply(200, ChatReply(Text("never"), "stop"))});
  ProviderServer server({Reply(308, "", {{"Location", target.Url() + "/api/chat?token=s3cret"}})});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(response, StatusIs(_,
                                 "ollama: 308: redirects are not followed; the response pointed to "
                                 "host \"127.0.0.1\""));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kPermanent);
  EXPECT_EQ(target.connections(), 0);
}

TEST(OllamaTest, BodyOverTheLimitIsRefusedByName) {
  std::string huge = ChatReply(Text(std::string(kMaxBodyBytes, 'x')), "stop");
  ProviderServer server({Reply(200, huge)});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(response, StatusIs(absl::StatusCode::kResourceExhausted,
                                 AllOf(StartsWith("ollama: "), HasSubstr("16777216"))));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kPermanent) << response.status();
}

// The runtime has no cancellation context (the reference's pre-cancelled-context case has no
// counterpart), so only the unresolvable host is checked here.
TEST(OllamaTest, UnresolvableHostIsNotRetried) {
  ProviderWorld world(Variables{}, {.loopback_only = false, .proxy_from_environment = false});
  absl::StatusOr<std::unique_ptr<OllamaModel>> model = OllamaModel::Create(
      {.model = std::string(kModel), .host = "http://agentrt-test.invalid:11434"}, world.world());
  ASSERT_THAT(model, IsOk());
  absl::StatusOr<ModelResponse> response = (*model)->Generate(Hello(), InAMinute());
  EXPECT_THAT(response, StatusIs(_, StartsWith("ollama: ")));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kPermanent) << response.status();
}

TEST(OllamaTest, MidBodyFailureIsAmbiguousNotPermanent) {
  ProviderServer server({CutAfterHead(R"({"model":"qwen3:30b-a3b","message":{"ro)", 400)});
  ProviderWorld world;
  std::unique_ptr<OllamaModel> model = ModelFor(server, world);
  ASSERT_NE(model, nullptr);
  absl::StatusOr<ModelResponse> response = model->Generate(Hello(), InAMinute());
  EXPECT_THAT(response, StatusIs(_, StartsWith("ollama: ")));
  EXPECT_EQ(KindOf(response.status()), ModelErrorKind::kAmbiguous) << response.status();
}

TEST(OllamaTest, DeadlineIsTheEarlierOfTheCallersAndTheTimeout) {
  test_support::DeadlineNetwork network;
  test_support::ManualWorld manual(network);
  std::unique_ptr<OllamaModel> model = test_support::Created(OllamaModel::Create(
      {.model = std::string(kModel), .host = "127.0.0.1:9", .timeout = absl::Seconds(5)},
      manual.world));
  ASSERT_NE(model, nullptr);
  const absl::Time now = manual.clock.Now();

  absl::StatusOr<ModelResponse> late = model->Generate(Hello(), absl::InfiniteFuture());
  EXPECT_EQ(KindOf(late.status()), ModelErrorKind::kAmbiguous) << late.status();
  EXPECT_THAT(model->Generate(Hello(), now + absl::Seconds(1)), Not(IsOk()));
  // The timeout when it comes first, the caller's when that does.
  EXPECT_THAT(network.deadlines, ElementsAre(now + absl::Seconds(5), now + absl::Seconds(1)));
}

TEST(OllamaTest, FreePricesTheReportedName) {
  ProviderWorld world;
  absl::StatusOr<std::unique_ptr<OllamaModel>> model =
      OllamaModel::Create({.model = std::string(kModel)}, world.world());
  ASSERT_THAT(model, IsOk());
  PriceTable prices = Free({(*model)->Name()});
  EXPECT_THAT(PriceFor(prices, "ollama:qwen3:30b-a3b"), IsOk());
  EXPECT_THAT(PriceFor(prices, kModel), StatusIs(absl::StatusCode::kNotFound));

  absl::StatusOr<std::unique_ptr<OllamaModel>> named =
      OllamaModel::Create({.model = std::string(kModel), .name = "local"}, world.world());
  ASSERT_THAT(named, IsOk());
  PriceTable named_prices = Free({(*named)->Name()});
  EXPECT_THAT(PriceFor(named_prices, "local"), IsOk());
  EXPECT_THAT(PriceFor(named_prices, "ollama:qwen3:30b-a3b"),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace agentrt::providers
