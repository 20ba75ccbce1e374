// The Anthropic Messages API adapter against a loopback peer of the test's own making, through
// the real network: the exact request it sends (checked as canonical JSON: ours is canonical,
// sorted keys), strict tool use, how it replays a provider's own turn, how it reads a reply
// (tool uses, stop reasons, cache usage folded into input), how every failure is sorted into
// the model caller's kinds, where an API key may go, that it reads nothing from the environment,
// that the key never prints, and its price table.
//
// Replies and error bodies follow the shapes the Messages API reference documents for
// POST /v1/messages (message id "msg_...", content blocks thinking/text/tool_use, stop_reason,
// stop_sequence, usage with cache_creation and cache_read counts).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "providers/anthropic/anthropic_model.h"
#include "providers/api_key.h"
#include "providers/http_call.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/json_object.h"
#include "runtime/model.h"
#include "runtime/prices.h"
#include "tests/providers/every_printing.h"
#include "tests/providers/provider_server.h"
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
using Variables = std::map<std::string, std::string, std::less<>>;

constexpr char kKey[] = "sk-ant-test-key";
constexpr char kModel[] = "claude-opus-5";
constexpr char kToolUseId[] = "toolu_01A09q90qw90lq917835lq9";
constexpr char kSignature[] =
    "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds/4CRNDBsnF8UA1bc4ynpY0Rr6nhs";

// ---- Replies in the shapes the Messages API reference documents ----

// The usage object, each count as written (so a test can send a count that is not one).
struct UsageFields {
  std::string input = "0";
  std::string output = "0";
  std::string cache_creation = "0";
  std::string cache_read = "0";
  std::string five_minutes = "0";
  std::string one_hour = "0";
};

std::string UsageJson(const UsageFields& u) {
  return absl::StrCat(R"({"input_tokens":)", u.input, R"(,"cache_creation_input_tokens":)",
                      u.cache_creation, R"(,"cache_read_input_tokens":)", u.cache_read,
                      R"(,"cache_creation":{"ephemeral_5m_input_tokens":)", u.five_minutes,
                      R"(,"ephemeral_1h_input_tokens":)", u.one_hour, R"(},"output_tokens":)",
                      u.output, R"(,"service_tier":"standard"})");
}

std::string UsageJson(std::int64_t input, std::int64_t output) {
  return UsageJson({.input = absl::StrCat(input), .output = absl::StrCat(output)});
}

std::string ThinkingBlock(const std::string& thinking) {
  return absl::StrCat(R"({"type":"thinking","thinking":)", json::JsonString(thinking),
                      R"(,"signature":")", kSignature, R"("})");
}

std::string TextBlock(const std::string& text) {
  return absl::StrCat(R"({"type":"text","text":)", json::JsonString(text), "}");
}

std::string ToolUseBlock(const std::string& id, const std::string& name, const std::string& input) {
  return absl::StrCat(R"({"type":"tool_use","id":)", json::JsonString(id), R"(,"name":)",
                      json::JsonString(name), R"(,"input":)", input, "}");
}

// A whole message as POST /v1/messages returns it.
std::string MessageReply(const std::vector<std::string>& content, const std::string& stop_reason,
                         const std::string& usage) {
  std::string blocks;
  for (std::size_t i = 0; i < content.size(); ++i)
    absl::StrAppend(&blocks, i ? "," : "", content[i]);
  return absl::StrCat(
      R"({"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant",)",
      R"("model":"claude-opus-5","content":[)", blocks, R"(],"stop_reason":")", stop_reason,
      R"(","stop_sequence":null,"usage":)", usage, "}");
}

std::string HelloReply() {
  return MessageReply({TextBlock("Hello to you.")}, "end_turn", UsageJson(12, 5));
}

// An error body as the API sends it with a non-2xx status.
std::string ErrorBody(const std::string& type, const std::string& message) {
  return absl::StrCat(R"({"type":"error","error":{"type":")", type, R"(","message":")", message,
                      R"("}})");
}

// ---- Running the adapter ----

AnthropicConfig ConfigFor(const ProviderServer& server) {
  return AnthropicConfig{.model = kModel, .base_url = server.Url(), .api_key = ApiKey(kKey)};
}

std::unique_ptr<AnthropicModel> ModelFor(AnthropicConfig config, const ProviderWorld& world) {
  return test_support::Created(AnthropicModel::Create(std::move(config), world.world()));
}

Exchange GenerateWith(AnthropicConfig config, std::vector<CannedAnswer> answers,
                      const ModelRequest& request) {
  ProviderServer server(std::move(answers));
  ProviderWorld world;
  config.base_url = server.Url();
  std::unique_ptr<AnthropicModel> model = ModelFor(std::move(config), world);
  if (model == nullptr) return {absl::InternalError("no model"), {}};
  absl::StatusOr<ModelResponse> result = model->Generate(request, Soon());
  return {std::move(result), server.Requests()};
}

Exchange GenerateAgainst(CannedAnswer answer, const ModelRequest& request = HelloRequest()) {
  return GenerateWith(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey)},
                      {std::move(answer)}, request);
}

::testing::Matcher<Usage> UsageIs(std::int64_t input, std::int64_t output, std::int64_t cached) {
  return AllOf(Field(&Usage::input_tokens, input), Field(&Usage::output_tokens, output),
               Field(&Usage::cached_input_tokens, cached));
}

::testing::Matcher<ToolUse> ToolUseIs(const std::string& id, const std::string& name,
                                      const std::string& args) {
  return AllOf(Field(&ToolUse::id, id), Field(&ToolUse::name, name), Field(&ToolUse::args, args));
}

std::string Canonical(std::string_view json) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json);
  EXPECT_OK(canonical) << json;
  return canonical.ok() ? *canonical : std::string(json);
}

ModelErrorKind KindOf(const absl::Status& status) { return ClassifyModelError(status).kind; }

// ---- Construction ----

TEST(AnthropicTest, CreateRequiresAModelAndNamesItself) {
  ProviderWorld world;
  EXPECT_THAT(AnthropicModel::Create(AnthropicConfig{.api_key = ApiKey(kKey)}, world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, "anthropic: model is required"));

  std::unique_ptr<AnthropicModel> model =
      ModelFor(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey)}, world);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->Name(), "anthropic:claude-opus-5");
  EXPECT_EQ(AnthropicName(kModel), "anthropic:claude-opus-5");
  EXPECT_EQ(kAnthropicRawAssistantBlock, "anthropic.raw_assistant");
  // The defaults the model fills in: max_tokens 4096 and the default raw block type.
  EXPECT_THAT(absl::StrFormat("%s", *model),
              AllOf(HasSubstr("max_tokens: 4096"),
                    HasSubstr("raw_assistant_block: anthropic.raw_assistant")));

  std::unique_ptr<AnthropicModel> named = ModelFor(
      AnthropicConfig{.model = kModel, .name = "team-claude", .api_key = ApiKey(kKey)}, world);
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->Name(), "team-claude");

  EXPECT_THAT(AnthropicModel::Create(AnthropicConfig{.model = kModel}, world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("anthropic: no API key")));
}

