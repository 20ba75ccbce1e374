#include "runtime/operator/view/display.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt::view {

std::string DisplayTime(absl::Time t, absl::TimeZone zone) {
  if (t == absl::InfinitePast()) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S %z", t, zone);
}

std::string DisplayMoney(std::int64_t micros) {
  return absl::StrFormat("$%.4f", static_cast<double>(micros) / 1e6);
}

std::string DisplayStatus(std::string_view known, std::string_view unknown) {
  if (unknown.empty()) return std::string(known);
  return absl::StrCat(
      "UNKNOWN(\"", ToAbsl(json::Sanitize(json::Truncate(unknown, kMaxUnknownStatusBytes))), "\")");
}

}  // namespace agentrt::view
