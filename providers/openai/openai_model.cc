#include "providers/openai/openai_model.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "providers/http_call.h"
#include "providers/usage.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/clock.h"

namespace agentrt::providers {
namespace {

constexpr std::string_view kProvider = "openai";
constexpr std::string_view kApiKeyEnv = "OPENAI_API_KEY";
// How much of a server-chosen name, error or argument text an error quotes.
constexpr std::size_t kMaxQuotedBytes = 512;

std::string Prefixed(std::string_view message) {
  return absl::StrCat(ToAbsl(kProvider), ": ", ToAbsl(message));
}

// What an error shows of text the server chose: escaped first (so no control character reaches
// a terminal), then cut, so the quote stays within kMaxQuotedBytes plus the cut mark however
// much escaping grew it.
std::string Quote(std::string_view text) { return Truncate(json::Sanitize(text), kMaxQuotedBytes); }

std::string_view TrimTrailingSlashes(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return url;
}

// ---- The request ----

absl::StatusOr<std::string> ToolJson(const ToolSpec& tool) {
  json::JsonObject function;
  function.String("name", tool.name).String("description", tool.description);
  // A tool without a schema takes no parameters; OpenAI reads an absent `parameters` so.
  if (!absl::StripAsciiWhitespace(tool.input_schema).empty()) {
    absl::StatusOr<std::string> schema = json::Canonicalize(tool.input_schema);
    if (!schema.ok()) {
      return absl::InvalidArgumentError(
          Prefixed(absl::StrCat("tool ", json::Quoted(tool.name, static_cast<int>(kMaxQuotedBytes)),
                                ": input schema is not JSON: ", schema.status().message())));
    }
    function.Raw("parameters", *schema);
  }
  return json::JsonObject().String("type", "function").Raw("function", function.Build()).Build();
}

std::string ToolCallJson(const ContentBlock& use) {
  // The arguments travel as a string holding the JSON input; a tool use without input is "{}".
  std::string arguments = use.input.empty() ? "{}" : use.input;
  return json::JsonObject()
      .String("id", use.tool_use_id)
      .String("type", "function")
      .Raw("function",
           json::JsonObject().String("name", use.name).String("arguments", arguments).Build())
      .Build();
}

// A message always carries `content`, "" when it has no text: some compatible servers refuse
// a message without it.
std::string MessageJson(std::string_view role, std::string_view content,
                        const std::vector<std::string>& tool_calls, std::string_view tool_call_id) {
  json::JsonObject message;
  message.String("role", role).String("content", content).StringIfSet("tool_call_id", tool_call_id);
  if (!tool_calls.empty()) message.Raw("tool_calls", json::JsonArray(tool_calls));
  return message.Build();
}

// One runtime message becomes: an assistant message with its text and tool calls (tool results
// in it are dropped); or, for any other role, a user message with its text (when it has any)
// followed by one "tool" message per tool result (tool uses in it are dropped).
void AppendMessages(const Message& message, std::vector<std::string>& out) {
  std::string text;
  std::vector<std::string> tool_calls;
  std::vector<const ContentBlock*> results;
  for (const ContentBlock& block : message.content) {
    if (block.type == "text") {
      text += block.text;
    } else if (block.type == "tool_use") {
      tool_calls.push_back(ToolCallJson(block));
    } else if (block.type == "tool_result") {
      results.push_back(&block);
    }
  }
  if (message.role == "assistant") {
    out.push_back(MessageJson("assistant", text, tool_calls, ""));
    return;
  }
  if (!text.empty()) out.push_back(MessageJson("user", text, {}, ""));
  for (const ContentBlock* result : results) {
    out.push_back(MessageJson("tool", result->content, {}, result->tool_use_id));
  }
}

absl::StatusOr<std::string> RequestJson(std::string_view model, const ModelRequest& request) {
  std::vector<std::string> messages;
  if (!request.system.empty()) messages.push_back(MessageJson("system", request.system, {}, ""));
  for (const Message& message : request.messages) AppendMessages(message, messages);

  json::JsonObject body;
  body.String("model", model).Raw("messages", json::JsonArray(messages)).Int("temperature", 0);
  if (!request.tools.empty()) {
    std::vector<std::string> tools;
    for (const ToolSpec& tool : request.tools) {
      AGENTRT_ASSIGN_OR_RETURN(std::string json, ToolJson(tool));
      tools.push_back(std::move(json));
    }
    // One call per reply: the runtime executes one tool per step.
    body.Raw("tools", json::JsonArray(tools))
        .String("tool_choice", "auto")
        .Bool("parallel_tool_calls", false);
  }
  if (request.max_output_tokens > 0) body.Int("max_tokens", request.max_output_tokens);
  return body.Build();
}

// ---- The reply ----

absl::Status NotA(std::string_view path, json::Value value, std::string_view wanted) {
  return absl::InvalidArgumentError(absl::StrCat(
      ToAbsl(path), " is ", json::KindWithArticle(value.kind()), ", not ", ToAbsl(wanted)));
}

// Usage is read on its own, before anything else, so a reply that is otherwise unusable is
// still charged what it reported. A body that is not a JSON object reports nothing.
absl::StatusOr<Usage> ReadUsage(const absl::StatusOr<json::Document>& document) {
  Usage usage;
  if (!document.ok() || !document->root().is_object()) return usage;
  std::optional<json::Value> reported = document->root().Find("usage");
  if (!reported || reported->is_null()) return usage;
  if (!reported->is_object()) {
    return UnusableUsageError(absl::StrCat(
        "unusable usage: usage is ", json::KindWithArticle(reported->kind()), ", not an object"));
  }
  AGENTRT_ASSIGN_OR_RETURN(usage.input_tokens,
                           UsageCount("prompt_tokens", reported->Find("prompt_tokens")));
  AGENTRT_ASSIGN_OR_RETURN(usage.output_tokens,
                           UsageCount("completion_tokens", reported->Find("completion_tokens")));
  std::optional<json::Value> details = reported->Find("prompt_tokens_details");
  if (details && !details->is_null()) {
    if (!details->is_object()) {
      return UnusableUsageError(absl::StrCat("unusable usage: prompt_tokens_details is ",
                                             json::KindWithArticle(details->kind()),
                                             ", not an object"));
    }
    AGENTRT_ASSIGN_OR_RETURN(
        usage.cached_input_tokens,
        UsageCount("prompt_tokens_details.cached_tokens", details->Find("cached_tokens")));
  }
  AGENTRT_RETURN_IF_ERROR(CheckUsage(usage));
  return usage;
}

// What the adapter reads of a chat completion, every field optional (absent and null read as
// empty), every present one of the documented type.
struct WireToolCall {
  std::string id;
  std::string name;
  std::string arguments;
};
struct WireReply {
  bool has_error = false;
  std::string error_type;
  std::string error_message;
  bool has_choice = false;
  std::string content;
  std::vector<WireToolCall> tool_calls;
  std::string finish_reason;
};

absl::StatusOr<WireToolCall> DecodeToolCall(json::Value call, std::size_t i) {
  std::string path = absl::StrCat("choices[0].message.tool_calls[", i, "]");
  if (!call.is_object()) return NotA(path, call, "an object");
  WireToolCall out;
  AGENTRT_ASSIGN_OR_RETURN(out.id, json::StringMember(call, "id", path + ".id"));
  AGENTRT_ASSIGN_OR_RETURN(
      std::optional<json::Value> function,
      json::TypedMember(call, "function", json::Kind::kObject, path + ".function"));
  if (function) {
    AGENTRT_ASSIGN_OR_RETURN(out.name,
                             json::StringMember(*function, "name", path + ".function.name"));
    AGENTRT_ASSIGN_OR_RETURN(
        out.arguments, json::StringMember(*function, "arguments", path + ".function.arguments"));
  }
  return out;
}

absl::StatusOr<WireReply> Decode(const absl::StatusOr<json::Document>& document) {
  if (!document.ok()) return document.status();
  json::Value root = document->root();
  if (!root.is_object()) return NotA("the body", root, "an object");
  WireReply out;
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> error,
                           json::TypedMember(root, "error", json::Kind::kObject, "error"));
  if (error) {
    out.has_error = true;
    AGENTRT_ASSIGN_OR_RETURN(out.error_type, json::StringMember(*error, "type", "error.type"));
    AGENTRT_ASSIGN_OR_RETURN(out.error_message,
                             json::StringMember(*error, "message", "error.message"));
  }
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> choices,
                           json::TypedMember(root, "choices", json::Kind::kArray, "choices"));
  if (!choices || choices->size() == 0) return out;
  json::Value choice = choices->element(0);
  if (choice.is_null()) return out;
  if (!choice.is_object()) return NotA("choices[0]", choice, "an object");
  out.has_choice = true;
  AGENTRT_ASSIGN_OR_RETURN(out.finish_reason,
                           json::StringMember(choice, "finish_reason", "choices[0].finish_reason"));
  AGENTRT_ASSIGN_OR_RETURN(
      std::optional<json::Value> message,
      json::TypedMember(choice, "message", json::Kind::kObject, "choices[0].message"));
  if (!message) return out;
  AGENTRT_ASSIGN_OR_RETURN(out.content,
                           json::StringMember(*message, "content", "choices[0].message.content"));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> calls,
                           json::TypedMember(*message, "tool_calls", json::Kind::kArray,
                                             "choices[0].message.tool_calls"));
  if (calls) {
    for (std::size_t i = 0; i < calls->size(); ++i) {
      AGENTRT_ASSIGN_OR_RETURN(WireToolCall call, DecodeToolCall(calls->element(i), i));
      out.tool_calls.push_back(std::move(call));
    }
  }
  return out;
}

