#include "runtime/render/decide.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::render {
namespace {

constexpr std::string_view kElided = ", …";

// "[K further tool call(s) not executed: a, b, …]" within kNoteBytes: each name cut to
// kNameBytes; a name that would leave no room for the elision mark is replaced by it.
std::string FurtherCallsNote(const std::vector<ToolUse>& uses) {
  const std::string prefix =
      absl::StrCat("[", uses.size() - 1, " further tool call(s) not executed: ");
  constexpr std::string_view kSuffix = "]";
  const std::size_t budget = kNoteBytes - prefix.size() - kSuffix.size();
  std::string names;
  for (std::size_t i = 1; i < uses.size(); ++i) {
    std::string piece = absl::StrCat(i > 1 ? ", " : "", json::Truncate(uses[i].name, kNameBytes));
    // Unless this is the last name, the mark must still fit after it.
    const std::size_t reserve = i + 1 == uses.size() ? 0 : kElided.size();
    if (names.size() + piece.size() + reserve > budget) {
      names += names.empty() ? kElided.substr(2) : kElided;
      break;
    }
    names += piece;
  }
  return absl::StrCat(prefix, names, ToAbsl(kSuffix));
}

Decision Fail(std::string_view message) {
  Decision d;
  d.kind = ToString(DecisionKind::kFail);
  d.message = std::string(message);
  return d;
}

}  // namespace

Decision Decide(const ModelResponse& response) {
  if (response.stop_reason == stop_reason::kRefusal) return Fail(kRefusalMessage);
  if (response.stop_reason == stop_reason::kContextWindowExceeded) {
    return Fail(kContextWindowMessage);
  }
  Decision d;
  if (response.stop_reason == stop_reason::kMaxTokens) {
    d.kind = ToString(DecisionKind::kTruncated);
    d.reason = std::string(kTruncatedReason);
    return d;
  }
  const std::string_view text = ToStd(absl::StripAsciiWhitespace(ToAbsl(response.text)));
  if (response.tool_uses.empty()) {
    d.kind = ToString(DecisionKind::kNoToolCall);
    d.reason = json::Truncate(text, kReasonBytes);
    return d;
  }
  const ToolUse& first = response.tool_uses.front();
  d.kind = ToString(DecisionKind::kToolCall);
  d.tool = first.name;
  d.args = first.args.empty() ? "{}" : first.args;
  if (response.tool_uses.size() == 1) {
    d.reason = json::Truncate(text, kReasonBytes);
    return d;
  }
  const std::string note = FurtherCallsNote(response.tool_uses);
  // The text and the note are joined by one space; the whole stays within kReasonBytes.
  const std::string kept = json::Truncate(text, kReasonBytes - static_cast<int>(note.size()) - 1);
  d.reason = kept.empty() ? note : absl::StrCat(kept, " ", note);
  return d;
}

}  // namespace agentrt::render
