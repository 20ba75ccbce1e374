#include "mcp/proxy/host_front.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/jsonrpc.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"

namespace agentrt::proxy {
namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

std::optional<json::Value> Member(const json::Document& doc, std::string_view key) {
  if (!doc.root().is_object()) return std::nullopt;
  return doc.root().Find(key);
}

}  // namespace

HostFront::HostFront(Proxy& proxy, std::size_t max_in_flight)
    : proxy_(proxy), max_in_flight_(max_in_flight) {}

std::string HostFront::Initialize(std::string_view params) const {
  std::string version(kLatestProtocol);
  absl::StatusOr<json::Document> doc = json::Parse(params.empty() ? "{}" : params);
  if (doc.ok()) {
    std::optional<json::Value> asked = Member(*doc, "protocolVersion");
    if (asked && asked->is_string() &&
        (asked->string_value() == "2025-06-18" || asked->string_value() == "2025-03-26" ||
         asked->string_value() == kLatestProtocol)) {
      version = std::string(asked->string_value());
    }
  }
  return json::JsonObject()
      .String("protocolVersion", version)
      .Raw("capabilities", json::JsonObject()
                               .Raw("tools", json::JsonObject().Bool("listChanged", false).Build())
                               .Build())
      .Raw("serverInfo",
           json::JsonObject().String("name", kServerName).String("version", kServerVersion).Build())
      .Build();
}

std::string HostFront::ToolsList() const {
  std::vector<std::string> tools;
  for (const ToolSpec& spec : proxy_.Tools()) {
    absl::StatusOr<std::string> schema = json::Canonicalize(spec.input_schema);
    tools.push_back(json::JsonObject()
                        .String("name", spec.name)
                        .String("description", spec.description)
                        .Raw("inputSchema", schema.ok() ? *schema : "{\"type\":\"object\"}")
                        .Build());
  }
  return json::JsonObject().Raw("tools", json::JsonArray(tools)).Build();
}

std::optional<std::function<void()>> HostFront::Receive(std::string_view message, Send send) {
  absl::StatusOr<mcp::Message> m = mcp::ParseMessage(message);
  if (!m.ok()) {
    send(mcp::ErrorJson("null", kParseError,
                        "the message is not a JSON-RPC 2.0 message this server accepts"));
    return std::nullopt;
  }
  switch (m->kind) {
    case mcp::Message::Kind::kResult:
    case mcp::Message::Kind::kError:
      return std::nullopt;  // we send no requests: nothing waits for these
    case mcp::Message::Kind::kNotification:
      if (m->method == "notifications/cancelled") {
        absl::StatusOr<json::Document> params = json::Parse(m->params.empty() ? "{}" : m->params);
        if (params.ok()) {
          if (std::optional<json::Value> id = Member(*params, "requestId")) {
            std::string key = json::WriteCanonical(*id);
            absl::MutexLock lock(&mu_);
            if (auto it = in_flight_.find(key); it != in_flight_.end()) {
              if (!it->second->HasBeenNotified()) it->second->Notify();
            }
          }
        }
      }
      return std::nullopt;
    case mcp::Message::Kind::kRequest:
      break;
  }
  if (m->method == "initialize") {
    send(mcp::ResultJson(m->id, Initialize(m->params)));
  } else if (m->method == "ping") {
    send(mcp::ResultJson(m->id, "{}"));
  } else if (m->method == "tools/list") {
    send(mcp::ResultJson(m->id, ToolsList()));
  } else if (m->method == "tools/call") {
    {
      absl::MutexLock lock(&mu_);
      if (shutting_down_) {
        send(mcp::ErrorJson(m->id, kInternalError, "the proxy is shutting down"));
        return std::nullopt;
      }
      if (in_flight_.size() >= max_in_flight_) {
        send(mcp::ErrorJson(m->id, kInternalError,
                            "too many calls in flight: wait for an answer before calling again"));
        return std::nullopt;
      }
    }
    return CallTask(m->id, m->params, std::move(send));
  } else {
    send(mcp::ErrorJson(m->id, mcp::kMethodNotFound, "method not found"));
  }
  return std::nullopt;
}

std::function<void()> HostFront::CallTask(std::string id, std::string params, Send send) {
  auto gone = std::make_shared<absl::Notification>();
  {
    absl::MutexLock lock(&mu_);
    in_flight_[id] = gone;
  }
  return [this, id = std::move(id), params = std::move(params), gone, send = std::move(send)] {
    auto done = [&](std::string line) {
      {
        absl::MutexLock lock(&mu_);
        in_flight_.erase(id);
      }
      send(std::move(line));
    };
    absl::StatusOr<json::Document> doc = json::Parse(params.empty() ? "{}" : params);
    std::optional<json::Value> name = doc.ok() ? Member(*doc, "name") : std::nullopt;
    if (!name || !name->is_string()) {
      done(mcp::ErrorJson(id, kInvalidParams, "tools/call needs a tool name"));
      return;
    }
    std::optional<json::Value> arguments = Member(*doc, "arguments");
    std::string args = arguments ? json::WriteCanonical(*arguments) : "";
    HostCall host;
    host.gone = gone.get();
    std::optional<json::Value> meta = Member(*doc, "_meta");
    std::optional<json::Value> token =
        meta && meta->is_object() ? meta->Find("progressToken") : std::nullopt;
    if (token) {
      std::string token_json = json::WriteCanonical(*token);
      host.progress = [send, token_json](double waited, double total) {
        send(mcp::NotificationJson("notifications/progress",
                                   json::JsonObject()
                                       .Raw("progressToken", token_json)
                                       .Raw("progress", absl::StrCat(waited))
                                       .Raw("total", absl::StrCat(total))
                                       .String("message", "waiting for an operator's approval")
                                       .Build()));
      };
    }
    Answer answer = proxy_.Call(name->string_value(), args, host);
    json::JsonObject result;
    result.Raw(
        "content",
        json::JsonArray(
            {json::JsonObject().String("type", "text").String("text", answer.text).Build()}));
    if (answer.is_error) result.Bool("isError", true);
    if (!answer.structured.empty()) result.Raw("structuredContent", answer.structured);
    done(mcp::ResultJson(id, result.Build()));
  };
}

std::size_t HostFront::in_flight() {
  absl::MutexLock lock(&mu_);
  return in_flight_.size();
}

void HostFront::Shutdown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  for (auto& [id, gone] : in_flight_) {
    if (!gone->HasBeenNotified()) gone->Notify();
  }
}

}  // namespace agentrt::proxy
