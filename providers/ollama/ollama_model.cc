#include "providers/ollama/ollama_model.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "providers/endpoint.h"
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
#include "runtime/world/entropy.h"
#include "runtime/world/network.h"

namespace agentrt::providers {
namespace {

constexpr std::string_view kProvider = "ollama";
// How much of a server-chosen error, tool name or argument text an error shows.
constexpr int kMaxShownBytes = 512;

// ---- The request ----------------------------------------------------------------------------

// A tool use's input as the JSON value of "arguments": none (or null) is {}.
absl::StatusOr<std::string> ArgumentsJson(const ContentBlock& block) {
  absl::string_view input = absl::StripAsciiWhitespace(block.input);
  if (input.empty() || input == "null") return std::string("{}");
  absl::StatusOr<std::string> canonical = json::Canonicalize(ToStd(input));
  if (!canonical.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("ollama: tool use ", json::Quoted(block.name),
                                                   ": input: ", canonical.status().message()));
  }
  return canonical;
}

absl::StatusOr<std::string> ToolCallJson(const ContentBlock& block) {
  AGENTRT_ASSIGN_OR_RETURN(std::string arguments, ArgumentsJson(block));
  std::string function =
      json::JsonObject().String("name", block.name).Raw("arguments", arguments).Build();
  return json::JsonObject().StringIfSet("id", block.tool_use_id).Raw("function", function).Build();
}

std::string ToolMessageJson(const ContentBlock& block) {
  return json::JsonObject()
      .String("role", "tool")
      .String("content", block.content)
      .StringIfSet("tool_name", block.name)
      .Build();
}

// One runtime message as Ollama messages: an assistant turn is exactly one message (its tool
// results dropped); any other is a user message when it has text, then one tool message per
// tool result.
absl::Status AppendMessages(const Message& message, std::vector<std::string>& out) {
  std::string text;
  std::vector<std::string> tool_calls;
  std::vector<std::string> tool_messages;
  for (const ContentBlock& block : message.content) {
    if (block.type == "text") {
      text += block.text;
    } else if (block.type == "tool_use") {
      AGENTRT_ASSIGN_OR_RETURN(std::string call, ToolCallJson(block));
      tool_calls.push_back(std::move(call));
    } else if (block.type == "tool_result") {
      tool_messages.push_back(ToolMessageJson(block));
    }
  }
  if (message.role == "assistant") {
    json::JsonObject m;
    m.String("role", "assistant").String("content", text);
    if (!tool_calls.empty()) m.Raw("tool_calls", json::JsonArray(tool_calls));
    out.push_back(m.Build());
    return absl::OkStatus();
  }
  if (!text.empty()) {
    out.push_back(json::JsonObject().String("role", "user").String("content", text).Build());
  }
  for (std::string& m : tool_messages) out.push_back(std::move(m));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ToolJson(const ToolSpec& tool) {
  std::string parameters = "null";
  if (!tool.input_schema.empty()) {
    absl::StatusOr<std::string> canonical = json::Canonicalize(tool.input_schema);
    if (!canonical.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ollama: tool ", json::Quoted(tool.name),
                       ": input schema: ", canonical.status().message()));
    }
    parameters = *std::move(canonical);
  }
  std::string function = json::JsonObject()
                             .String("name", tool.name)
                             .String("description", tool.description)
                             .Raw("parameters", parameters)
                             .Build();
  return json::JsonObject().String("type", "function").Raw("function", function).Build();
}

absl::StatusOr<std::string> RequestJson(const OllamaConfig& config, const ModelRequest& request) {
  std::vector<std::string> messages;
  if (!request.system.empty()) {
    messages.push_back(
        json::JsonObject().String("role", "system").String("content", request.system).Build());
  }
  for (const Message& message : request.messages) {
    AGENTRT_RETURN_IF_ERROR(AppendMessages(message, messages));
  }
  json::JsonObject options;
  options.Int("num_ctx", config.num_ctx).Int("temperature", 0);
  if (request.max_output_tokens > 0) options.Int("num_predict", request.max_output_tokens);

  json::JsonObject body;
  body.String("model", config.model)
      .Raw("messages", json::JsonArray(messages))
      .Bool("stream", false)
      .Bool("think", config.think)
      .Raw("options", options.Build());
  if (!request.tools.empty()) {
    std::vector<std::string> tools;
    for (const ToolSpec& tool : request.tools) {
      AGENTRT_ASSIGN_OR_RETURN(std::string t, ToolJson(tool));
      tools.push_back(std::move(t));
    }
    body.Raw("tools", json::JsonArray(tools));
  }
  return body.Build();
}