TEST(AnthropicTest, CreateRefusesAWorldWithoutANetwork) {
  ProviderWorld provider_world;
  world::World world = provider_world.world();
  world.network = nullptr;
  EXPECT_THAT(
      AnthropicModel::Create(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey)}, world),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("anthropic: the world has no")));
}

TEST(AnthropicTest, CreateRefusesAnUnpricedModelUnlessNamed) {
  ProviderWorld world;
  EXPECT_THAT(
      AnthropicModel::Create(AnthropicConfig{.model = "claude-next-9", .api_key = ApiKey(kKey)},
                             world.world()),
      StatusIs(absl::StatusCode::kNotFound,
               "anthropic: anthropic:claude-next-9: no price for this model; set the config's "
               "name to price it yourself"));

  // A named model is priced by whoever named it.
  std::unique_ptr<AnthropicModel> named = ModelFor(
      AnthropicConfig{.model = "claude-next-9", .name = "claude-next", .api_key = ApiKey(kKey)},
      world);
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->Name(), "claude-next");
}

TEST(AnthropicTest, CreateRefusesAKeyOverPlainHttpToARemoteHost) {
  ProviderWorld world;
  struct Row {
    std::string base;
    std::string error;  // "" when accepted
  };
  const std::vector<Row> rows = {
      {"http://192.0.2.7", "anthropic: refusing to send an API key over plain http to 192.0.2.7"},
      {"http://LOCALHOST:8080", "over plain http to"},
      {"http://localhost.:8080", "over plain http to"},
      {"http://127.1:8080", "over plain http to"},
      {"http://user:pw@127.0.0.1:8080", "carries user information"},
      {"ftp://127.0.0.1", "is not an http or https URL"},
      {"api.anthropic.com", "is not an http or https URL"},
      {"http://127.0.0.1:8080", ""},
      {"http://localhost:8080", ""},
      {"http://[::1]:8080", ""},
      {"https://127.0.0.1:8443", ""},
      {"https://192.0.2.7", ""},
      {"", ""},  // the default, https://api.anthropic.com
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.base);
    absl::StatusOr<std::unique_ptr<AnthropicModel>> model = AnthropicModel::Create(
        AnthropicConfig{.model = kModel, .base_url = row.base, .api_key = ApiKey(kKey)},
        world.world());
    if (row.error.empty()) {
      EXPECT_OK(model);
    } else {
      EXPECT_THAT(model, StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(StartsWith("anthropic: "), HasSubstr(row.error),
                                        Not(HasSubstr(kKey)))));
    }
  }
}

TEST(AnthropicTest, ModelReadsNothingFromTheEnvironment) {
  constexpr char kEnvKey[] = "sk-ant-from-the-environment-77";
  constexpr char kEnvToken[] = "sk-ant-auth-token-from-the-environment";
  ProviderServer decoy({Reply(200, HelloReply())});
  ProviderServer server({Reply(200, HelloReply()), Reply(200, HelloReply())});
  ProviderWorld world(Variables{{"ANTHROPIC_API_KEY", kEnvKey},
                                {"ANTHROPIC_BASE_URL", decoy.Url()},
                                {"ANTHROPIC_AUTH_TOKEN", kEnvToken},
                                {"ANTHROPIC_CUSTOM_HEADERS", "X-Env-Header: from-the-environment"},
                                {"ANTHROPIC_PROFILE", "profile-from-env-4411"},
                                {"ANTHROPIC_MODEL", "claude-haiku-4-5"},
                                {"ANTHROPIC_VERSION", "2099-01-01"}});

  // No key in the config is no key, whatever the environment holds.
  EXPECT_THAT(AnthropicModel::Create(AnthropicConfig{.model = kModel, .base_url = server.Url()},
                                     world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("anthropic: no API key")));

  // The configured key goes to the configured base, as x-api-key and nowhere else.
  std::unique_ptr<AnthropicModel> configured = ModelFor(ConfigFor(server), world);
  ASSERT_NE(configured, nullptr);
  ASSERT_OK(configured->Generate(HelloRequest(), Soon()));

  // Reading the key from the environment is the caller's, through ReadKey.
  test_support::MemoryFilesystem files;
  absl::StatusOr<ApiKey> env_key = ReadKey(KeySource{.env = std::string(kAnthropicKeyVariable)},
                                           *world.world().environment, files);
  ASSERT_OK(env_key);
  AnthropicConfig from_env = ConfigFor(server);
  from_env.api_key = *env_key;
  std::unique_ptr<AnthropicModel> env_keyed = ModelFor(from_env, world);
  ASSERT_NE(env_keyed, nullptr);
  ASSERT_OK(env_keyed->Generate(HelloRequest(), Soon()));

  std::vector<ReceivedRequest> requests = server.Requests();
  ASSERT_THAT(requests, SizeIs(2));
  EXPECT_EQ(requests[0].Header("x-api-key"), kKey);
  EXPECT_EQ(requests[1].Header("x-api-key"), kEnvKey);
  for (const ReceivedRequest& request : requests) {
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.path, "/v1/messages");
    EXPECT_FALSE(request.HasHeader("Authorization"));
    EXPECT_FALSE(request.HasHeader("X-Env-Header"));
    EXPECT_EQ(request.Header("anthropic-version"), "2023-06-01");
    EXPECT_EQ(request.Header("Content-Type"), "application/json");
    for (const auto& [name, value] : request.headers) {
      EXPECT_THAT(value, AllOf(Not(HasSubstr(kEnvToken)), Not(HasSubstr("profile-from-env")),
                               Not(HasSubstr("2099-01-01"))))
          << name;
    }
    EXPECT_THAT(request.body, AllOf(HasSubstr(R"("model":"claude-opus-5")"),
                                    Not(HasSubstr(kEnvKey)), Not(HasSubstr(kKey))));
  }

  // A config without a base goes to the default endpoint, not to ANTHROPIC_BASE_URL (which
  // this loopback-only network cannot reach; the error names it).
  std::unique_ptr<AnthropicModel> default_base =
      ModelFor(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey)}, world);
  ASSERT_NE(default_base, nullptr);
  absl::StatusOr<ModelResponse> unreachable = default_base->Generate(HelloRequest(), Soon());
  EXPECT_THAT(unreachable,
              StatusIs(_, AllOf(StartsWith("anthropic: "), HasSubstr("api.anthropic.com"),
                                Not(HasSubstr(kKey)))));
  EXPECT_THAT(server.Requests(), SizeIs(2));
  EXPECT_EQ(decoy.connections(), 0);
  EXPECT_THAT(decoy.Requests(), IsEmpty());
}