// Arguments are a string that must hold a JSON object: "[1]", "n=1" and JSON cut short are
// refused. Empty arguments are {}.
std::optional<std::string> ObjectArguments(std::string_view arguments) {
  std::string_view trimmed = ToStd(absl::StripAsciiWhitespace(ToAbsl(arguments)));
  if (trimmed.empty()) return "{}";
  absl::StatusOr<json::Document> parsed = json::Parse(trimmed);
  if (!parsed.ok() || !parsed->root().is_object()) return std::nullopt;
  return std::string(trimmed);
}

std::string StopReason(std::string_view finish_reason, bool has_tool_calls) {
  if (finish_reason == "tool_calls") return std::string(stop_reason::kToolUse);
  if (finish_reason == "stop") return std::string(stop_reason::kEndTurn);
  if (finish_reason == "length") return std::string(stop_reason::kMaxTokens);
  if (finish_reason == "content_filter") return std::string(stop_reason::kRefusal);
  if (has_tool_calls) return std::string(stop_reason::kToolUse);
  if (finish_reason.empty()) return std::string(stop_reason::kEndTurn);
  return std::string(finish_reason);
}

}  // namespace

std::string OpenAiName(std::string_view model) { return absl::StrCat("openai:", ToAbsl(model)); }

KeySource OpenAiDefaultKeySource(std::string_view base_url) {
  std::string_view base = TrimTrailingSlashes(base_url);
  if (base.empty() || base == kOpenAiDefaultBaseUrl) {
    return KeySource{.env = std::string(kApiKeyEnv)};
  }
  return KeySource{};
}

