#include "providers/anthropic/anthropic_model.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "providers/anthropic/strict_subset.h"
#include "providers/http_call.h"
#include "providers/usage.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"
#include "runtime/world/clock.h"

namespace agentrt::providers {
namespace {

constexpr std::string_view kProvider = "anthropic";

std::string Prefixed(std::string_view message) {
  return absl::StrCat(ToAbsl(kProvider), ": ", ToAbsl(message));
}

bool Blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); });
}

absl::Status CheckMaxTokens(std::int64_t max_tokens, std::string_view model) {
  if (max_tokens <= kAnthropicMaxNonStreamingTokens) return absl::OkStatus();
  return absl::InvalidArgumentError(Prefixed(absl::StrCat(
      "max_tokens ", max_tokens, " is too large for a non-streaming request to ", ToAbsl(model),
      ": at most ", kAnthropicMaxNonStreamingTokens, " (a larger cap could outlast the request)")));
}

// A tool's definition: the schema as an object with a type and properties, cut to the strict
// subset when strict.
absl::StatusOr<std::string> ToolJson(const ToolSpec& tool, bool strict) {
  auto refused = [&](const absl::Status& why) {
    return absl::InvalidArgumentError(
        Prefixed(absl::StrCat("tool ", json::Quoted(tool.name, 512), ": ", why.message())));
  };
  std::string_view text =
      tool.input_schema.empty() ? std::string_view("{}") : std::string_view(tool.input_schema);
  absl::StatusOr<json::Document> schema = json::Parse(text);
  if (!schema.ok()) {
    return refused(absl::InvalidArgumentError(absl::StrCat("schema: ", schema.status().message())));
  }
  if (!schema->root().is_object()) {
    return refused(absl::InvalidArgumentError("schema: not a JSON object"));
  }
  // The schema's members as sent: the parsed schema itself, or under strict its subset.
  json::Value root = schema->root();
  std::optional<json::Document> subset;
  if (strict) {
    if (absl::Status no = StrictRefusal(root); !no.ok()) {
      return refused(absl::InvalidArgumentError(
          absl::StrCat("strict mode cannot express its schema: ", no.message())));
    }
    AGENTRT_ASSIGN_OR_RETURN(json::Document parsed, json::Parse(StrictSubset(root)));
    subset = std::move(parsed);
    root = subset->root();
  }
  // Fill in "type" and "properties" when the schema lacks them: the API requires both.
  json::JsonObject input_schema;
  for (std::size_t i = 0; i < root.size(); ++i) {
    if (root.key(i) == "type") continue;
    input_schema.Raw(root.key(i), json::WriteCanonical(root.member(i)));
  }
  input_schema.String("type", "object");
  if (!root.Find("properties")) input_schema.Raw("properties", "{}");
  json::JsonObject out;
  out.String("name", tool.name).String("description", tool.description);
  out.Raw("input_schema", input_schema.Build());
  if (strict) out.Bool("strict", true);
  return out.Build();
}

// A message's content blocks as the API takes them.
absl::StatusOr<std::string> ContentJson(const Message& message, std::string_view raw_block) {
  if (message.role == "assistant" && message.content.size() == 1 &&
      message.content[0].type == raw_block) {
    // The provider's own turn, sent back as it came: its thinking blocks carry signatures the
    // provider checks.
    absl::StatusOr<json::Document> turn = json::Parse(message.content[0].text);
    if (!turn.ok()) {
      return absl::InvalidArgumentError(
          Prefixed(absl::StrCat("raw assistant turn: ", turn.status().message())));
    }
    std::optional<json::Value> content =
        turn->root().is_object() ? turn->root().Find("content") : std::nullopt;
    if (!content || !content->is_array()) {
      return absl::InvalidArgumentError(Prefixed("raw assistant turn: it holds no content array"));
    }
    return json::WriteCanonical(*content);
  }
  std::vector<std::string> blocks;
  for (const ContentBlock& b : message.content) {
    if (b.type == "text") {
      if (Blank(b.text)) continue;
      blocks.push_back(json::JsonObject().String("type", "text").String("text", b.text).Build());
    } else if (b.type == "tool_use") {
      std::string input = "{}";
      if (!Blank(b.input)) {
        absl::StatusOr<std::string> canonical = json::Canonicalize(b.input);
        if (!canonical.ok()) {
          return absl::InvalidArgumentError(Prefixed(
              absl::StrCat("tool use ", json::Quoted(b.name, 512), ": input is not JSON")));
        }
        input = *std::move(canonical);  // canonical keeps every digit of a large integer
      }
      blocks.push_back(json::JsonObject()
                           .String("type", "tool_use")
                           .String("id", b.tool_use_id)
                           .String("name", b.name)
                           .Raw("input", input)
                           .Build());
    } else if (b.type == "tool_result") {
      blocks.push_back(json::JsonObject()
                           .String("type", "tool_result")
                           .String("tool_use_id", b.tool_use_id)
                           .String("content", b.content)
                           .Bool("is_error", b.is_error)
                           .Build());
    } else {
      return absl::InvalidArgumentError(
          Prefixed(absl::StrCat("unsupported content block type ", json::Quoted(b.type, 512))));
    }
  }
  if (blocks.empty()) {
    blocks.push_back(
        json::JsonObject().String("type", "text").String("text", "(no output)").Build());
  }
  return json::JsonArray(blocks);
}

