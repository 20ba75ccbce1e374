#include "runtime/operator/view/display.h"

#include "absl/strings/str_format.h"

namespace agentrt::view {

std::string DisplayTime(absl::Time t, absl::TimeZone zone) {
  if (t == absl::InfinitePast()) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S %z", t, zone);
}

std::string DisplayMoney(std::int64_t micros) {
  return absl::StrFormat("$%.4f", static_cast<double>(micros) / 1e6);
}

}  // namespace agentrt::view
