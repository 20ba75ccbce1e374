#include "tools/agentrt/operator_io.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/operator/view/approval_text.h"
#include "runtime/world/clock.h"
#include "tools/agentrt/command_line.h"

namespace agentrt::cli {

Answer Ask(Io& io, std::string_view question) {
  io.out << question << " [y/N] " << std::flush;
  std::string line;
  bool newline = false;
  char c;
  // Read byte by byte up to the line's end, keeping at most 64 bytes: an endless line (a
  // device that never sends one) must not fill memory.
  while (io.in.get(c)) {
    if (c == '\n') {
      newline = true;
      break;
    }
    if (line.size() < 64) line.push_back(c);
  }
  if (!newline && line.empty()) {
    io.out << "\n";
    return Answer::kNoAnswer;
  }
  std::string answer = absl::AsciiStrToLower(absl::StripAsciiWhitespace(line));
  return answer == "y" || answer == "yes" ? Answer::kYes : Answer::kNo;
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out.append("'\\''");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string ShellWord(std::string_view text) {
  if (text.empty()) return "''";
  for (char c : text) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("._-/:@+=,").find(c) == std::string_view::npos) {
      return ShellQuote(text);
    }
  }
  return std::string(text);
}

std::string WaitingApprovalBlock(const Approval& approval, std::string_view db_path) {
  view::ApprovalTextOptions options;
  options.now = world::RealClock().Now();
  options.zone = absl::LocalTimeZone();
  if (!db_path.empty()) {
    options.trailer =
        absl::StrCat("decide with: agentrt approve ", ToAbsl(ShellWord(approval.run_id)), " --db ",
                     ToAbsl(ShellQuote(db_path)), " --approval ", ToAbsl(ShellWord(approval.id)));
  }
  return view::ApprovalText(approval, options);
}

absl::StatusOr<std::string> Who(const std::string& by) {
  if (!by.empty()) return by;
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  return absl::InvalidArgumentError("who decides is unknown: pass --by NAME (USER is not set)");
}

absl::StatusOr<Page> PageFlags(Page page, bool allow_zero_limit) {
  if (page.limit < 0 || (page.limit == 0 && !allow_zero_limit)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--limit must be ", allow_zero_limit ? "0 (everything) or more" : "at least 1"));
  }
  if (page.offset < 0) return absl::InvalidArgumentError("--offset must be 0 or more");
  return page;
}

std::string MorePage(std::string_view noun, std::int64_t shown, std::int64_t offset,
                     std::int64_t total) {
  std::int64_t next = offset + shown;
  if (next >= total) return "";
  return absl::StrCat("... ", total - next, " more ", ToAbsl(noun), "(s); rerun with --offset ",
                      next, " to see them (showing ", shown, " of ", total, ")");
}

}  // namespace agentrt::cli