// The reply's usage, folded as the provider bills it (the header comment).
absl::StatusOr<Usage> FoldedUsage(std::optional<json::Value> usage) {
  std::optional<json::Value> u = usage && usage->is_object() ? usage : std::nullopt;
  auto count = [&](std::string_view key) -> absl::StatusOr<std::int64_t> {
    return UsageCount(absl::StrCat("usage.", ToAbsl(key)),
                      u ? u->Find(key) : std::optional<json::Value>());
  };
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t input, count("input_tokens"));
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t output, count("output_tokens"));
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t read, count("cache_read_input_tokens"));
  AGENTRT_ASSIGN_OR_RETURN(std::int64_t written, count("cache_creation_input_tokens"));
  std::optional<json::Value> creation = u ? u->Find("cache_creation") : std::nullopt;
  AGENTRT_ASSIGN_OR_RETURN(
      std::int64_t one_hour,
      UsageCount("usage.cache_creation.ephemeral_1h_input_tokens",
                 creation && creation->is_object() ? creation->Find("ephemeral_1h_input_tokens")
                                                   : std::nullopt));
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t short_lived = std::max<std::int64_t>(written - one_hour, 0);
  // ceil(1.25 x short) as (short x 5 + 3) / 4, and 2 x one hour, without overflowing.
  if (short_lived > (kMax - 3) / 5 || one_hour > kMax / 2) {
    return UnusableUsageError(
        absl::StrCat("unusable usage: cache writes of ", written, " tokens overflow"));
  }
  std::int64_t folded_writes = (short_lived * 5 + 3) / 4;
  std::int64_t total = input;
  for (std::int64_t part : {read, folded_writes, 2 * one_hour}) {
    if (total > kMax - part) {
      return UnusableUsageError("unusable usage: the folded input count overflows");
    }
    total += part;
  }
  Usage out{.input_tokens = total, .output_tokens = output, .cached_input_tokens = read};
  AGENTRT_RETURN_IF_ERROR(CheckUsage(out));
  return out;
}

}  // namespace

std::string AnthropicName(std::string_view model) {
  return absl::StrCat(ToAbsl(kProvider), ":", ToAbsl(model));
}

absl::StatusOr<std::unique_ptr<AnthropicModel>> AnthropicModel::Create(AnthropicConfig config,
                                                                       const world::World& world) {
  if (config.model.empty()) return absl::InvalidArgumentError("anthropic: model is required");
  if (config.name.empty()) {
    std::string name = AnthropicName(config.model);
    if (!AnthropicPrices().contains(name)) {
      return absl::NotFoundError(
          absl::StrCat("anthropic: ", json::Sanitize(name),
                       ": no price for this model; set the config's name to price it yourself"));
    }
  }
  if (config.max_tokens <= 0) config.max_tokens = kAnthropicDefaultMaxTokens;
  AGENTRT_RETURN_IF_ERROR(CheckMaxTokens(config.max_tokens, config.model));
  if (config.raw_assistant_block.empty()) {
    config.raw_assistant_block = std::string(kAnthropicRawAssistantBlock);
  }
  if (config.api_key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("anthropic: no API key: give one, or set ", ToAbsl(kAnthropicKeyVariable)));
  }
  std::string base =
      config.base_url.empty() ? std::string(kAnthropicDefaultBaseUrl) : config.base_url;
  AGENTRT_ASSIGN_OR_RETURN(BaseUrl url, CheckEndpoint(kProvider, base, /*has_key=*/true));
  AGENTRT_RETURN_IF_ERROR(CheckModelWorld(world, "anthropic"));
  return std::unique_ptr<AnthropicModel>(
      new AnthropicModel(std::move(config), std::move(url), world));
}

AnthropicModel::AnthropicModel(AnthropicConfig config, BaseUrl base, const world::World& world)
    : config_(std::move(config)),
      base_(std::move(base)),
      name_(config_.name.empty() ? AnthropicName(config_.model) : config_.name),
      world_(world) {}

