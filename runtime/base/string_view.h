// runtime/base/string_view.h
//
// Debian's Abseil is built with its own absl::string_view, a type distinct from
// std::string_view. agentrt's interfaces use std::string_view; these two conversions are the
// only bridge, used where a view crosses into Abseil (StrCat, Status messages) or back.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace agentrt {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view ToStd(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace agentrt