absl::StatusOr<std::unique_ptr<OpenAiModel>> OpenAiModel::Create(OpenAiConfig config,
                                                                 const world::World& world) {
  if (config.model.empty()) return absl::InvalidArgumentError("openai: model is required");
  std::string_view base_url = TrimTrailingSlashes(config.base_url);
  config.base_url = std::string(base_url.empty() ? kOpenAiDefaultBaseUrl : base_url);
  AGENTRT_ASSIGN_OR_RETURN(BaseUrl base,
                           CheckEndpoint(kProvider, config.base_url, !config.api_key.empty()));
  AGENTRT_RETURN_IF_ERROR(CheckModelWorld(world, "openai"));
  return std::unique_ptr<OpenAiModel>(new OpenAiModel(std::move(config), std::move(base), world));
}

OpenAiModel::OpenAiModel(OpenAiConfig config, BaseUrl base, const world::World& world)
    : config_(std::move(config)),
      base_(std::move(base)),
      name_(config_.name.empty() ? OpenAiName(config_.model) : config_.name),
      world_(world) {}

absl::StatusOr<ModelResponse> OpenAiModel::Generate(const ModelRequest& request,
                                                    absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(std::string body, RequestJson(config_.model, request));
  world::HttpFields headers;
  if (!config_.api_key.empty()) {
    headers.emplace_back("Authorization", absl::StrCat("Bearer ", config_.api_key.Reveal()));
  }
  AGENTRT_ASSIGN_OR_RETURN(
      HttpReply reply,
      CallProvider(world_, kProvider, absl::StrCat(base_.text, "/chat/completions"),
                   std::move(headers), std::move(body), deadline, config_.timeout));

  absl::StatusOr<json::Document> document = json::Parse(reply.body);
  absl::StatusOr<Usage> usage = ReadUsage(document);
  if (!usage.ok()) return UnusableUsageError(Prefixed(ToStd(usage.status().message())));

  absl::StatusOr<WireReply> decoded = Decode(document);
  if (!decoded.ok()) {
    return ServedError(Prefixed(absl::StrCat("decode: ", decoded.status().message())), *usage);
  }
  if (decoded->has_error) {
    return ServedError(
        Prefixed(absl::StrCat(Quote(decoded->error_type), ": ", Quote(decoded->error_message))),
        *usage);
  }
  if (!decoded->has_choice) return ServedError(Prefixed("response carried no choice"), *usage);

  ModelResponse response;
  response.text = std::move(decoded->content);
  response.stop_reason = StopReason(decoded->finish_reason, !decoded->tool_calls.empty());
  // A reply cut at the output cap or refused may hold half a call, its arguments cut mid-JSON:
  // its calls are dropped unread and never run (the reply is still charged).
  const bool drop_calls = response.stop_reason == stop_reason::kMaxTokens ||
                          response.stop_reason == stop_reason::kRefusal;
  for (std::size_t i = 0; !drop_calls && i < decoded->tool_calls.size(); ++i) {
    WireToolCall& call = decoded->tool_calls[i];
    std::optional<std::string> args = ObjectArguments(call.arguments);
    if (!args) {
      return ServedError(
          Prefixed(absl::StrCat("tool call ", Quote(call.name),
                                ": arguments are not a JSON object: ", Quote(call.arguments))),
          *usage);
    }
    std::string id = call.id.empty() ? SynthesizeToolUseId(*world_.entropy, i) : call.id;
    response.tool_uses.push_back(
        ToolUse{.id = std::move(id), .name = std::move(call.name), .args = *std::move(args)});
  }
  response.usage = *usage;
  response.raw = std::move(reply.body);
  return response;
}

}  // namespace agentrt::providers