// ---- The request ----

TEST(AnthropicTest, GenerateMapsToolUseAndUsage) {
  AnthropicConfig config{.model = kModel, .api_key = ApiKey(kKey)};
  config.strict = true;
  config.effort = "medium";
  config.max_tokens = 1000;
  ModelRequest request;
  request.system = "You are a weather assistant.";
  request.messages = {
      Message{.role = "user",
              .content = {ContentBlock{.type = "text", .text = "What's the weather in Paris?"}}}};
  request.tools = {ToolSpec{.name = "get_weather",
                            .description = "Get the forecast for a city.",
                            .input_schema = R"({"type": "object",
                              "properties": {"city": {"type": "string", "description": "City"},
                                             "days": {"type": "integer", "minimum": 1}},
                              "required": ["city"]})"}};
  const std::string body = MessageReply(
      {ThinkingBlock("The user wants the Paris forecast; call get_weather."),
       TextBlock("I'll look up the forecast."), ToolUseBlock(kToolUseId, "get_weather", "{}")},
      "tool_use", UsageJson(120, 30));

  Exchange exchange = GenerateWith(config, {Reply(200, body)}, request);

  ASSERT_OK(exchange.result);
  EXPECT_EQ(exchange.result->text, "I'll look up the forecast.");  // the thinking is not text
  EXPECT_THAT(exchange.result->tool_uses, ElementsAre(ToolUseIs(kToolUseId, "get_weather", "{}")));
  EXPECT_EQ(exchange.result->stop_reason, stop_reason::kToolUse);
  EXPECT_THAT(exchange.result->usage, UsageIs(120, 30, 0));
  EXPECT_EQ(exchange.result->raw, body);

  ASSERT_THAT(exchange.requests, SizeIs(1));
  const ReceivedRequest& sent = exchange.requests[0];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.path, "/v1/messages");
  EXPECT_EQ(sent.Header("x-api-key"), kKey);
  EXPECT_FALSE(sent.HasHeader("Authorization"));
  EXPECT_EQ(sent.Header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(sent.Header("Content-Type"), "application/json");
  EXPECT_EQ(sent.body, Canonical(sent.body));  // the body is sent canonical
  // Strict: the schema closed, "minimum" cut, "strict": true; effort, one tool use at a time,
  // the config's cap, the system prompt as one text block.
  EXPECT_EQ(sent.body, Canonical(R"({
    "model": "claude-opus-5",
    "max_tokens": 1000,
    "system": [{"type": "text", "text": "You are a weather assistant."}],
    "output_config": {"effort": "medium"},
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
    "tools": [{"name": "get_weather", "description": "Get the forecast for a city.",
               "strict": true,
               "input_schema": {"type": "object", "additionalProperties": false,
                                "properties": {"city": {"type": "string", "description": "City"},
                                               "days": {"type": "integer"}},
                                "required": ["city"]}}],
    "messages": [{"role": "user",
                  "content": [{"type": "text", "text": "What's the weather in Paris?"}]}]
  })"));
}

TEST(AnthropicTest, GenerateWithoutStrictSendsTheWholeSchema) {
  ModelRequest request = HelloRequest();
  request.tools = {
      ToolSpec{.name = "get_weather",
               .description = "Get the forecast.",
               .input_schema = R"({"type":"object","properties":{"city":{"type":"string",)"
                               R"("maxLength":85},"days":{"type":"integer","minimum":1,)"
                               R"("maximum":7}},"required":["city"]})"},
      // A schema without type and properties gets both, as the API requires.
      ToolSpec{.name = "now", .description = "The time.", .input_schema = ""},
  };

  Exchange exchange = GenerateAgainst(Reply(200, HelloReply()), request);

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  EXPECT_THAT(exchange.requests[0].body, Not(HasSubstr(R"("strict")")));
  EXPECT_EQ(exchange.requests[0].body, Canonical(R"({
    "model": "claude-opus-5",
    "max_tokens": 4096,
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
    "tools": [{"name": "get_weather", "description": "Get the forecast.",
               "input_schema": {"type": "object",
                                "properties": {"city": {"type": "string", "maxLength": 85},
                                               "days": {"type": "integer", "minimum": 1,
                                                        "maximum": 7}},
                                "required": ["city"]}},
              {"name": "now", "description": "The time.",
               "input_schema": {"type": "object", "properties": {}}}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello."}]}]
  })"));
}

TEST(AnthropicTest, StrictToolsAreSentExactly) {
  // Four schemas of the kind agents offer, cut to the strict subset; the tools array is compared
  // byte for byte with its canonical form.
  ModelRequest request = HelloRequest();
  request.tools = {
      ToolSpec{.name = "ReadFile",
               .description = "Read a file of the workspace.",
               .input_schema = R"({"type":"object","properties":{
                 "path":{"type":"string","minLength":1,"description":"Relative path."},
                 "offset":{"type":"integer","minimum":0},
                 "limit":{"type":"integer","minimum":1,"maximum":2000}},
                 "required":["path"]})"},
      ToolSpec{.name = "Search",
               .description = "Search the notes.",
               .input_schema = R"({"type":"object","properties":{
                 "query":{"type":"string","maxLength":500},
                 "filters":{"type":"object","properties":{
                   "lang":{"type":"string","enum":["en","fr"]},
                   "after":{"type":"string","format":"date"}}},
                 "tags":{"type":"array","items":{"type":"string","pattern":"^[a-z-]+$"},
                         "minItems":1,"maxItems":10,"uniqueItems":true}},
                 "required":["query"]})"},
      ToolSpec{.name = "ReadConversation", .description = "d", .input_schema = "{}"},
      ToolSpec{.name = "SendEmail",
               .description = "Send an email.",
               .input_schema = R"({"type":"object","description":"An email.",
                 "$defs":{"address":{"type":"object","properties":{
                   "email":{"type":"string","format":"email","pattern":".+@.+"},
                   "name":{"type":"string"}},"required":["email"]}},
                 "properties":{
                   "to":{"type":"array","items":{"$ref":"#/$defs/address"},"minItems":1},
                   "cc":{"type":["array","null"],"items":{"$ref":"#/$defs/address"},
                         "maxItems":5},
                   "body":{"type":"string"}},
                 "required":["to","body"]})"},
  };
  AnthropicConfig config{.model = kModel, .api_key = ApiKey(kKey), .strict = true};

  Exchange exchange = GenerateWith(config, {Reply(200, HelloReply())}, request);

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  const std::string tools = Canonical(R"([
    {"name": "ReadFile", "description": "Read a file of the workspace.", "strict": true,
     "input_schema": {"additionalProperties": false, "type": "object", "required": ["path"],
                      "properties": {"path": {"type": "string", "description": "Relative path."},
                                     "offset": {"type": "integer"},
                                     "limit": {"type": "integer"}}}},
    {"name": "Search", "description": "Search the notes.", "strict": true,
     "input_schema": {"additionalProperties": false, "type": "object", "required": ["query"],
                      "properties": {"query": {"type": "string"},
                                     "filters": {"type": "object", "additionalProperties": false,
                                                 "properties": {
                                                   "lang": {"type": "string",
                                                            "enum": ["en", "fr"]},
                                                   "after": {"type": "string",
                                                             "format": "date"}}},
                                     "tags": {"type": "array", "items": {"type": "string"},
                                              "minItems": 1}}}},
    {"name": "ReadConversation", "description": "d", "strict": true,
     "input_schema": {"additionalProperties": false, "properties": {}, "type": "object"}},
    {"name": "SendEmail", "description": "Send an email.", "strict": true,
     "input_schema": {"$defs": {"address": {"type": "object", "additionalProperties": false,
                                            "properties": {"email": {"type": "string",
                                                                     "format": "email"},
                                                           "name": {"type": "string"}},
                                            "required": ["email"]}},
                      "additionalProperties": false, "description": "An email.",
                      "type": "object", "required": ["to", "body"],
                      "properties": {"to": {"type": "array",
                                            "items": {"$ref": "#/$defs/address"},
                                            "minItems": 1},
                                     "cc": {"type": ["array", "null"],
                                            "items": {"$ref": "#/$defs/address"}},
                                     "body": {"type": "string"}}}}
  ])");
  EXPECT_THAT(exchange.requests[0].body, HasSubstr(absl::StrCat(R"("tools":)", tools)));
}