// ---- The reply ------------------------------------------------------------------------------

// The usage a reply reports; zero when the body is not a JSON object. UnusableUsageError when
// the counts cannot be believed.
absl::StatusOr<Usage> ReadUsage(const absl::StatusOr<json::Document>& document) {
  Usage usage;
  if (!document.ok() || !document->root().is_object()) return usage;
  json::Value root = document->root();
  absl::Status bad;
  absl::StatusOr<std::int64_t> input =
      UsageCount("prompt_eval_count", root.Find("prompt_eval_count"));
  if (!input.ok()) bad = input.status();
  absl::StatusOr<std::int64_t> output = UsageCount("eval_count", root.Find("eval_count"));
  if (bad.ok() && !output.ok()) bad = output.status();
  if (bad.ok()) {
    usage.input_tokens = *input;
    usage.output_tokens = *output;
    bad = CheckUsage(usage);
  }
  if (!bad.ok()) return UnusableUsageError(absl::StrCat("ollama: ", bad.message()));
  return usage;
}

// What the reply says, its shapes checked as a typed decoder would.
struct Reply {
  std::string error;
  std::string content;
  std::string done_reason;
  struct Call {
    std::string id;
    std::string name;
    std::optional<json::Value> arguments;
  };
  std::vector<Call> calls;
};

absl::StatusOr<Reply> Decode(const absl::StatusOr<json::Document>& document) {
  if (!document.ok()) return document.status();
  json::Value root = document->root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the reply is ", json::KindWithArticle(root.kind()), ", not an object"));
  }
  Reply reply;
  AGENTRT_ASSIGN_OR_RETURN(reply.error, json::StringMember(root, "error", "error"));
  AGENTRT_ASSIGN_OR_RETURN(reply.done_reason,
                           json::StringMember(root, "done_reason", "done_reason"));
  AGENTRT_ASSIGN_OR_RETURN(std::optional<json::Value> message,
                           json::TypedMember(root, "message", json::Kind::kObject, "message"));
  if (!message) return reply;
  AGENTRT_ASSIGN_OR_RETURN(reply.content,
                           json::StringMember(*message, "content", "message.content"));
  AGENTRT_ASSIGN_OR_RETURN(
      std::optional<json::Value> calls,
      json::TypedMember(*message, "tool_calls", json::Kind::kArray, "message.tool_calls"));
  if (!calls) return reply;
  for (std::size_t i = 0; i < calls->size(); ++i) {
    json::Value call = calls->element(i);
    std::string where = absl::StrCat("message.tool_calls[", i, "]");
    if (!call.is_object() && !call.is_null()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " is ", json::KindWithArticle(call.kind()), ", not an object"));
    }
    Reply::Call out;
    if (call.is_object()) {
      AGENTRT_ASSIGN_OR_RETURN(out.id, json::StringMember(call, "id", where + ".id"));
      AGENTRT_ASSIGN_OR_RETURN(
          std::optional<json::Value> function,
          json::TypedMember(call, "function", json::Kind::kObject, where + ".function"));
      if (function) {
        AGENTRT_ASSIGN_OR_RETURN(out.name,
                                 json::StringMember(*function, "name", where + ".function.name"));
        out.arguments = function->Find("arguments");
      }
    }
    reply.calls.push_back(std::move(out));
  }
  return reply;
}

}  // namespace

std::string OllamaName(std::string_view model) { return absl::StrCat("ollama:", ToAbsl(model)); }

