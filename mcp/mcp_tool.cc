#include "mcp/mcp_tool.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "mcp/result_content.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {

absl::StatusOr<std::string> McpTool::Arguments(std::string_view args) const {
  std::string_view trimmed = ToStd(absl::StripAsciiWhitespace(ToAbsl(args)));
  std::map<std::string, std::string> members;  // name -> canonical JSON value
  if (!trimmed.empty() && trimmed != "null") {
    absl::StatusOr<json::Document> doc = json::Parse(trimmed);
    if (!doc.ok() || !doc->root().is_object()) {
      std::string why = doc.ok() ? "not an object" : std::string(doc.status().message());
      return absl::InvalidArgumentError(
          absl::StrCat(spec_.name, ": arguments are not a JSON object: ", why));
    }
    json::Value root = doc->root();
    for (std::size_t i = 0; i < root.size(); ++i) {
      members.emplace(std::string(root.key(i)), json::WriteCanonical(root.member(i)));
    }
  }
  for (const std::string& denied : rule_.deny) {
    if (members.contains(denied)) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec_.name, ": parameter ", Quote(denied), " is denied by the operator"));
    }
  }
  for (const auto& [name, value] : rule_.fixed) {
    if (members.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec_.name, ": parameter ", Quote(name), " is fixed by the operator"));
    }
  }
  for (const auto& [name, value] : rule_.fixed) members.emplace(name, value);
  json::JsonObject object;
  for (const auto& [name, value] : members) object.Raw(name, value);
  return object.Build();
}

absl::StatusOr<ToolResult> McpTool::Call(const ToolCall& call) {
  absl::StatusOr<std::string> arguments = Arguments(call.args);
  if (!arguments.ok()) return arguments.status();
  std::string params =
      json::JsonObject().String("name", remote_name_).Raw("arguments", *arguments).Build();
  absl::Time deadline = std::min(call.deadline, connection_->clock().Now() + spec_.timeout);
  absl::StatusOr<std::string> result =
      connection_->session().Request("tools/call", params, deadline);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat(ServerPrefix(connection_->server()), "tool ", Quote(remote_name_), ": ",
                     json::Sanitize(ToStd(result.status().message()))));
  }
  absl::StatusOr<MappedResult> mapped =
      MapCallResult(*result, connection_->server(), remote_name_, max_content_bytes_);
  if (!mapped.ok()) {
    return absl::Status(mapped.status().code(),
                        absl::StrCat(ServerPrefix(connection_->server()), "tool ",
                                     Quote(remote_name_), ": ", mapped.status().message()));
  }
  if (mapped->input_required) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec_.name, ": the server asked for more input, which this adapter does not support"));
  }
  if (mapped->is_error) return absl::UnknownError(mapped->error_text);
  return ToolResult{mapped->content, mapped->summary};
}

}  // namespace agentrt::mcp