TEST(AnthropicTest, StrictCarriesTopLevelKeywordsSoARefResolves) {
  ModelRequest request = HelloRequest();
  request.tools = {ToolSpec{
      .name = "pick",
      .description = "Pick one.",
      .input_schema = R"({"type":"object","description":"top","$defs":{"x":{"type":"string",)"
                      R"("maxLength":3}},"properties":{"a":{"$ref":"#/$defs/x"}}})"}};
  AnthropicConfig config{.model = kModel, .api_key = ApiKey(kKey), .strict = true};

  Exchange exchange = GenerateWith(config, {Reply(200, HelloReply())}, request);

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  EXPECT_THAT(exchange.requests[0].body,
              HasSubstr(R"("input_schema":{"$defs":{"x":{"type":"string"}},)"
                        R"("additionalProperties":false,"description":"top",)"
                        R"("properties":{"a":{"$ref":"#/$defs/x"}},"type":"object"})"));
}

TEST(AnthropicTest, StrictRefusesWhatItCannotExpressBeforeSending) {
  struct Row {
    std::string name;
    std::string schema;
    std::string refusal;
  };
  const std::vector<Row> rows = {
      {"oneOf", R"({"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}})",
       "oneOf at #/properties/a"},
      {"schema-valued additionalProperties",
       R"({"type":"object","properties":{},"additionalProperties":{"type":"string"}})",
       "schema-valued additionalProperties at #"},
      {"self-recursive $ref",
       R"({"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},"$defs":{"node":)"
       R"({"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}})",
       "$ref cycle through #/$defs/node"},
      {"$ref to the root", R"({"type":"object","properties":{"self":{"$ref":"#"}}})",
       "$ref to the root at #/properties/self"},
      {"mutual recursion",
       R"({"type":"object","properties":{"s":{"$ref":"#/$defs/a"}},"$defs":{)"
       R"("a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},)"
       R"("b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}}})",
       "$ref cycle through #/$defs/"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    ModelRequest request = HelloRequest();
    request.tools = {ToolSpec{.name = "shape", .description = "d", .input_schema = row.schema}};

    Exchange strict =
        GenerateWith(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey), .strict = true},
                     {Reply(200, HelloReply())}, request);
    EXPECT_THAT(strict.result,
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(StartsWith("anthropic: tool \"shape\": strict mode cannot express "
                                          "its schema: "),
                               HasSubstr(row.refusal))));
    EXPECT_EQ(KindOf(strict.result.status()), ModelErrorKind::kPermanent);
    EXPECT_THAT(strict.requests, IsEmpty());

    // Without strict the same schema goes as it is.
    Exchange loose = GenerateAgainst(Reply(200, HelloReply()), request);
    EXPECT_OK(loose.result);
    ASSERT_THAT(loose.requests, SizeIs(1));
    EXPECT_THAT(loose.requests[0].body,
                HasSubstr(absl::StrCat(R"("input_schema":)", Canonical(row.schema))));
  }
}

TEST(AnthropicTest, RawAssistantTurnReplaysThinkingBlocks) {
  // The reply an earlier turn got, stored whole; its signed thinking must go back as it came.
  const std::string earlier =
      MessageReply({ThinkingBlock("Paris needs a lookup."), TextBlock("Checking the forecast."),
                    ToolUseBlock(kToolUseId, "get_weather", R"({"city":"Paris"})")},
                   "tool_use", UsageJson(120, 30));
  ModelRequest request;
  request.messages = {
      Message{.role = "user",
              .content = {ContentBlock{.type = "text", .text = "Weather in Paris?"}}},
      Message{.role = "assistant",
              .content = {ContentBlock{.type = std::string(kAnthropicRawAssistantBlock),
                                       .text = earlier}}},
      Message{.role = "user",
              .content = {ContentBlock{
                  .type = "tool_result", .tool_use_id = kToolUseId, .content = "18°C, sunny"}}},
  };

  Exchange exchange = GenerateAgainst(Reply(200, HelloReply()), request);

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  EXPECT_EQ(exchange.requests[0].body, Canonical(absl::StrCat(R"({
    "model": "claude-opus-5",
    "max_tokens": 4096,
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
      {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Paris needs a lookup.", "signature": ")",
                                                              kSignature, R"("},
        {"type": "text", "text": "Checking the forecast."},
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
         "input": {"city": "Paris"}}]},
      {"role": "user", "content": [{"type": "tool_result",
                                    "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                                    "content": "18°C, sunny", "is_error": false}]}
    ]
  })")));
}

