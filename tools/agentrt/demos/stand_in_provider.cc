#include "tools/agentrt/demos/stand_in_provider.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"

namespace agentrt::cli {
namespace {

world::ServerResponse Json(int status, std::string body) {
  return {status, {{"Content-Type", "application/json"}}, std::move(body)};
}

world::ServerResponse Error(int status, std::string_view message) {
  return Json(status, json::JsonObject()
                          .Raw("error", json::JsonObject()
                                            .String("type", "invalid_request_error")
                                            .String("message", message)
                                            .Build())
                          .Build());
}

// The next tool call of the script, by how many tool results the conversation holds.
struct Step {
  const char* name;
  const char* arguments;
  const char* thought;
};
constexpr Step kScript[] = {
    {"read_file", R"({"path":"/etc/hosts"})", "I will read the hosts file first."},
    {"send_report", R"({"summary":"localhost is 127.0.0.1"})", "I will tell the team."},
    {"finish", R"({"summary":"localhost is 127.0.0.1; the team was told"})", "Done."},
};

}  // namespace

std::optional<world::ServerResponse> StandInProvider::Admit(const world::ServerRequest& head) {
  if (head.method != "POST" || head.path != "/v1/chat/completions") {
    return Error(404, "the stand-in serves only POST /v1/chat/completions");
  }
  return std::nullopt;
}

world::ServerResponse StandInProvider::Serve(const world::ServerRequest& request) {
  absl::StatusOr<json::Document> doc = json::Parse(request.body);
  if (!doc.ok() || !doc->root().is_object()) return Error(400, "the body is not a JSON object");
  std::optional<json::Value> messages = doc->root().Find("messages");
  if (!messages || !messages->is_array()) return Error(400, "the body has no messages");
  std::size_t results = 0;
  std::size_t prompt = request.body.size() / 4;  // a provider's count is its own; this is ours
  for (std::size_t i = 0; i < messages->size(); ++i) {
    std::optional<json::Value> role = messages->element(i).Find("role");
    if (role && role->is_string() && role->string_value() == "tool") ++results;
  }
  const Step& step = kScript[std::min(results, std::size(kScript) - 1)];
  std::string call_id = absl::StrCat("call_stand_in_", results + 1);
  std::string call = json::JsonObject()
                         .String("id", call_id)
                         .String("type", "function")
                         .Raw("function", json::JsonObject()
                                              .String("name", step.name)
                                              .String("arguments", step.arguments)
                                              .Build())
                         .Build();
  std::string message = json::JsonObject()
                            .String("role", "assistant")
                            .String("content", step.thought)
                            .Raw("tool_calls", json::JsonArray({call}))
                            .Build();
  std::string choice = json::JsonObject()
                           .Int("index", 0)
                           .Raw("message", message)
                           .String("finish_reason", "tool_calls")
                           .Build();
  std::string usage = json::JsonObject()
                          .Int("prompt_tokens", static_cast<std::int64_t>(prompt))
                          .Int("completion_tokens", 24)
                          .Int("total_tokens", static_cast<std::int64_t>(prompt) + 24)
                          .Build();
  std::optional<json::Value> model = doc->root().Find("model");
  return Json(200,
              json::JsonObject()
                  .String("id", absl::StrCat("chatcmpl-stand-in-", results + 1))
                  .String("object", "chat.completion")
                  .Int("created", 1767225600)
                  .String("model", model && model->is_string() ? model->string_value() : "stand-in")
                  .Raw("choices", json::JsonArray({choice}))
                  .Raw("usage", usage)
                  .Build());
}

world::ServerResponse StandInProvider::Refused(const world::ServerRequest& head, int status) {
  return Error(status, "refused by the stand-in's transport");
}

}  // namespace agentrt::cli
