// fuzz/printable.h
//
// The fuzzers' check that an error a hostile input provoked is safe to show: one non-empty
// line of valid UTF-8 with no C0 or C1 control, no bidi override or isolate, no zero-width
// character, no line or paragraph separator and no byte order mark. Aborts otherwise.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "runtime/json/utf8.h"

namespace agentrt::fuzz {

inline void CheckPrintable(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  if (message.empty()) std::abort();
  if (!json::IsValidUtf8(message)) std::abort();
  for (std::size_t pos = 0; pos < message.size();) {
    char32_t cp;
    int length = json::DecodeUtf8(message, pos, &cp);
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) std::abort();
    if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
        (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff) {
      std::abort();
    }
    pos += static_cast<std::size_t>(length);
  }
}

}  // namespace agentrt::fuzz
