#include "mcp/jsonrpc.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"

namespace agentrt::mcp {
namespace {

absl::Status Refuse(std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("not a JSON-RPC message: ", ToAbsl(why)));
}

}  // namespace

absl::StatusOr<Message> ParseMessage(std::string_view bytes) {
  absl::StatusOr<json::Document> doc = json::Parse(bytes);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a JSON-RPC message: ", doc.status().message()));
  }
  json::Value root = doc->root();
  if (!root.is_object()) return Refuse("not a JSON object");
  std::optional<json::Value> version = root.Find("jsonrpc");
  if (!version || !version->is_string() || version->string_value() != "2.0") {
    return Refuse("\"jsonrpc\" is not \"2.0\"");
  }
  std::optional<json::Value> id = root.Find("id");
  std::optional<json::Value> method = root.Find("method");
  std::optional<json::Value> result = root.Find("result");
  std::optional<json::Value> error = root.Find("error");
  std::optional<json::Value> params = root.Find("params");
  if (id && !id->is_number() && !id->is_string()) {
    // A null id only comes with an error about a request the server could not read.
    if (!(id->is_null() && error)) return Refuse("the id is neither a number nor a string");
  }
  Message m;
  if (id && !id->is_null()) m.id = json::WriteCanonical(*id);
  int kinds = (method ? 1 : 0) + (result ? 1 : 0) + (error ? 1 : 0);
  if (kinds != 1) return Refuse("it must hold exactly one of method, result and error");
  if (method) {
    if (!method->is_string()) return Refuse("the method is not a string");
    m.kind = id ? Message::Kind::kRequest : Message::Kind::kNotification;
    m.method = std::string(method->string_value());
    if (params) {
      if (!params->is_object() && !params->is_array()) {
        return Refuse("params is neither an object nor an array");
      }
      m.params = json::WriteCanonical(*params);
    }
    return m;
  }
  if (!id) return Refuse("a response without an id");
  if (result) {
    m.kind = Message::Kind::kResult;
    m.result = json::WriteCanonical(*result);
    return m;
  }
  m.kind = Message::Kind::kError;
  if (!error->is_object()) return Refuse("the error is not an object");
  std::optional<json::Value> code = error->Find("code");
  std::optional<json::Value> message = error->Find("message");
  if (!code || !code->is_number() ||
      !absl::SimpleAtoi(ToAbsl(code->number_literal()), &m.error_code)) {
    return Refuse("the error's code is not an integer");
  }
  if (message && message->is_string()) m.error_message = std::string(message->string_value());
  return m;
}

std::string RequestJson(std::int64_t id, std::string_view method, std::string_view params) {
  json::JsonObject o;
  o.String("jsonrpc", "2.0").Int("id", id).String("method", method);
  if (!params.empty()) o.Raw("params", params);
  return o.Build();
}

std::string NotificationJson(std::string_view method, std::string_view params) {
  json::JsonObject o;
  o.String("jsonrpc", "2.0").String("method", method);
  if (!params.empty()) o.Raw("params", params);
  return o.Build();
}

std::string ResultJson(std::string_view id, std::string_view result) {
  return json::JsonObject().String("jsonrpc", "2.0").Raw("id", id).Raw("result", result).Build();
}

std::string ErrorJson(std::string_view id, int code, std::string_view message) {
  return json::JsonObject()
      .String("jsonrpc", "2.0")
      .Raw("id", id.empty() ? "null" : id)
      .Raw("error", json::JsonObject().Int("code", code).String("message", message).Build())
      .Build();
}

}  // namespace agentrt::mcp
