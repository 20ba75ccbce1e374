#include "runtime/world/timestamp.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "runtime/base/string_view.h"

namespace agentrt::world {

namespace {

constexpr char kFormat[] = "%Y-%m-%d%ET%H:%M:%E9SZ";

// Seconds since the Unix epoch of 1000-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: the years
// the fixed-width form holds (absl's %Y writes earlier years with fewer digits).
constexpr std::int64_t kFirstSecond = -30'610'224'000;
constexpr std::int64_t kLastSecond = 253'402'300'799;

// The civil date of a count of days since 1970-01-01 (proleptic Gregorian; the classic
// era-based conversion, exact for every day).
void CivilFromDays(std::int64_t days, std::int64_t& year, int& month, int& day) {
  days += 719'468;
  std::int64_t era = (days >= 0 ? days : days - 146'096) / 146'097;
  std::int64_t doe = days - era * 146'097;                                     // [0, 146096]
  std::int64_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;  // [0, 399]
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  // [0, 365]
  std::int64_t mp = (5 * doy + 2) / 153;                                       // [0, 11]
  day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  year = yoe + era * 400 + (month <= 2 ? 1 : 0);
}

// The value of `width` decimal digits at `at`, or -1 when one is not a digit.
std::int64_t Digits(std::string_view text, std::size_t at, int width) {
  std::int64_t value = 0;
  for (int i = 0; i < width; ++i) {
    char c = text[at + i];
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The instant `text` names when it is exactly what FormatTimestamp writes for years 1000-9999
// (every field in range); nullopt for anything else, which ParseTimestamp hands to
// absl::ParseTime, so what is accepted and what it means do not depend on this path.
std::optional<absl::Time> ParseCanonical(std::string_view text) {
  if (text.size() != 30 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != '.' || text[29] != 'Z') {
    return std::nullopt;
  }
  std::int64_t year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  std::int64_t hour = Digits(text, 11, 2), minute = Digits(text, 14, 2);
  std::int64_t second = Digits(text, 17, 2), nanos = Digits(text, 20, 9);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || nanos < 0) {
    return std::nullopt;
  }
  // A civil time normalizes a field out of its range (April 31 is May 1, second 60 the next
  // minute): one that moved was not in range.
  absl::CivilSecond civil(year, static_cast<int>(month), static_cast<int>(day),
                          static_cast<int>(hour), static_cast<int>(minute),
                          static_cast<int>(second));
  if (civil.year() != year || civil.month() != month || civil.day() != day ||
      civil.hour() != hour || civil.minute() != minute || civil.second() != second) {
    return std::nullopt;
  }
  return absl::FromCivil(civil, absl::UTCTimeZone()) + absl::Nanoseconds(nanos);
}

void PutDigits(char* out, std::int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

// Written by hand: the engine stamps every write, and a general formatter costs microseconds a
// call. Times outside years 1000-9999 go through absl::FormatTime (they are not fixed-width).
std::string FormatTimestamp(absl::Time t) {
  if (t == ZeroTime()) return "";
  std::int64_t seconds = absl::ToUnixSeconds(t);  // rounds toward the infinite past
  if (seconds < kFirstSecond || seconds > kLastSecond) {
    return absl::FormatTime(kFormat, t, absl::UTCTimeZone());
  }
  std::int64_t nanos = absl::ToInt64Nanoseconds(t - absl::FromUnixSeconds(seconds));
  std::int64_t days = seconds >= 0 ? seconds / 86'400 : (seconds - 86'399) / 86'400;
  std::int64_t second_of_day = seconds - days * 86'400;
  std::int64_t year;
  int month, day;
  CivilFromDays(days, year, month, day);
  std::string out = "0000-00-00T00:00:00.000000000Z";
  PutDigits(&out[0], year, 4);
  PutDigits(&out[5], month, 2);
  PutDigits(&out[8], day, 2);
  PutDigits(&out[11], second_of_day / 3600, 2);
  PutDigits(&out[14], second_of_day / 60 % 60, 2);
  PutDigits(&out[17], second_of_day % 60, 2);
  PutDigits(&out[20], nanos, 9);
  return out;
}

// The usual text, the engine's own, is read by hand (ParseCanonical): every row and trace line
// holds timestamps, and the general parser costs three and a half times as much
// (BM_ParseTimestamp).
absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text) {
  if (text.empty()) return ZeroTime();
  if (std::optional<absl::Time> canonical = ParseCanonical(text)) return *canonical;
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
