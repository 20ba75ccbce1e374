#include "mcp/result_content.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/utf8.h"

namespace agentrt::mcp {
namespace {

constexpr std::string_view kWhat = "the tools/call result";

// The bytes the canonical encoder writes for one character.
std::size_t EncodedSize(char32_t cp, int length) {
  switch (cp) {
    case '"':
    case '\\':
    case '\b':
    case '\f':
    case '\n':
    case '\r':
    case '\t':
      return 2;
    default:
      return cp < 0x20 ? 6 : static_cast<std::size_t>(length);
  }
}

std::string_view Placeholder(std::string_view type) {
  if (type == "image") return "[image omitted]";
  if (type == "audio") return "[audio omitted]";
  if (type == "resource_link") return "[resource link omitted]";
  if (type == "resource") return "[embedded resource omitted]";
  return "[content omitted]";
}

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kWhat), "'s ", ToAbsl(what)));
}

// The text of the content blocks, joined with newlines.
absl::StatusOr<std::string> BlocksText(json::Value root) {
  std::optional<json::Value> content = root.Find("content");
  if (!content || content->is_null()) return std::string();
  if (!content->is_array()) return Malformed("\"content\" is not an array");
  std::string text;
  for (std::size_t i = 0; i < content->size(); ++i) {
    json::Value block = content->element(i);
    if (!block.is_object()) return Malformed(absl::StrCat("content[", i, "] is not a JSON object"));
    if (i > 0) text.push_back('\n');
    std::optional<json::Value> type = block.Find("type");
    std::string_view kind = type && type->is_string() ? type->string_value() : "";
    if (kind == "text") {
      std::optional<json::Value> t = block.Find("text");
      if (!t || !t->is_string()) {
        return Malformed(absl::StrCat("content[", i, "] is a text block without text"));
      }
      absl::StrAppend(&text, ToAbsl(t->string_value()));
    } else {
      absl::StrAppend(&text, ToAbsl(Placeholder(kind)));
    }
  }
  return text;
}

bool InputRequired(json::Value root) {
  std::optional<json::Value> type = root.Find("resultType");
  if (type && type->is_string() && type->string_value() == "input_required") return true;
  std::optional<json::Value> requests = root.Find("inputRequests");
  return requests && !requests->is_null();
}

}  // namespace

CappedText CapText(std::string_view text, std::size_t cap) {
  CappedText out;
  out.json = json::JsonString(text);
  if (out.json.size() <= cap) {
    out.text = std::string(text);
    return out;
  }
  const std::size_t max = std::max(cap, kSmallestCap);
  const std::size_t fixed = kSmallestCap;  // the quotes and the escaped marker
  // Walk character by character while the prefix, the marker and the quotes still fit. A byte
  // that is not UTF-8 is a character of its own; a run of them encodes as one U+FFFD.
  std::size_t cut = 0;
  std::size_t encoded = 0;
  bool in_bad_run = false;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t cp;
    int length = json::DecodeUtf8(text, pos, &cp);
    std::size_t cost = 0;
    std::size_t next = pos;
    if (length > 0) {
      cost = EncodedSize(cp, length);
      next += static_cast<std::size_t>(length);
    } else {
      cost = in_bad_run ? 0 : 3;
      next += 1;
    }
    if (next > max || fixed + encoded + cost > max) break;
    in_bad_run = length == 0;
    encoded += cost;
    cut = next;
    pos = next;
  }
  out.text = absl::StrCat(ToAbsl(text.substr(0, cut)), ToAbsl(kTruncationMarker));
  out.json = json::JsonString(out.text);
  out.truncated = true;
  assert(out.json.size() == fixed + encoded);
  return out;
}

absl::StatusOr<MappedResult> MapCallResult(std::string_view result_json, std::string_view server,
                                           std::string_view remote_tool, std::size_t cap) {
  if (cap == 0) cap = kDefaultMaxContentBytes;
  absl::StatusOr<json::Document> document = json::Parse(result_json);
  if (!document.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kWhat), ": ", document.status().message()));
  }
  json::Value root = document->root();
  if (!root.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kWhat), " is not a JSON object"));
  }
  MappedResult result;
  if (InputRequired(root)) {
    result.input_required = true;
    return result;
  }
  if (std::optional<json::Value> e = root.Find("isError"); e && !e->is_null()) {
    if (!e->is_bool()) return Malformed("\"isError\" is not a boolean");
    result.is_error = e->bool_value();
  }
  std::string text;
  bool truncated = false;
  std::size_t dropped = 0;
  std::optional<json::Value> structured = root.Find("structuredContent");
  if (structured && !structured->is_null()) {
    std::string canonical = json::WriteCanonical(*structured);
    if (canonical.size() <= cap) {
      text = canonical;
      result.content = std::move(canonical);
    } else {
      dropped = canonical.size();
    }
  }
  if (result.content.empty()) {
    absl::StatusOr<std::string> blocks = BlocksText(root);
    if (!blocks.ok()) return blocks.status();
    if (dropped > 0 && blocks->empty()) *blocks = std::string(kStructuredDropped);
    CappedText capped = CapText(*blocks, cap);
    result.content = std::move(capped.json);
    text = std::move(capped.text);
    truncated = capped.truncated || dropped > 0;
  }
  result.summary =
      absl::StrCat(ToAbsl(server), "/", ToAbsl(remote_tool), ": ", result.content.size(), " bytes");
  if (truncated) absl::StrAppend(&result.summary, ", truncated");
  if (dropped > 0) {
    absl::StrAppend(&result.summary, ", structured content of ", dropped,
                    " bytes dropped for the text");
  }
  if (result.is_error) result.error_text = absl::StrCat(result.summary, ", error: ", text);
  return result;
}

}  // namespace agentrt::mcp
