#include "sim/fake_server.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/document.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "sim/scenario_file.h"

namespace agentrt::sim {
namespace {

constexpr std::string_view kDefaultProtocol = "2025-11-25";

std::string Answer(std::string_view id, std::string_view result) {
  return absl::StrCat(R"({"jsonrpc":"2.0","id":)", ToAbsl(id), R"(,"result":)", ToAbsl(result),
                      "}");
}

bool InPhase(v1::Phase phase, ServerPhase now) {
  return phase == v1::BOTH || (phase == v1::PIN_ONLY && now == ServerPhase::kPin) ||
         (phase == v1::LOAD_ONLY && now == ServerPhase::kLoad);
}

std::string CallResult(const v1::Call& call) {
  if (!call.result_json().empty()) return call.result_json();
  std::string text = call.text_bytes() > 0 ? std::string(call.text_bytes(), 'x')
                     : call.text().empty() ? std::string("ok")
                                           : call.text();
  std::string content = absl::StrCat(R"([{"type":"text","text":)", json::JsonString(text), "}");
  if (!call.image_base64().empty()) {
    absl::StrAppend(&content, R"(,{"type":"image","mimeType":"image/png","data":)",
                    json::JsonString(call.image_base64()), "}");
  }
  content += "]";
  std::string result = absl::StrCat(R"({"content":)", content);
  if (!call.structured_json().empty()) {
    absl::StrAppend(&result, R"(,"structuredContent":)", call.structured_json());
  }
  if (call.is_error()) result += R"(,"isError":true)";
  return result + "}";
}

}  // namespace

std::string ErrorAnswer(std::string_view id, int code, std::string_view message) {
  return absl::StrCat(R"({"jsonrpc":"2.0","id":)", ToAbsl(id), R"(,"error":{"code":)", code,
                      R"(,"message":)", json::JsonString(message), "}}");
}

Perturber::Perturber(const google::protobuf::RepeatedPtrField<v1::Perturbation>& list) {
  for (const v1::Perturbation& p : list) by_answer_[p.at_answer()].MergeFrom(p);
}

v1::Perturbation Perturber::Next() {
  ++answers_;
  auto it = by_answer_.find(answers_);
  return it == by_answer_.end() ? v1::Perturbation() : it->second;
}

FakeServer::FakeServer(const v1::Server& config, Ledger* ledger, Perturber* perturber)
    : config_(config), ledger_(ledger), perturber_(perturber) {}

Reply FakeServer::Start() {
  Reply reply;
  const v1::Startup& startup = config_.startup();
  if (startup.exit() && InPhase(startup.phase(), phase_)) {
    reply.end = Reply::End::kExit;
    reply.exit_code = startup.exit_code();
    reply.stderr = startup.stderr();
  }
  return reply;
}

Reply FakeServer::Handle(std::string_view message) {
  absl::StatusOr<json::Document> doc = json::Parse(message);
  if (!doc.ok() || !doc->root().is_object()) {
    Reply reply;
    reply.lines.push_back(ErrorAnswer("null", -32700, "parse error"));
    reply.answered = true;
    return Perturbed(std::move(reply));
  }
  json::Value root = doc->root();
  std::optional<json::Value> id_value = root.Find("id");
  std::optional<json::Value> method_value = root.Find("method");
  // A notification, or the client's answer to a request of ours: nothing to say.
  if (!id_value || !method_value || !method_value->is_string()) {
    Reply reply;
    reply.notification = true;
    return reply;
  }
  std::string id = json::WriteCanonical(*id_value);
  std::string_view method = method_value->string_value();
  std::optional<json::Value> params = root.Find("params");
  auto param = [&](std::string_view key) -> std::optional<json::Value> {
    if (!params || !params->is_object()) return std::nullopt;
    return params->Find(key);
  };

  Reply reply;
  if (method == "initialize") {
    // Outside its phase the startup behaviour is the default one.
    v1::Startup startup;
    if (InPhase(config_.startup().phase(), phase_)) startup = config_.startup();
    for (const std::string& line : startup.before()) reply.lines.push_back(line);
    if (startup.hang()) return reply;
    std::string version = startup.protocol_version().empty() ? std::string(kDefaultProtocol)
                                                             : startup.protocol_version();
    reply.lines.push_back(Answer(
        id, json::JsonObject()
                .String("protocolVersion", version)
                .Raw("capabilities", startup.no_tools_capability() ? "{}" : R"({"tools":{}})")
                .Raw("serverInfo", json::JsonObject()
                                       .String("name", absl::StrCat("sim-", config_.name()))
                                       .String("version", "1.0.0")
                                       .Build())
                .Build()));
    reply.answered = true;
    return Perturbed(std::move(reply));
  }
  if (method == "tools/list") {
    std::optional<json::Value> cursor = param("cursor");
    return Perturbed(
        List(id, cursor && cursor->is_string() ? cursor->string_value() : std::string_view()));
  }
  if (method == "tools/call") {
    std::optional<json::Value> name = param("name");
    std::optional<json::Value> arguments = param("arguments");
    return CallTool(id, name && name->is_string() ? name->string_value() : "",
                    arguments ? json::WriteCanonical(*arguments) : "{}");
  }
  if (method == "ping") {
    reply.lines.push_back(Answer(id, "{}"));
  } else {
    reply.lines.push_back(
        ErrorAnswer(id, -32601, absl::StrCat("method not found: ", ToAbsl(method))));
  }
  reply.answered = true;
  return Perturbed(std::move(reply));
}

std::vector<FakeServer::ListedTool> FakeServer::LiveTools() const {
  std::vector<ListedTool> tools;
  for (const v1::Tool& tool : config_.tools()) {
    if (!InPhase(tool.phase(), phase_)) continue;
    if (tool.repeat() == 0) {
      tools.push_back({&tool, tool.name()});
    } else {
      for (std::uint32_t i = 0; i < tool.repeat(); ++i) {
        tools.push_back({&tool, absl::StrCat(tool.name(), i)});
      }
    }
  }
  return tools;
}

std::optional<std::vector<std::string>> FakeServer::OfferedNames() const {
  const v1::Listing* listing = LiveListing();
  if (listing != nullptr && !listing->raw_pages().empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const ListedTool& listed : LiveTools()) names.push_back(listed.name);
  return names;
}

const v1::Listing* FakeServer::LiveListing() const {
  for (const v1::Listing& listing : config_.listings()) {
    if (InPhase(listing.phase(), phase_)) return &listing;
  }
  return nullptr;
}

std::string FakeServer::ToolJson(const ListedTool& listed) const {
  const v1::Tool& tool = *listed.tool;
  if (!tool.raw_json().empty() && tool.repeat() == 0) return tool.raw_json();
  std::string out = absl::StrCat(R"({"name":)", json::JsonString(listed.name));
  if (!tool.description().empty()) {
    absl::StrAppend(&out, R"(,"description":)", json::JsonString(tool.description()));
  }
  absl::StrAppend(
      &out, R"(,"inputSchema":)",
      tool.input_schema_json().empty() ? R"({"type":"object"})" : tool.input_schema_json());
  if (!tool.annotations_json().empty()) {
    absl::StrAppend(&out, R"(,"annotations":)", tool.annotations_json());
  }
  return out + "}";
}

Reply FakeServer::List(std::string_view id, std::string_view cursor) {
  Reply reply;
  reply.answered = true;
  const v1::Listing* listing = LiveListing();
  if (listing != nullptr && !listing->raw_pages().empty()) {
    if (cursor.empty()) raw_page_ = 0;
    std::size_t page = std::min<std::size_t>(raw_page_++, listing->raw_pages_size() - 1);
    reply.lines.push_back(Answer(id, listing->raw_pages(static_cast<int>(page))));
    return reply;
  }
  std::vector<ListedTool> tools = LiveTools();
  std::size_t size = listing != nullptr && listing->page_size() > 0
                         ? listing->page_size()
                         : std::max<std::size_t>(tools.size(), 1);
  std::size_t tool_pages = (tools.size() + size - 1) / size;
  std::size_t pages =
      std::max<std::size_t>(tool_pages, 1) + (listing != nullptr ? listing->extra_pages() : 0);
  std::size_t page = 0;
  if (!cursor.empty()) {
    if (cursor.size() < 2 || cursor[0] != 'c' ||
        !absl::SimpleAtoi(ToAbsl(cursor.substr(1)), &page) || page == 0 || page >= pages) {
      reply.lines.push_back(ErrorAnswer(id, -32602, "invalid cursor"));
      return reply;
    }
  }
  std::string list = "[";
  for (std::size_t i = page * size; i < tools.size() && i < (page + 1) * size; ++i) {
    if (list.size() > 1) list += ",";
    list += ToolJson(tools[i]);
  }
  list += "]";
  std::string result = absl::StrCat(R"({"tools":)", list);
  if (page + 1 < pages) {
    absl::StrAppend(&result, R"(,"nextCursor":"c)", page + 1, "\"");
  } else if (listing != nullptr && listing->loop()) {
    result += R"(,"nextCursor":"c1")";
  }
  reply.lines.push_back(Answer(id, result + "}"));
  return reply;
}

