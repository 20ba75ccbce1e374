#include "mcp/duration.h"

#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mcp/errors.h"
#include "runtime/base/string_view.h"

namespace agentrt::mcp {
namespace {

constexpr std::uint64_t kNanosPerSecond = 1'000'000'000;
constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;  // |d| of an int64 nanosecond count

std::uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;  // µ, μ
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return kNanosPerSecond;
  if (unit == "m") return 60 * kNanosPerSecond;
  if (unit == "h") return 3600 * kNanosPerSecond;
  return 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Appends the fractional part of v / 10^precision without trailing zeros (and without the dot
// when it is zero), returning v / 10^precision. Digits are produced last first, like the
// integer part, so the caller builds the text from the right.
std::uint64_t TakeFraction(std::uint64_t v, int precision, std::string& reversed) {
  bool printed = false;
  for (int i = 0; i < precision; ++i) {
    int digit = static_cast<int>(v % 10);
    printed = printed || digit != 0;
    if (printed) reversed.push_back(static_cast<char>('0' + digit));
    v /= 10;
  }
  if (printed) reversed.push_back('.');
  return v;
}

void TakeInteger(std::uint64_t v, std::string& reversed) {
  do {
    reversed.push_back(static_cast<char>('0' + v % 10));
    v /= 10;
  } while (v > 0);
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDurationText(std::string_view text) {
  auto invalid = [&](std::string_view why = "") {
    return absl::InvalidArgumentError(absl::StrCat("invalid duration ", Quote(text), ToAbsl(why)));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return absl::ZeroDuration();
  if (s.empty()) return invalid();
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!(s.front() == '.' || IsDigit(s.front()))) return invalid();
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    for (; digits < s.size() && IsDigit(s[digits]); ++digits) {
      if (whole > (kLimit - 1) / 10) return invalid(": out of range");
      whole = whole * 10 + static_cast<std::uint64_t>(s[digits] - '0');
      if (whole > kLimit) return invalid(": out of range");
    }
    s.remove_prefix(digits);
    bool has_whole = digits > 0;
    bool has_fraction = false;
    std::uint64_t fraction = 0;
    double scale = 1;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      std::size_t n = 0;
      bool overflow = false;
      for (; n < s.size() && IsDigit(s[n]); ++n) {
        if (overflow) continue;
        if (fraction > (kLimit - 1) / 10) {
          overflow = true;  // further digits cannot change the nanoseconds
          continue;
        }
        fraction = fraction * 10 + static_cast<std::uint64_t>(s[n] - '0');
        scale *= 10;
      }
      has_fraction = n > 0;
      s.remove_prefix(n);
    }
    if (!has_whole && !has_fraction) return invalid();
    std::size_t unit_size = 0;
    while (unit_size < s.size() && s[unit_size] != '.' && !IsDigit(s[unit_size])) ++unit_size;
    if (unit_size == 0) {
      return absl::InvalidArgumentError(absl::StrCat("missing unit in duration ", Quote(text)));
    }
    std::string_view unit_text = s.substr(0, unit_size);
    s.remove_prefix(unit_size);
    std::uint64_t unit = UnitNanos(unit_text);
    if (unit == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown unit ", Quote(unit_text), " in duration ", Quote(text)));
    }
    if (whole > kLimit / unit) return invalid(": out of range");
    std::uint64_t value = whole * unit;
    if (fraction > 0) {
      value += static_cast<std::uint64_t>(static_cast<double>(fraction) *
                                          (static_cast<double>(unit) / scale));
      if (value > kLimit) return invalid(": out of range");
    }
    total += value;
    if (total > kLimit) return invalid(": out of range");
  }
  if (negative) {
    // -2^63 ns is representable; its negation is not, so build it from the negative side.
    return absl::Nanoseconds(total == kLimit ? std::numeric_limits<std::int64_t>::min()
                                             : -static_cast<std::int64_t>(total));
  }
  if (total > kLimit - 1) return invalid(": out of range");
  return absl::Nanoseconds(static_cast<std::int64_t>(total));
}

std::string DurationText(absl::Duration d) {
  std::int64_t nanos = absl::ToInt64Nanoseconds(d);  // saturates an infinite duration
  if (nanos == 0) return "0s";
  bool negative = nanos < 0;
  std::uint64_t u = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(nanos)
                             : static_cast<std::uint64_t>(nanos);
  std::string reversed;
  if (u < kNanosPerSecond) {
    if (u < 1'000) {
      reversed = "sn";
      TakeInteger(u, reversed);
    } else if (u < 1'000'000) {
      reversed = "s\xB5\xC2";  // "µs" backwards
      TakeInteger(TakeFraction(u, 3, reversed), reversed);
    } else {
      reversed = "sm";
      TakeInteger(TakeFraction(u, 6, reversed), reversed);
    }
  } else {
    reversed = "s";
    u = TakeFraction(u, 9, reversed);
    TakeInteger(u % 60, reversed);
    u /= 60;
    if (u > 0) {
      reversed.push_back('m');
      TakeInteger(u % 60, reversed);
      u /= 60;
      if (u > 0) {
        reversed.push_back('h');
        TakeInteger(u, reversed);
      }
    }
  }
  if (negative) reversed.push_back('-');
  return std::string(reversed.rbegin(), reversed.rend());
}

}  // namespace agentrt::mcp