absl::StatusOr<std::string> OllamaHost(std::string_view configured,
                                       world::Environment* environment) {
  std::string host(configured);
  if (host.empty() && environment != nullptr) host = environment->Get("OLLAMA_HOST").value_or("");
  if (host.empty()) host = std::string(kOllamaDefaultHost);
  std::string url = host.find("://") == std::string::npos ? absl::StrCat("http://", host) : host;
  std::string scheme = absl::AsciiStrToLower(url.substr(0, url.find("://")));
  if (scheme != "http" && scheme != "https") {
    return absl::InvalidArgumentError(absl::StrCat("ollama: host \"", json::Sanitize(host),
                                                   "\": the scheme must be http or https"));
  }
  absl::StatusOr<BaseUrl> parsed = ParseBaseUrl(url);
  if (!parsed.ok() || !parsed->path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ollama: host \"", json::Sanitize(host), "\" is not a server address"));
  }
  return parsed->text;
}

absl::StatusOr<std::unique_ptr<OllamaModel>> OllamaModel::Create(OllamaConfig config,
                                                                 const world::World& world) {
  if (config.model.empty()) return absl::InvalidArgumentError("ollama: model is required");
  AGENTRT_ASSIGN_OR_RETURN(std::string host, OllamaHost(config.host, world.environment));
  AGENTRT_RETURN_IF_ERROR(CheckModelWorld(world, "ollama"));
  if (config.num_ctx <= 0) config.num_ctx = kOllamaDefaultNumCtx;
  if (config.name.empty()) config.name = OllamaName(config.model);
  return std::unique_ptr<OllamaModel>(new OllamaModel(std::move(config), std::move(host), world));
}

OllamaModel::OllamaModel(OllamaConfig config, std::string host, const world::World& world)
    : config_(std::move(config)), host_(std::move(host)), name_(config_.name), world_(world) {}

absl::StatusOr<ModelResponse> OllamaModel::Generate(const ModelRequest& request,
                                                    absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(std::string body, RequestJson(config_, request));
  AGENTRT_ASSIGN_OR_RETURN(HttpReply reply,
                           CallProvider(world_, kProvider, absl::StrCat(host_, "/api/chat"), {},
                                        std::move(body), deadline, config_.timeout));

  absl::StatusOr<json::Document> document = json::Parse(reply.body);
  AGENTRT_ASSIGN_OR_RETURN(Usage usage, ReadUsage(document));
  absl::StatusOr<Reply> decoded = Decode(document);
  if (!decoded.ok()) {
    return ServedError(absl::StrCat("ollama: decode: ", decoded.status().message()), usage);
  }
  if (!decoded->error.empty()) {
    return ServedError(absl::StrCat("ollama: ", json::Quoted(decoded->error, kMaxShownBytes)),
                       usage);
  }

  ModelResponse response;
  response.text = std::move(decoded->content);
  response.usage = usage;
  for (std::size_t i = 0; i < decoded->calls.size(); ++i) {
    Reply::Call& call = decoded->calls[i];
    ToolUse use;
    use.name = std::move(call.name);
    use.id = call.id.empty() ? SynthesizeToolUseId(*world_.entropy, i) : std::move(call.id);
    if (!call.arguments || call.arguments->is_null()) {
      use.args = "{}";
    } else if (!call.arguments->is_object()) {
      return ServedError(absl::StrCat("ollama: tool call ", json::Quoted(use.name, kMaxShownBytes),
                                      ": arguments are not a JSON object: ",
                                      json::Sanitize(Truncate(json::WriteCanonical(*call.arguments),
                                                              kMaxShownBytes))),
                         usage);
    } else {
      use.args = json::WriteCanonical(*call.arguments);
    }
    response.tool_uses.push_back(std::move(use));
  }

  if (decoded->done_reason == "length") {
    response.stop_reason = stop_reason::kMaxTokens;
    response.tool_uses.clear();
  } else if (!response.tool_uses.empty()) {
    response.stop_reason = stop_reason::kToolUse;
  } else if (decoded->done_reason == "stop" || decoded->done_reason.empty()) {
    response.stop_reason = stop_reason::kEndTurn;
  } else {
    response.stop_reason = decoded->done_reason;
  }
  response.raw = std::move(reply.body);
  return response;
}

}  // namespace agentrt::providers