Reply FakeServer::CallTool(std::string_view id, std::string_view name, std::string arguments) {
  Reply reply;
  const v1::Tool* tool = nullptr;
  for (const ListedTool& listed : LiveTools()) {
    if (listed.name == name) tool = listed.tool;
  }
  if (tool == nullptr) {
    reply.lines.push_back(ErrorAnswer(id, -32602, absl::StrCat("unknown tool: ", ToAbsl(name))));
    reply.answered = true;
    return Perturbed(std::move(reply));
  }
  ledger_->effects.push_back(
      Effect{config_.name(), std::string(name), std::move(arguments), ledger_->restarted});
  if (ledger_->on_call) ledger_->on_call(ledger_->effects.size());
  std::size_t n = calls_[std::string(name)]++;
  v1::Call call;
  if (!tool->calls().empty()) {
    call = tool->calls(static_cast<int>(std::min<std::size_t>(n, tool->calls_size() - 1)));
  }
  for (const std::string& line : call.before()) reply.lines.push_back(line);
  reply.delay = ScenarioDuration(call.delay());
  switch (call.action()) {
    case v1::Call::HANG:
      return reply;
    case v1::Call::CRASH:
      reply.end = Reply::End::kCrash;
      return reply;
    case v1::Call::EXIT:
      reply.end = Reply::End::kExit;
      reply.exit_code = call.exit_code();
      reply.stderr = call.stderr();
      return reply;
    case v1::Call::WRONG_ID:
      reply.lines.push_back(Answer("987654321", CallResult(call)));
      return reply;
    case v1::Call::INPUT_REQUIRED:
      reply.lines.push_back(Answer(id, R"({"resultType":"input_required","content":[]})"));
      break;
    default:
      reply.lines.push_back(Answer(id, CallResult(call)));
      break;
  }
  reply.stderr = call.stderr();
  reply.answered = true;
  return Perturbed(std::move(reply));
}

Reply FakeServer::Perturbed(Reply reply) {
  v1::Perturbation p = perturber_->Next();
  reply.delay += ScenarioDuration(p.delay());
  reply.clock_jump = ScenarioDuration(p.clock_jump());
  if (p.garbage_before()) reply.lines.insert(reply.lines.begin(), "this is not JSON-RPC");
  if (p.stderr_noise()) reply.stderr += "sim: noise on stderr\n";
  if (p.partial_write()) reply.partial = true;
  if (p.drop()) {
    reply.lines.pop_back();
    reply.answered = false;
    reply.end = Reply::End::kCrash;
  }
  if (p.reorder() && reply.answered && reply.lines.size() > 1) {
    std::rotate(reply.lines.begin(), reply.lines.end() - 1, reply.lines.end());
    reply.answer_first = true;
  }
  return reply;
}

}  // namespace agentrt::sim