TEST(AnthropicTest, RawAssistantTurnThatDoesNotParseIsRefusedBeforeSending) {
  for (const std::string& turn : {std::string(R"({"content":[{"type":"text")"),
                                  std::string(R"({"id":"msg_01","content":"hi"})")}) {
    SCOPED_TRACE(turn);
    ModelRequest request = HelloRequest();
    request.messages.push_back(Message{
        .role = "assistant",
        .content = {ContentBlock{.type = std::string(kAnthropicRawAssistantBlock), .text = turn}}});
    Exchange exchange = GenerateAgainst(Reply(200, HelloReply()), request);
    EXPECT_THAT(exchange.result, StatusIs(absl::StatusCode::kInvalidArgument,
                                          StartsWith("anthropic: raw assistant turn: ")));
    EXPECT_THAT(exchange.requests, IsEmpty());
  }
}

TEST(AnthropicTest, RawBlockTypeIsTheConfiguredOne) {
  const std::string earlier =
      MessageReply({TextBlock("Earlier answer.")}, "end_turn", UsageJson(10, 3));
  auto raw_turn = [&](const std::string& type) {
    ModelRequest request = HelloRequest();
    request.messages.push_back(
        Message{.role = "assistant", .content = {ContentBlock{.type = type, .text = earlier}}});
    request.messages.push_back(
        Message{.role = "user", .content = {ContentBlock{.type = "text", .text = "And?"}}});
    return request;
  };
  AnthropicConfig other{.model = kModel, .api_key = ApiKey(kKey)};
  other.raw_assistant_block = "mine.raw_turn";

  // Another consumer's raw block type is an unknown block here, refused before sending.
  Exchange foreign =
      GenerateWith(other, {Reply(200, HelloReply())}, raw_turn("anthropic.raw_assistant"));
  EXPECT_THAT(foreign.result,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "anthropic: unsupported content block type \"anthropic.raw_assistant\""));
  EXPECT_EQ(KindOf(foreign.result.status()), ModelErrorKind::kPermanent);
  EXPECT_THAT(foreign.requests, IsEmpty());

  // The configured one is replayed.
  Exchange own = GenerateWith(other, {Reply(200, HelloReply())}, raw_turn("mine.raw_turn"));
  ASSERT_OK(own.result);
  ASSERT_THAT(own.requests, SizeIs(1));
  EXPECT_THAT(own.requests[0].body,
              HasSubstr(R"({"content":[{"text":"Earlier answer.","type":"text"}],)"
                        R"("role":"assistant"})"));

  // A raw block beside another block is no whole turn.
  ModelRequest mixed = raw_turn("mine.raw_turn");
  mixed.messages[1].content.push_back(ContentBlock{.type = "text", .text = "extra"});
  Exchange refused = GenerateWith(other, {Reply(200, HelloReply())}, mixed);
  EXPECT_THAT(refused.result,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "anthropic: unsupported content block type \"mine.raw_turn\""));
  EXPECT_THAT(refused.requests, IsEmpty());
}

TEST(AnthropicTest, SynthesizedTurnWithoutRaw) {
  ModelRequest request;
  request.messages = {
      Message{.role = "user", .content = {ContentBlock{.type = "text", .text = "List files."}}},
      Message{.role = "assistant",
              .content = {ContentBlock{.type = "text", .text = " \n\t"},
                          ContentBlock{.type = "tool_use",
                                       .tool_use_id = kToolUseId,
                                       .name = "list_files",
                                       .input = ""}}},
      Message{.role = "tool",
              .content = {ContentBlock{.type = "tool_result",
                                       .tool_use_id = kToolUseId,
                                       .content = "permission denied",
                                       .is_error = true}}},
      Message{.role = "assistant", .content = {ContentBlock{.type = "text", .text = "   "}}},
      Message{.role = "user", .content = {}},
  };

  Exchange exchange = GenerateAgainst(Reply(200, HelloReply()), request);

  ASSERT_OK(exchange.result);
  ASSERT_THAT(exchange.requests, SizeIs(1));
  // The blank text goes, the empty input is {}, the failed result says so, a message left with
  // nothing says "(no output)", and every role but assistant is user.
  EXPECT_EQ(exchange.requests[0].body, Canonical(R"json({
    "model": "claude-opus-5",
    "max_tokens": 4096,
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "List files."}]},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                                         "name": "list_files", "input": {}}]},
      {"role": "user", "content": [{"type": "tool_result",
                                    "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                                    "content": "permission denied", "is_error": true}]},
      {"role": "assistant", "content": [{"type": "text", "text": "(no output)"
}]
},
      {"role": "user", "content": [{"type": "text", "text": "(no output)"}]}
    ]
})json"));
}

TEST(AnthropicTest, ToolUseInputMustBeJson) {
  ModelRequest request = HelloRequest();
  request.messages.push_back(
      Message{.role = "assistant",
              .content = {ContentBlock{
                  .type = "tool_use", .tool_use_id = kToolUseId, .name = "add", .input = "n=1"}}});
  Exchange exchange = GenerateAgainst(Reply(200, HelloReply()), request);
  EXPECT_THAT(exchange.result, StatusIs(absl::StatusCode::kInvalidArgument,
                                        "anthropic: tool use \"add\": input is not JSON"));
  EXPECT_THAT(exchange.requests, IsEmpty());
}

TEST(AnthropicTest, ReplayedToolInputKeepsItsNumbers) {
  // Two integers a double cannot hold: one in a plain tool_use block, one in a raw turn.
  const std::string earlier =
      MessageReply({ThinkingBlock("Look up the second order."),
                    ToolUseBlock("toolu_01B", "get_order", R"({"order_id":9007199254740995})")},
                   "tool_use", UsageJson(50, 20));
  ModelRequest request = HelloRequest();
  request.messages.push_back(
      Message{.role = "assistant",
              .content = {ContentBlock{.type = "tool_use",
                                       .tool_use_id = "toolu_01A",
                                       .name = "get_order",
                                       .input = R"({ "order_id": 9007199254740993 })"}}});
  request.messages.push_back(
      Message{.role = "user",
              .content = {ContentBlock{
                  .type = "tool_result", .tool_use_id = "toolu_01A", .content = "ok"}}});
  request.messages.push_back(
      Message{.role = "assistant",
              .content = {ContentBlock{.type = std::string(kAnthropicRawAssistantBlock),
                                       .text = earlier}}});
  request.messages.push_back(
      Message{.role = "user",
              .content = {ContentBlock{
                  .type = "tool_result", .tool_use_id = "toolu_01B", .content = "ok"}}});
  // The reply's own tool input keeps its digits too.
  const std::string reply =
      MessageReply({ToolUseBlock("toolu_01C", "get_order", R"({"order_id":9007199254740993})")},
                   "tool_use", UsageJson(60, 20));

  Exchange exchange = GenerateAgainst(Reply(200, reply), request);

  ASSERT_OK(exchange.result);
  EXPECT_THAT(exchange.result->tool_uses,
              ElementsAre(ToolUseIs("toolu_01C", "get_order", R"({"order_id":9007199254740993})")));
  ASSERT_THAT(exchange.requests, SizeIs(1));
  const std::string& body = exchange.requests[0].body;
  EXPECT_THAT(body, HasSubstr(R"("input":{"order_id":9007199254740993})"));
  EXPECT_THAT(body, HasSubstr(R"("input":{"order_id":9007199254740995})"));
}

