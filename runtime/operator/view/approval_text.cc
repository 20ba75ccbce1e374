#include "runtime/operator/view/approval_text.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/operator/view/bound.h"
#include "runtime/operator/view/display.h"
#include "runtime/records/stored_forms.h"

namespace agentrt::view {
namespace {

constexpr std::string_view kArgumentsHeader = "arguments: the model's tool call";
constexpr std::string_view kPresentationHeader =
    "presentation: supplied by the consumer's policy and may contain model-chosen text";

// Appends `value` as JSON indented by two spaces a level (objects and arrays one member a
// line), with every string and key bounded.
void AppendPretty(json::Value value, int depth, std::string& out) {
  auto newline = [&](int level) {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(level) * 2, ' ');
  };
  switch (value.kind()) {
    case json::Kind::kString:
      json::AppendCanonicalString(BoundText(value.string_value()), out);
      return;
    case json::Kind::kArray:
      if (value.size() == 0) {
        out.append("[]");
        return;
      }
      out.push_back('[');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        newline(depth + 1);
        AppendPretty(value.element(i), depth + 1, out);
      }
      newline(depth);
      out.push_back(']');
      return;
    case json::Kind::kObject:
      if (value.size() == 0) {
        out.append("{}");
        return;
      }
      out.push_back('{');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        newline(depth + 1);
        json::AppendCanonicalString(BoundText(value.key(i)), out);
        out.append(": ");
        AppendPretty(value.member(i), depth + 1, out);
      }
      newline(depth);
      out.push_back('}');
      return;
    default:
      json::AppendCanonical(value, out);
      return;
  }
}

void AppendLine(std::string_view text, std::string& out) {
  out.append(json::Sanitize(text));
  out.push_back('\n');
}

// One field: "  <key> (<N> bytes)" and its bounded value, a line at a time, indented 4.
void AppendField(std::string_view key, json::Value value, std::string& out) {
  std::string whole = json::WriteCanonical(value);
  AppendLine(absl::StrCat("  ", ToAbsl(BoundText(key)), " (", whole.size(), " bytes)"), out);
  std::string pretty;
  AppendPretty(value, 0, pretty);
  for (absl::string_view line : absl::StrSplit(pretty, '\n')) {
    AppendLine(absl::StrCat("    ", line), out);
  }
}

// A section: its header, then its fields sorted by key; "(none)" when there is nothing,
// "(no fields)" for an empty object, a non-object value as the one field "value".
void AppendSection(std::string_view header, std::string_view raw, std::string& out) {
  out.append(header);
  out.push_back('\n');
  if (Blank(raw)) {
    out.append("  (none)\n");
    return;
  }
  absl::StatusOr<json::Document> document = json::Parse(raw);
  if (!document.ok()) {
    AppendLine(absl::StrCat("  (unreadable: ", raw.size(), " bytes that are not JSON)"), out);
    return;
  }
  json::Value root = document->root();
  if (!root.is_object()) {
    AppendField("value", root, out);
    return;
  }
  if (root.size() == 0) {
    out.append("  (no fields)\n");
    return;
  }
  // Members are kept sorted by key (document.h).
  for (std::size_t i = 0, n = root.size(); i < n; ++i)
    AppendField(root.key(i), root.member(i), out);
}

}  // namespace

std::string ApprovalStatusLabel(ApprovalStatus status) {
  if (status == ApprovalStatus::kPending) return "WAITING";
  return absl::AsciiStrToUpper(ToAbsl(ToString(status)));
}

std::string ApprovalTool(const Approval& approval) {
  absl::StatusOr<json::Document> request = json::Parse(approval.request);
  if (!request.ok()) return "";
  std::optional<json::Value> spec = request->root().Find("spec");
  if (!spec.has_value() || !spec->is_object()) return "";
  std::optional<json::Value> name = spec->Find("name");
  if (!name.has_value() || !name->is_string()) return "";
  return std::string(name->string_value());
}

std::string ApprovalText(const Approval& approval, const ApprovalTextOptions& options) {
  std::string out;
  std::string tool = BoundText(ApprovalTool(approval));
  std::string id = BoundText(approval.id);
  AppendLine(
      absl::StrCat("APPROVAL ",
                   DisplayStatus(ApprovalStatusLabel(approval.status), approval.unknown_status),
                   "  ", id),
      out);
  auto header = [&](std::string_view name, std::string_view value) {
    AppendLine(
        absl::StrCat(ToAbsl(name), std::string(9 - name.size(), ' '), ToAbsl(BoundText(value))),
        out);
  };
  header("run", approval.run_id);
  header("kind", approval.kind);
  header("tool", tool.empty() ? "-" : tool);
  if (!options.reason.empty()) header("reason", options.reason);
  header("hash", approval.hash);
  if (approval.expires_at != absl::InfinitePast()) {
    bool expired = options.now != absl::InfinitePast() && approval.expires_at <= options.now;
    header("expires", absl::StrCat(DisplayTime(approval.expires_at, options.zone),
                                   expired ? " (expired)" : ""));
  }
  if (approval.decided_at != absl::InfinitePast()) {
    header("decided", absl::StrCat(DisplayTime(approval.decided_at, options.zone), " by ",
                                   approval.decided_by.empty() ? "-" : approval.decided_by));
    if (!approval.note.empty()) header("note", approval.note);
  }
  std::string args;
  absl::StatusOr<json::Document> request = json::Parse(approval.request);
  std::vector<std::string> unread;
  if (request.ok()) {
    if (std::optional<json::Value> a = request->root().Find("args"); a.has_value()) {
      args = json::WriteCanonical(*a);
    }
  } else if (!Blank(approval.request)) {
    unread.push_back("request");
  }
  for (auto [name, raw] :
       {std::pair<std::string_view, const std::string*>{"capability", &approval.capability},
        {"presentation", &approval.presentation}}) {
    if (!Blank(*raw) && !json::Parse(*raw).ok()) unread.push_back(std::string(name));
  }
  if (!unread.empty()) {
    header("unread", absl::StrCat(absl::StrJoin(unread, ", "), ": not JSON"));
  }
  AppendSection(kArgumentsHeader, args, out);
  AppendSection(kPresentationHeader, approval.presentation, out);
  if (!options.trailer.empty()) AppendLine(options.trailer, out);
  AppendLine(
      absl::StrCat("----- end of approval ", id, " for tool ", tool.empty() ? "-" : tool, " -----"),
      out);
  return out;
}

}  // namespace agentrt::view
