#include "runtime/model.h"

#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/records/stored_forms.h"
#include "runtime/status_payloads.h"
#include "runtime/tool_registry.h"

namespace agentrt {
namespace {

// The payload (payload::kModelError) that carries the kind of a model error through an
// absl::Status: "<kind>;<retry_after ns>;<input>;<output>;<cached>".
absl::Status WithKind(absl::Status status, ModelErrorKind kind, absl::Duration retry_after,
                      const Usage& usage) {
  status.SetPayload(
      ToAbsl(payload::kModelError),
      absl::Cord(absl::StrCat(static_cast<int>(kind), ";", absl::ToInt64Nanoseconds(retry_after),
                              ";", usage.input_tokens, ";", usage.output_tokens, ";",
                              usage.cached_input_tokens)));
  return status;
}

std::string Array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",";
    out += items[i];
  }
  return out + "]";
}

// Raw JSON an agent or provider supplied, in canonical form; bytes that are not JSON are kept
// as a JSON string so the request still has one stable form.
std::string RawOrString(std::string_view raw) {
  if (raw.empty()) return "";
  absl::StatusOr<std::string> canonical = json::Canonicalize(raw);
  return canonical.ok() ? *canonical : json::JsonString(raw);
}

std::string BlockJson(const ContentBlock& b) {
  json::JsonObject o;
  o.String("type", b.type)
      .StringIfSet("text", b.text)
      .StringIfSet("tool_use_id", b.tool_use_id)
      .StringIfSet("name", b.name)
      .RawIfSet("input", RawOrString(b.input))
      .StringIfSet("content", b.content);
  if (b.is_error) o.Bool("is_error", true);
  return o.Build();
}

}  // namespace

std::string UsageJson(const Usage& u) {
  json::JsonObject o;
  o.Int("input_tokens", u.input_tokens).Int("output_tokens", u.output_tokens);
  if (u.cached_input_tokens != 0) o.Int("cached_input_tokens", u.cached_input_tokens);
  return o.Build();
}

absl::Status TransientError(std::string_view message, absl::Duration retry_after) {
  return WithKind(absl::UnavailableError(ToAbsl(message)), ModelErrorKind::kTransient, retry_after,
                  {});
}

absl::Status AmbiguousError(std::string_view message) {
  return WithKind(absl::UnavailableError(ToAbsl(message)), ModelErrorKind::kAmbiguous,
                  absl::ZeroDuration(), {});
}

absl::Status ServedError(std::string_view message, const Usage& usage) {
  return WithKind(absl::InternalError(ToAbsl(message)), ModelErrorKind::kServed,
                  absl::ZeroDuration(), usage);
}

absl::Status UnusableUsageError(std::string_view message) {
  return WithKind(absl::DataLossError(ToAbsl(message)), ModelErrorKind::kUnusableUsage,
                  absl::ZeroDuration(), {});
}

ModelErrorInfo ClassifyModelError(const absl::Status& status) {
  ModelErrorInfo info;
  absl::optional<absl::Cord> payload = status.GetPayload(ToAbsl(payload::kModelError));
  if (!payload) {
    if (absl::IsDeadlineExceeded(status)) info.kind = ModelErrorKind::kAmbiguous;
    return info;
  }
  std::vector<std::string> parts = absl::StrSplit(std::string(*payload), ';');
  std::int64_t v[5] = {0, 0, 0, 0, 0};
  if (parts.size() != 5) return info;
  for (int i = 0; i < 5; ++i) {
    if (!absl::SimpleAtoi(parts[i], &v[i])) return info;
  }
  if (v[0] < 0 || v[0] > static_cast<int>(ModelErrorKind::kUnusableUsage)) return info;
  info.kind = static_cast<ModelErrorKind>(v[0]);
  info.retry_after = absl::Nanoseconds(v[1]);
  if (info.kind == ModelErrorKind::kServed) info.usage = Usage{v[2], v[3], v[4]};
  return info;
}

std::string ModelRequestJson(const ModelRequest& request) {
  std::vector<std::string> messages;
  for (const Message& m : request.messages) {
    std::vector<std::string> blocks;
    for (const ContentBlock& b : m.content) blocks.push_back(BlockJson(b));
    messages.push_back(
        json::JsonObject().String("role", m.role).Raw("content", Array(blocks)).Build());
  }
  json::JsonObject o;
  o.StringIfSet("system", request.system).Raw("messages", Array(messages));
  if (!request.tools.empty()) {
    std::vector<std::string> tools;
    for (const ToolSpec& spec : request.tools) {
      absl::StatusOr<std::string> json = SpecJson(spec);
      // A spec whose schema is not JSON was refused at registration; keep the request
      // describable anyway.
      tools.push_back(json.ok() ? *json : json::JsonObject().String("name", spec.name).Build());
    }
    o.Raw("tools", Array(tools));
  }
  if (request.max_output_tokens != 0) o.Int("max_output_tokens", request.max_output_tokens);
  return o.Build();
}

std::string ModelResponseJson(const ModelResponse& response) {
  json::JsonObject o;
  o.StringIfSet("text", response.text)
      .StringIfSet("stop_reason", response.stop_reason)
      .Raw("usage", UsageJson(response.usage));
  if (!response.tool_uses.empty()) {
    std::vector<std::string> uses;
    for (const ToolUse& u : response.tool_uses) {
      uses.push_back(json::JsonObject()
                         .String("id", u.id)
                         .String("name", u.name)
                         .Raw("args", u.args.empty() ? "{}" : RawOrString(u.args))
                         .Build());
    }
    o.Raw("tool_uses", Array(uses));
  }
  return o.Build();
}

absl::StatusOr<ModelResponse> ParseModelResponse(std::string_view text) {
  AGENTRT_ASSIGN_OR_RETURN(json::Document doc, json::Parse(text));
  json::Value root = doc.root();
  if (!root.is_object()) return absl::InvalidArgumentError("model response: not a JSON object");
  ModelResponse r;
  r.text = json::MemberText(root, "text");
  r.stop_reason = json::MemberText(root, "stop_reason");
  if (std::optional<json::Value> usage = root.Find("usage")) {
    if (!usage->is_object()) return absl::InvalidArgumentError("model response: usage");
    r.usage.input_tokens = json::MemberInt(*usage, "input_tokens");
    r.usage.output_tokens = json::MemberInt(*usage, "output_tokens");
    r.usage.cached_input_tokens = json::MemberInt(*usage, "cached_input_tokens");
  }
  if (std::optional<json::Value> uses = root.Find("tool_uses")) {
    if (!uses->is_array()) return absl::InvalidArgumentError("model response: tool_uses");
    for (std::size_t i = 0; i < uses->size(); ++i) {
      json::Value u = uses->element(i);
      if (!u.is_object()) {
        return absl::InvalidArgumentError(absl::StrCat("model response: tool_uses[", i, "]"));
      }
      r.tool_uses.push_back(
          {json::MemberText(u, "id"), json::MemberText(u, "name"), json::MemberText(u, "args")});
    }
  }
  return r;
}

std::string UnusableUsageReason(const Usage& u) {
  if (u.input_tokens < 0 || u.output_tokens < 0 || u.cached_input_tokens < 0) {
    return absl::StrCat("negative token count (input ", u.input_tokens, ", output ",
                        u.output_tokens, ", cached ", u.cached_input_tokens, ")");
  }
  if (u.cached_input_tokens > u.input_tokens) {
    return absl::StrCat("cached input ", u.cached_input_tokens, " exceeds input ", u.input_tokens);
  }
  return "";
}

}  // namespace agentrt
