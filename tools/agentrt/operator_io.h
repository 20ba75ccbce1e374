// tools/agentrt/operator_io.h
//
// What the operator commands (runs, show, approve, reject, cancel) share about talking to a
// person: asking at a terminal, quoting a path so it can be pasted back into a shell, and the
// block that shows a waiting approval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/types.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/io.h"

namespace agentrt::cli {

enum class Answer { kYes, kNo, kNoAnswer };

// Ask writes `question` and " [y/N] " to `io.out` and reads one line from `io.in` (at most 64
// bytes are looked at): "y" or "yes" in any case is kYes, end of input before a line is
// kNoAnswer, anything else kNo. A command asks only when `io.in_is_terminal`.
Answer Ask(Io& io, std::string_view question);

// ShellQuote quotes `text` for a POSIX shell with single quotes ('it'\''s'). ShellWord leaves
// a word of only letters, digits and ._-/:@+=, bare.
std::string ShellQuote(std::string_view text);
std::string ShellWord(std::string_view text);

// WaitingApprovalBlock is the APPROVAL WAITING block for a terminal (view/approval_text.h),
// times in the local zone, "(expired)" judged by the real clock, and, when `db_path` is not
// empty, the "decide with: agentrt approve ..." line.
std::string WaitingApprovalBlock(const Approval& approval, std::string_view db_path);

// Who is the deciding operator's name: `by` when given, else $USER; InvalidArgument when
// neither is set.
absl::StatusOr<std::string> Who(const std::string& by);

// PageFlags checks a listing's --limit and --offset (as parsed into `page`, which holds the
// command's defaults): both must be non-negative; `allow_zero_limit` admits --limit 0
// (everything). InvalidArgument otherwise.
struct Page {
  std::int64_t limit = 0;
  std::int64_t offset = 0;
};
absl::StatusOr<Page> PageFlags(Page page, bool allow_zero_limit);

// MorePage is the line that says what a page left out: "... K more <noun>(s); rerun with
// --offset X to see them (showing a of t)", or "" when nothing follows the page.
std::string MorePage(std::string_view noun, std::int64_t shown, std::int64_t offset,
                     std::int64_t total);

}  // namespace agentrt::cli
