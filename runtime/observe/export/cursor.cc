#include "runtime/observe/export/cursor.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::exporter {
namespace {

// A cursor file holds at most 19 digits and a newline; anything much longer is not one.
constexpr std::size_t kMaxCursorBytes = 64;

absl::Status CheckSeq(std::int64_t seq) {
  if (seq < 0) return absl::InvalidArgumentError(absl::StrCat("a cursor seq is >= 0, not ", seq));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::int64_t> FileCursor::Load() {
  absl::StatusOr<std::string> read = files_.ReadFile(path_, kMaxCursorBytes);
  if (absl::IsNotFound(read.status())) return 0;
  if (absl::IsOutOfRange(read.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cursor file ", path_, " holds more than ", kMaxCursorBytes,
                     " bytes, not a seq (decimal digits and a newline)"));
  }
  if (!read.ok()) {
    return absl::Status(read.status().code(),
                        absl::StrCat("cursor file ", path_, ": ", read.status().message()));
  }
  const std::string& content = *read;
  std::string_view digits = content;
  if (!digits.empty() && digits.back() == '\n') digits.remove_suffix(1);
  std::int64_t seq = 0;
  bool all_digits = !digits.empty();
  for (char c : digits)
    all_digits = all_digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
  if (!digits.empty() && digits[0] == '-' && absl::SimpleAtoi(ToAbsl(digits), &seq) && seq < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cursor file ", path_, " holds ", seq, ", and a seq is never negative"));
  }
  if (!all_digits || !absl::SimpleAtoi(ToAbsl(digits), &seq)) {
    return absl::InvalidArgumentError(absl::StrCat("cursor file ", path_, " holds \"",
                                                   json::Sanitize(content),
                                                   "\", not a seq (decimal digits and a newline)"));
  }
  return seq;
}

absl::Status FileCursor::Save(std::int64_t seq) {
  if (absl::Status valid = CheckSeq(seq); !valid.ok()) return valid;
  return files_.WriteAtomically(path_, absl::StrCat(seq, "\n"), "cursor file");
}

absl::StatusOr<std::int64_t> MemCursor::Load() { return seq_; }

absl::Status MemCursor::Save(std::int64_t seq) {
  if (absl::Status valid = CheckSeq(seq); !valid.ok()) return valid;
  seq_ = seq;
  return absl::OkStatus();
}

}  // namespace agentrt::exporter
