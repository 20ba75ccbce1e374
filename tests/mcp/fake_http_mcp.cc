#include "tests/mcp/fake_http_mcp.h"

#include "absl/strings/str_cat.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"

namespace agentrt::mcp::testing {
namespace {

std::string ResultMessage(const std::string& id, const std::string& result) {
  return json::JsonObject().String("jsonrpc", "2.0").Raw("id", id).Raw("result", result).Build();
}

}  // namespace

std::vector<FakeHttpMcp::Seen> FakeHttpMcp::seen() const {
  absl::MutexLock lock(&mu_);
  return seen_;
}

int FakeHttpMcp::sessions_started() const {
  absl::MutexLock lock(&mu_);
  return sessions_;
}

world::ServerResponse FakeHttpMcp::Answer(const std::string& id, const std::string& result) {
  std::string message = ResultMessage(id, result);
  if (!options_.sse) return {200, {{"Content-Type", "application/json"}}, message};
  // A priming event (an id, no data), a decoy of another type, then the message.
  std::string body = absl::StrCat(
      "id: ev-0\ndata: \n\n", "event: other\ndata: ", ResultMessage(id, R"({"decoy":true})"),
      "\n\n", "event:", options_.message_event, "\nid: ev-1\ndata: ", message, "\n\n");
  return {200, {{"Content-Type", "text/event-stream"}}, body};
}

world::ServerResponse FakeHttpMcp::Serve(const world::ServerRequest& request) {
  absl::MutexLock lock(&mu_);
  seen_.push_back({request.method, request.headers, request.body});
  std::optional<std::string> session = request.Header("Mcp-Session-Id");
  if (request.method == "DELETE") return {200, {}, ""};
  if (request.method == "GET") {
    // Resuming a cut stream: what it owed, after the event it last gave.
    if (request.Header("Last-Event-ID") != "ev-cut" || held_.empty()) return {404, {}, ""};
    std::string body = absl::StrCat("event: message\nid: ev-2\ndata: ", held_, "\n\n");
    held_.clear();
    return {200, {{"Content-Type", "text/event-stream"}}, body};
  }
  if (!options_.redirect_to.empty()) {
    return {307, {{"Location", options_.redirect_to}}, ""};
  }
  if (session && ++with_session_ == options_.forget_session_at) return {404, {}, ""};
  absl::StatusOr<json::Document> doc = json::Parse(request.body);
  if (!doc.ok()) return {400, {}, "not JSON"};
  std::optional<json::Value> id = doc->root().Find("id");
  std::optional<json::Value> method = doc->root().Find("method");
  if (!method) return {202, {}, ""};  // a response of the client's
  if (!id) return {202, {}, ""};      // a notification
  std::string id_json = json::WriteCanonical(*id);
  std::string name(method->string_value());
  if (name == "initialize") {
    ++sessions_;
    world::ServerResponse answer =
        Answer(id_json, R"({"capabilities":{"tools":{}},"protocolVersion":"2025-11-25",)"
                        R"("serverInfo":{"name":"fake-http","version":"1"}})");
    answer.headers.emplace_back("Mcp-Session-Id", absl::StrCat("session-", sessions_));
    return answer;
  }
  if (name == "tools/list") {
    std::string description =
        options_.huge_description > 0 ? std::string(options_.huge_description, 'd') : "Read.";
    return Answer(id_json,
                  absl::StrCat(R"({"tools":[{"description":)", json::JsonString(description),
                               R"(,"inputSchema":)", options_.schema, R"(,"name":"read_file"}]})"));
  }
  if (name == "tools/call") {
    const std::string& result = options_.call_result;
    if (options_.cut_first_call && !cut_) {
      cut_ = true;
      held_ = ResultMessage(id_json, result);
      // A stream that ends after a priming event naming a retry, without the response.
      return {200, {{"Content-Type", "text/event-stream"}}, "retry: 50\nid: ev-cut\ndata: \n\n"};
    }
    return Answer(id_json, result);
  }
  return {200,
          {{"Content-Type", "application/json"}},
          json::JsonObject()
              .String("jsonrpc", "2.0")
              .Raw("id", id_json)
              .Raw("error", R"({"code":-32601,"message":"not here"})")
              .Build()};
}

}  // namespace agentrt::mcp::testing