// ---- The reply ----

TEST(AnthropicTest, RefusalAndMaxTokensKeepUsageDropToolUse) {
  struct Row {
    std::string stop_reason;
    std::int64_t output;
    std::size_t tool_uses;
  };
  const std::vector<Row> rows = {
      {"refusal", 9, 0},
      {"max_tokens", 4096, 0},  // a tool use cut at the cap is never run
      {"tool_use", 30, 1},
      {"pause_turn", 30, 1},  // any other reason passes through, its tool uses kept
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.stop_reason);
    Exchange exchange = GenerateAgainst(
        Reply(200, MessageReply({TextBlock("Partial"),
                                 ToolUseBlock(kToolUseId, "get_weather", R"({"city":"Paris"})")},
                                row.stop_reason, UsageJson(50, row.output))));

    ASSERT_OK(exchange.result);
    EXPECT_EQ(exchange.result->stop_reason, row.stop_reason);
    EXPECT_THAT(exchange.result->tool_uses, SizeIs(row.tool_uses));
    EXPECT_EQ(exchange.result->text, "Partial");
    EXPECT_THAT(exchange.result->usage, UsageIs(50, row.output, 0));  // always charged
  }
}

TEST(AnthropicTest, FoldsCacheUsage) {
  Exchange exchange =
      GenerateAgainst(Reply(200, MessageReply({TextBlock("From the cache.")}, "end_turn",
                                              UsageJson({.input = "100",
                                                         .output = "10",
                                                         .cache_creation = "401",
                                                         .cache_read = "2000",
                                                         .five_minutes = "401"}))));

  ASSERT_OK(exchange.result);
  // 100 + 2000 reads + ceil(1.25 x 401 five-minute writes) = 2602, of which 2000 cached.
  EXPECT_THAT(exchange.result->usage, UsageIs(2602, 10, 2000));

  absl::StatusOr<Price> price = PriceFor(AnthropicPrices(), "anthropic:claude-opus-5");
  ASSERT_OK(price);
  EXPECT_EQ(price->cached_input_per_mtok * 10, price->input_per_mtok);
  // 602 x $5 + 2000 x $0.50 + 10 x $25 per million tokens, in micros.
  EXPECT_EQ(CostMicros(exchange.result->usage, *price), 3010 + 1000 + 250);
}

TEST(AnthropicTest, FoldsOneHourCacheWritesAtTwice) {
  struct Row {
    UsageFields usage;
    std::int64_t input;
  };
  const std::vector<Row> rows = {
      // 100 + ceil(1.25 x 401) + 2 x 100.
      {{.input = "100",
        .output = "10",
        .cache_creation = "501",
        .five_minutes = "401",
        .one_hour = "100"},
       802},
      // Only one-hour writes: 100 + 2 x 100.
      {{.input = "100", .output = "10", .cache_creation = "100", .one_hour = "100"}, 300},
      // A single five-minute write rounds up: ceil(1.25) = 2.
      {{.input = "100", .output = "10", .cache_creation = "1", .five_minutes = "1"}, 102},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(UsageJson(row.usage));
    Exchange exchange = GenerateAgainst(
        Reply(200, MessageReply({TextBlock("ok")}, "end_turn", UsageJson(row.usage))));
    ASSERT_OK(exchange.result);
    EXPECT_THAT(exchange.result->usage, UsageIs(row.input, 10, 0));
  }
}