absl::StatusOr<std::string> AnthropicModel::RequestJson(const ModelRequest& request) const {
  std::int64_t max_tokens =
      request.max_output_tokens > 0 ? request.max_output_tokens : config_.max_tokens;
  AGENTRT_RETURN_IF_ERROR(CheckMaxTokens(max_tokens, config_.model));
  json::JsonObject body;
  body.String("model", config_.model).Int("max_tokens", max_tokens);
  if (!request.system.empty()) {
    body.Raw(
        "system",
        json::JsonArray(
            {json::JsonObject().String("type", "text").String("text", request.system).Build()}));
  }
  if (!config_.effort.empty()) {
    body.Raw("output_config", json::JsonObject().String("effort", config_.effort).Build());
  }
  if (!request.tools.empty()) {
    std::vector<std::string> tools;
    for (const ToolSpec& tool : request.tools) {
      AGENTRT_ASSIGN_OR_RETURN(std::string t, ToolJson(tool, config_.strict));
      tools.push_back(std::move(t));
    }
    body.Raw("tools", json::JsonArray(tools));
    body.Raw(
        "tool_choice",
        json::JsonObject().String("type", "auto").Bool("disable_parallel_tool_use", true).Build());
  }
  std::vector<std::string> messages;
  for (const Message& m : request.messages) {
    AGENTRT_ASSIGN_OR_RETURN(std::string content, ContentJson(m, config_.raw_assistant_block));
    messages.push_back(json::JsonObject()
                           .String("role", m.role == "assistant" ? "assistant" : "user")
                           .Raw("content", content)
                           .Build());
  }
  body.Raw("messages", json::JsonArray(messages));
  return body.Build();
}

absl::StatusOr<ModelResponse> AnthropicModel::Generate(const ModelRequest& request,
                                                       absl::Time deadline) {
  AGENTRT_ASSIGN_OR_RETURN(std::string body, RequestJson(request));
  world::HttpFields headers = {{"x-api-key", config_.api_key.Reveal()},
                               {"anthropic-version", std::string(kAnthropicApiVersion)}};
  AGENTRT_ASSIGN_OR_RETURN(
      HttpReply reply,
      CallProvider(world_, kProvider, absl::StrCat(base_.text, "/v1/messages"), std::move(headers),
                   std::move(body), deadline, config_.timeout));
  return ParseReply(std::move(reply.body));
}

absl::StatusOr<ModelResponse> AnthropicModel::ParseReply(std::string body) const {
  absl::StatusOr<json::Document> doc = json::Parse(body);
  // Usage first, so a reply that is otherwise unusable is still charged what it reported.
  std::optional<json::Value> usage_json;
  if (doc.ok() && doc->root().is_object()) usage_json = doc->root().Find("usage");
  absl::StatusOr<Usage> usage = FoldedUsage(usage_json);
  if (!usage.ok()) {
    return UnusableUsageError(Prefixed(std::string(usage.status().message())));
  }
  auto served = [&](std::string_view why) {
    return ServedError(Prefixed(absl::StrCat("decode: ", ToAbsl(why))), *usage);
  };
  if (!doc.ok()) return served(std::string(doc.status().message()));
  json::Value root = doc->root();
  if (!root.is_object()) return served("the reply is not a JSON object");
  std::optional<json::Value> content = root.Find("content");
  if (!content || !content->is_array()) return served("the reply has no content array");
  ModelResponse response;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < content->size(); ++i) {
    json::Value block = content->element(i);
    if (!block.is_object()) return served("a content block is not an object");
    std::optional<json::Value> type = block.Find("type");
    std::string_view kind = type && type->is_string() ? type->string_value() : "";
    if (kind == "text") {
      std::optional<json::Value> text = block.Find("text");
      if (text && text->is_string() && !text->string_value().empty()) {
        texts.emplace_back(text->string_value());
      }
    } else if (kind == "tool_use") {
      ToolUse use;
      std::optional<json::Value> id = block.Find("id");
      std::optional<json::Value> name = block.Find("name");
      std::optional<json::Value> input = block.Find("input");
      use.id = id && id->is_string() ? std::string(id->string_value()) : "";
      if (use.id.empty()) use.id = SynthesizeToolUseId(*world_.entropy, response.tool_uses.size());
      use.name = name && name->is_string() ? std::string(name->string_value()) : "";
      if (input && !input->is_null() && !input->is_object()) {
        return ServedError(Prefixed(absl::StrCat("tool use ", json::Quoted(use.name, 512),
                                                 ": input is not a JSON object")),
                           *usage);
      }
      use.args = input && !input->is_null() ? json::WriteCanonical(*input) : "{}";
      response.tool_uses.push_back(std::move(use));
    }
  }
  response.text = absl::StrJoin(texts, "\n");
  std::optional<json::Value> stop = root.Find("stop_reason");
  response.stop_reason = stop && stop->is_string() ? std::string(stop->string_value()) : "";
  if (response.stop_reason == stop_reason::kMaxTokens ||
      response.stop_reason == stop_reason::kRefusal) {
    response.tool_uses.clear();
  }
  response.usage = *usage;
  response.raw = std::move(body);
  return response;
}

}  // namespace agentrt::providers
