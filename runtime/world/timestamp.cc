#include "runtime/world/timestamp.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::world {

namespace {
constexpr char kFormat[] = "%Y-%m-%d%ET%H:%M:%E9SZ";
}

std::string FormatTimestamp(absl::Time t) {
  if (t == ZeroTime()) return "";
  return absl::FormatTime(kFormat, t, absl::UTCTimeZone());
}

absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text) {
  if (text.empty()) return ZeroTime();
  absl::Time t;
  std::string error;
  if (text.size() != 30 ||
      !absl::ParseTime(kFormat, ToAbsl(text), absl::UTCTimeZone(), &t, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp \"", ToAbsl(text).substr(0, 64),
                     "\" is not of the form 2026-11-29T21:45:00.000000000Z"));
  }
  return t;
}

}  // namespace agentrt::world