TEST(AnthropicTest, UnusableUsageIsChargedNothing) {
  struct Row {
    UsageFields usage;
    std::string names;
  };
  const std::vector<Row> rows = {
      {{.input = "-1", .output = "5"}, "usage.input_tokens"},
      {{.input = "10", .output = "1.5"}, "usage.output_tokens"},
      {{.input = "10", .output = "1e3"}, "usage.output_tokens"},
      {{.input = "10", .output = "5", .cache_read = "\"2000\""}, "usage.cache_read_input_tokens"},
      {{.input = "true", .output = "5"}, "usage.input_tokens"},
      {{.input = "10", .output = "5", .cache_creation = "9223372036854775808"},
       "usage.cache_creation_input_tokens"},
      {{.input = "10", .output = "5", .cache_creation = "5", .one_hour = "-5"},
       "usage.cache_creation.ephemeral_1h_input_tokens"},
      // Counts that each fit, but not once folded.
      {{.input = "10", .output = "5", .cache_creation = "9223372036854775807"}, "overflow"},
      {{.input = "9223372036854775807", .output = "5", .cache_read = "1"}, "overflow"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(UsageJson(row.usage));
    Exchange exchange = GenerateAgainst(
        Reply(200, MessageReply({TextBlock("hi")}, "end_turn", UsageJson(row.usage))));
    ModelErrorInfo info = ClassifyModelError(exchange.result.status());
    EXPECT_THAT(exchange.result,
                StatusIs(_, AllOf(StartsWith("anthropic: "), HasSubstr(row.names))));
    EXPECT_EQ(info.kind, ModelErrorKind::kUnusableUsage);
    EXPECT_THAT(info.usage.value_or(Usage{}), UsageIs(0, 0, 0));
  }

  // Honest counts pass.
  Exchange honest = GenerateAgainst(
      Reply(200, MessageReply({TextBlock("hi")}, "end_turn",
                              UsageJson({.input = "10", .output = "5", .cache_read = "7"}))));
  EXPECT_THAT(honest.result, IsOkAndHolds(Field(&ModelResponse::usage, UsageIs(17, 5, 7))));
}

TEST(AnthropicTest, UndecodableReplyIsAServedError) {
  struct Row {
    std::string name;
    std::string body;
    std::string content_type;
    ::testing::Matcher<Usage> usage;
  };
  const std::vector<Row> rows = {
      {"an HTML page", "<html><body>502 Bad Gateway</body></html>", "text/html", UsageIs(0, 0, 0)},
      {"truncated JSON",
       R"({"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","content":[{"type":"text")",
       "application/json", UsageIs(0, 0, 0)},
      // What it reported is charged though the rest cannot be used.
      {"content not an array",
       R"({"id":"msg_01","type":"message","content":"hi","usage":)" + UsageJson(40, 7) + "}",
       "application/json", UsageIs(40, 7, 0)},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    Exchange exchange = GenerateAgainst(Reply(200, row.body, {}, row.content_type));
    ModelErrorInfo info = ClassifyModelError(exchange.result.status());
    EXPECT_THAT(exchange.result, StatusIs(_, StartsWith("anthropic: decode: ")));
    EXPECT_EQ(info.kind, ModelErrorKind::kServed);
    EXPECT_THAT(info.usage, Optional(row.usage));
  }
}

TEST(AnthropicTest, AToolUseWhoseInputIsNotAnObjectIsAServedError) {
  // Tool arguments are an object (the other adapters hold their replies to the same): an array,
  // a number or a string is a reply the provider served but that cannot be run. Found by
  // provider_reply_fuzzer.
  for (const char* input : {R"(["Oslo"])", "5", R"("x")"}) {
    SCOPED_TRACE(input);
    Exchange exchange = GenerateAgainst(
        Reply(200, absl::StrCat(R"({"id":"msg_01","type":"message","content":[{"type":"tool_use",)",
                                R"("id":"toolu_1","name":"get_weather","input":)", input,
                                R"(}],"stop_reason":"tool_use","usage":)", UsageJson(40, 7), "}")));
    ModelErrorInfo info = ClassifyModelError(exchange.result.status());
    EXPECT_THAT(exchange.result,
                StatusIs(_, HasSubstr("tool use \"get_weather\": input is not a JSON object")));
    EXPECT_EQ(info.kind, ModelErrorKind::kServed);
    EXPECT_THAT(info.usage, Optional(UsageIs(40, 7, 0)));
  }
}

TEST(AnthropicTest, TheDeadlineIsTheEarlierOfTheCallersAndTheTimeout) {
  test_support::DeadlineNetwork network;
  test_support::ManualWorld manual(network);
  AnthropicConfig config{
      .model = kModel, .base_url = "http://127.0.0.1:9", .api_key = ApiKey(kKey)};
  config.timeout = absl::Seconds(5);
  std::unique_ptr<AnthropicModel> model =
      test_support::Created(AnthropicModel::Create(config, manual.world));
  ASSERT_NE(model, nullptr);
  const absl::Time now = manual.clock.Now();
  absl::StatusOr<ModelResponse> late = model->Generate(HelloRequest(), absl::InfiniteFuture());
  EXPECT_EQ(ClassifyModelError(late.status()).kind, ModelErrorKind::kAmbiguous);
  EXPECT_THAT(model->Generate(HelloRequest(), now + absl::Seconds(1)), Not(IsOk()));
  EXPECT_THAT(network.deadlines, ElementsAre(now + absl::Seconds(5), now + absl::Seconds(1)));
}

// ---- Failures sorted into the model caller's kinds ----

TEST(AnthropicTest, ErrorsAreClassifiedAndNotRetried) {
  ProviderServer server({
      Reply(429, ErrorBody("rate_limit_error", "Number of requests has exceeded your rate limit")),
      Reply(529, ErrorBody("overloaded_error", "Overloaded"), {{"Retry-After", "2"}}),
      Reply(503, ErrorBody("api_error", "Service unavailable")),
      Reply(409, ErrorBody("api_error", "Conflict")),
      Reply(400, ErrorBody("invalid_request_error", "max_tokens: Field required")),
      Reply(401, ErrorBody("authentication_error", "invalid x-api-key")),
  });
  ProviderWorld world;
  std::unique_ptr<AnthropicModel> model = ModelFor(ConfigFor(server), world);
  ASSERT_NE(model, nullptr);
  struct Row {
    int status;
    ModelErrorKind kind;
    absl::Duration retry_after;
  };
  const std::vector<Row> rows = {
      {429, ModelErrorKind::kTransient, absl::ZeroDuration()},
      {529, ModelErrorKind::kTransient, absl::Seconds(2)},
      {503, ModelErrorKind::kTransient, absl::ZeroDuration()},
      {409, ModelErrorKind::kTransient, absl::ZeroDuration()},
      {400, ModelErrorKind::kPermanent, absl::ZeroDuration()},
      {401, ModelErrorKind::kPermanent, absl::ZeroDuration()},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].status);
    absl::StatusOr<ModelResponse> result = model->Generate(HelloRequest(), Soon());
    ModelErrorInfo info = ClassifyModelError(result.status());
    EXPECT_THAT(result, StatusIs(_, StartsWith(absl::StrCat("anthropic: ", rows[i].status, ": "))));
    EXPECT_EQ(info.kind, rows[i].kind);
    EXPECT_EQ(info.retry_after, rows[i].retry_after);
    // Exactly one request per Generate: the adapter never retries on its own.
    EXPECT_THAT(server.Requests(), SizeIs(i + 1));
  }
}

TEST(AnthropicTest, ErrorsCarryNeitherTheRequestNorTheKey) {
  ModelRequest request = HelloRequest();
  request.system = "Secret system prompt 41c7.";
  const std::string unauthorized = ErrorBody("authentication_error", "invalid x-api-key");
  Exchange denied = GenerateAgainst(Reply(401, unauthorized), request);
  EXPECT_THAT(denied.result, StatusIs(absl::StatusCode::kUnauthenticated,
                                      absl::StrCat("anthropic: 401: ", unauthorized)));
  EXPECT_EQ(KindOf(denied.result.status()), ModelErrorKind::kPermanent);

  const std::string html = "<html><body><h1>529 Overloaded</h1></body></html>";
  Exchange overloaded =
      GenerateAgainst(Reply(529, html, {{"Retry-After", "2"}}, "text/html"), request);
  ModelErrorInfo info = ClassifyModelError(overloaded.result.status());
  EXPECT_THAT(overloaded.result, StatusIs(_, absl::StrCat("anthropic: 529: ", html)));
  EXPECT_EQ(info.kind, ModelErrorKind::kTransient);
  EXPECT_EQ(info.retry_after, absl::Seconds(2));

  for (const absl::Status& status : {denied.result.status(), overloaded.result.status()}) {
    std::string shown = status.ToString();
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kKey)), Not(HasSubstr("Secret system prompt")),
                             Not(HasSubstr("Hello."))));
  }
}

