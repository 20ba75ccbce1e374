#include "mcp/report.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/json_object.h"
#include "runtime/json/sanitize.h"

namespace agentrt::mcp {
namespace {

using json::Sanitize;

std::string StringList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) out.push_back(',');
    out += json::JsonString(item);
  }
  out.push_back(']');
  return out;
}

}  // namespace

std::string Report::Text() const {
  std::string out;
  const std::string server_text = Sanitize(server);
  for (const Registered& r : registered) {
    absl::StrAppend(&out, server_text, ": registered ", Sanitize(r.tool), " as ", Sanitize(r.name),
                    " (", Sanitize(ToString(r.side_effect)), ")");
    if (!r.hint_mismatch.empty()) {
      absl::StrAppend(&out, " [hint mismatch allowed: ", Sanitize(r.hint_mismatch), "]");
    }
    out.push_back('\n');
  }
  for (const Refused& r : refused) {
    absl::StrAppend(&out, server_text, ": refused ", Sanitize(r.tool), ": ", Sanitize(r.reason),
                    "\n");
  }
  for (const std::string& tool : unclassified) {
    absl::StrAppend(&out, server_text, ": unclassified ", Sanitize(tool), ": no rule\n");
  }
  for (const std::string& tool : unpinned) {
    absl::StrAppend(&out, server_text, ": unpinned ", Sanitize(tool), ": not in the manifest\n");
  }
  return out;
}

std::string Report::Json() const {
  json::JsonObject top;
  top.String("server", server);
  if (!registered.empty()) {
    std::string list = "[";
    for (const Registered& r : registered) {
      if (list.size() > 1) list.push_back(',');
      json::JsonObject entry;
      entry.String("tool", r.tool)
          .String("name", r.name)
          .String("side_effect", ToString(r.side_effect))
          .StringIfSet("hint_mismatch", r.hint_mismatch);
      list += entry.Build();
    }
    list.push_back(']');
    top.Raw("registered", list);
  }
  if (!refused.empty()) {
    std::string list = "[";
    for (const Refused& r : refused) {
      if (list.size() > 1) list.push_back(',');
      list += json::JsonObject().String("tool", r.tool).String("reason", r.reason).Build();
    }
    list.push_back(']');
    top.Raw("refused", list);
  }
  if (!unpinned.empty()) top.Raw("unpinned", StringList(unpinned));
  if (!unclassified.empty()) top.Raw("unclassified", StringList(unclassified));
  return top.Build();
}

}  // namespace agentrt::mcp