TEST(AnthropicTest, MaxTokensTooLargeWithoutStreamingIsPermanentAndNeverSent) {
  ProviderWorld world;
  EXPECT_THAT(
      AnthropicModel::Create(
          AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey), .max_tokens = 32000},
          world.world()),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("anthropic: max_tokens 32000 is too large for a non-streaming request "
                         "to claude-opus-5")));
  EXPECT_THAT(AnthropicModel::Create(
                  AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey), .max_tokens = 21334},
                  world.world()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_tokens 21334")));
  EXPECT_OK(AnthropicModel::Create(
      AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey), .max_tokens = 21333},
      world.world()));

  // Per request: the request's cap overrides the config's, and is checked before sending.
  ModelRequest too_large = HelloRequest();
  too_large.max_output_tokens = 32000;
  Exchange refused = GenerateAgainst(Reply(200, HelloReply()), too_large);
  EXPECT_THAT(refused.result, StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("anthropic: max_tokens 32000 is too large")));
  EXPECT_EQ(KindOf(refused.result.status()), ModelErrorKind::kPermanent);
  EXPECT_THAT(refused.requests, IsEmpty());

  ModelRequest small = HelloRequest();
  small.max_output_tokens = 300;
  Exchange sent =
      GenerateWith(AnthropicConfig{.model = kModel, .api_key = ApiKey(kKey), .max_tokens = 21333},
                   {Reply(200, HelloReply())}, small);
  ASSERT_OK(sent.result);
  ASSERT_THAT(sent.requests, SizeIs(1));
  EXPECT_THAT(sent.requests[0].body, HasSubstr(R"("max_tokens":300,)"));
}

TEST(AnthropicTest, ResponseBodyIsBounded) {
  std::string huge =
      MessageReply({TextBlock(std::string(kMaxBodyBytes, 'x'))}, "end_turn", UsageJson(10, 5));
  Exchange exchange = GenerateAgainst(Reply(200, huge));
  EXPECT_THAT(exchange.result, StatusIs(absl::StatusCode::kResourceExhausted,
                                        AllOf(StartsWith("anthropic: "), HasSubstr("16777216"))));
  EXPECT_EQ(KindOf(exchange.result.status()), ModelErrorKind::kPermanent);
}

TEST(AnthropicTest, BodyCutShortIsAmbiguous) {
  Exchange exchange = GenerateAgainst(
      CutAfterHead(R"({"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","content":[)", 4096));
  EXPECT_THAT(exchange.result, StatusIs(_, StartsWith("anthropic: ")));
  EXPECT_EQ(KindOf(exchange.result.status()), ModelErrorKind::kAmbiguous);
}

TEST(AnthropicTest, RedirectIsRefusedAndTheKeyStaysHome) {
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    SCOPED_TRACE(host);
    ProviderServer target({Reply(200, HelloReply())});
    std::string port = target.Url().substr(target.Url().rfind(':') + 1);
    std::string location =
        absl::StrCat("http://", host, ":", port, "/v1/messages?key=", kKey, "#frag");
    Exchange exchange = GenerateAgainst(Reply(307, "", {{"Location", location}}));

    EXPECT_THAT(exchange.result,
                StatusIs(_, absl::StrCat("anthropic: 307: redirects are not followed; the "
                                         "response pointed to host \"",
                                         host, "\"")));
    EXPECT_EQ(KindOf(exchange.result.status()), ModelErrorKind::kPermanent);
    EXPECT_THAT(exchange.requests, SizeIs(1));
    EXPECT_EQ(target.connections(), 0);
  }
}

// ---- Prices and printing ----

TEST(AnthropicTest, PricesKeyedByTheDefaultName) {
  const std::vector<std::string> models = {
      "claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5",    "claude-mythos-5",
      "claude-opus-5-5",  "claude-opus-5",     "claude-opus-4-8",   "claude-opus-4-7",
      "claude-opus-4-6",  "claude-sonnet-5",   "claude-sonnet-4-6", "claude-haiku-4-5",
  };
  PriceTable prices = AnthropicPrices();
  EXPECT_THAT(prices, SizeIs(12));
  ProviderWorld world;
  for (const std::string& model : models) {
    SCOPED_TRACE(model);
    absl::StatusOr<Price> price = PriceFor(prices, "anthropic:" + model);
    ASSERT_OK(price);
    EXPECT_GT(price->input_per_mtok, 0);
    EXPECT_GT(price->output_per_mtok, 0);
    EXPECT_GT(price->cached_input_per_mtok, 0);
    EXPECT_LT(price->cached_input_per_mtok, price->input_per_mtok);
    EXPECT_THAT(PriceFor(prices, model), StatusIs(absl::StatusCode::kNotFound));
    // The name a model created without one reports is the one priced.
    std::unique_ptr<AnthropicModel> created =
        ModelFor(AnthropicConfig{.model = model, .api_key = ApiKey(kKey)}, world);
    ASSERT_NE(created, nullptr);
    EXPECT_OK(PriceFor(prices, created->Name()));
  }
  EXPECT_THAT(PriceFor(prices, "anthropic:claude-opus-5"),
              IsOkAndHolds(AllOf(Field(&Price::input_per_mtok, 5'000'000),
                                 Field(&Price::output_per_mtok, 25'000'000),
                                 Field(&Price::cached_input_per_mtok, 500'000))));
}

TEST(AnthropicTest, ConfigAndModelPrintWithoutTheKey) {
  ProviderWorld world;
  AnthropicConfig config{.model = kModel,
                         .base_url = "http://127.0.0.1:9",
                         .api_key = ApiKey(kKey),
                         .effort = "high",
                         .strict = true,
                         .timeout = absl::Minutes(2)};
  std::unique_ptr<AnthropicModel> model = ModelFor(config, world);
  ASSERT_NE(model, nullptr);

  for (const std::string& shown : test_support::EveryPrinting(config, *model)) {
    SCOPED_TRACE(shown);
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kKey)), Not(HasSubstr("sk-ant")),
                             HasSubstr("api_key: [redacted]"), HasSubstr("claude-opus-5")));
  }
  EXPECT_EQ(absl::StrFormat("%s", config),
            "AnthropicConfig{model: claude-opus-5, name: , base_url: http://127.0.0.1:9, "
            "api_key: [redacted], effort: high, max_tokens: 0, strict: true, "
            "raw_assistant_block: , timeout: 2m}");
  EXPECT_EQ(absl::StrFormat("%s", *model),
            "AnthropicModel{AnthropicConfig{model: claude-opus-5, name: , "
            "base_url: http://127.0.0.1:9, api_key: [redacted], effort: high, max_tokens: 4096, "
            "strict: true, raw_assistant_block: anthropic.raw_assistant, timeout: 2m}}");

  AnthropicConfig keyless{.model = kModel};
  EXPECT_THAT(absl::StrFormat("%s", keyless), HasSubstr("api_key: \"\""));

  // Held in other values, the key still never shows.
  std::vector<AnthropicConfig> list = {config, config};
  std::pair<std::string, AnthropicConfig> named = {"primary", config};
  for (const std::string& shown : {::testing::PrintToString(list), ::testing::PrintToString(named),
                                   ::testing::PrintToString(config.api_key)}) {
    SCOPED_TRACE(shown);
    EXPECT_THAT(shown, AllOf(Not(HasSubstr(kKey)), HasSubstr("[redacted]")));
  }
}

}  // namespace
}  // namespace agentrt::providers
