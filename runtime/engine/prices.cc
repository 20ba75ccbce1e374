#include "runtime/prices.h"

#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"

namespace agentrt {
namespace {

constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

unsigned __int128 Term(std::int64_t tokens, std::int64_t price_per_mtok) {
  if (tokens <= 0 || price_per_mtok <= 0) return 0;
  return static_cast<unsigned __int128>(tokens) * static_cast<unsigned __int128>(price_per_mtok) /
         1000000;
}

absl::Status InvalidDollars(std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid dollar amount \"", ToAbsl(json::Sanitize(json::Truncate(text, 64))),
                   "\": write a plain amount such as 5, 4.41 or $0.50"));
}

}  // namespace

absl::StatusOr<Price> PriceFor(const PriceTable& table, std::string_view model) {
  auto it = table.find(model);
  if (it == table.end()) {
    return absl::NotFoundError(
        absl::StrCat(ToAbsl(json::Sanitize(model)), ": no price for this model"));
  }
  return it->second;
}

PriceTable Free(std::initializer_list<std::string_view> models) {
  PriceTable table;
  for (std::string_view m : models) table.emplace(std::string(m), Price{});
  return table;
}

PriceTable Merge(std::initializer_list<PriceTable> tables) {
  PriceTable merged;
  for (const PriceTable& t : tables) {
    for (const auto& [name, price] : t) merged[name] = price;
  }
  return merged;
}

std::int64_t CostMicros(const Usage& usage, const Price& price) {
  std::int64_t cached = usage.cached_input_tokens > 0 ? usage.cached_input_tokens : 0;
  std::int64_t input = usage.input_tokens > 0 ? usage.input_tokens : 0;
  std::int64_t uncached = input > cached ? input - cached : 0;
  unsigned __int128 total = Term(uncached, price.input_per_mtok) +
                            Term(cached, price.cached_input_per_mtok) +
                            Term(usage.output_tokens, price.output_per_mtok);
  return total > static_cast<unsigned __int128>(kMaxInt64) ? kMaxInt64
                                                           : static_cast<std::int64_t>(total);
}

absl::StatusOr<std::int64_t> ParseDollars(std::string_view text) {
  std::string_view s = ToStd(absl::StripAsciiWhitespace(ToAbsl(text)));
  if (!s.empty() && s.front() == '$') {
    s = ToStd(absl::StripAsciiWhitespace(ToAbsl(s.substr(1))));
  }
  std::size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  auto digits = [](std::string_view d) {
    for (char c : d) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  };
  if (whole.empty() || !digits(whole) || !digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty())) {
    return InvalidDollars(text);
  }
  unsigned __int128 micros = 0;
  for (char c : whole) {
    micros = micros * 10 + static_cast<unsigned>(c - '0');
    if (micros > static_cast<unsigned __int128>(kMaxInt64)) break;  // too large either way
  }
  micros *= 1000000;
  unsigned __int128 unit = 100000;
  for (std::size_t i = 0; i < fraction.size() && i < 6; ++i, unit /= 10) {
    micros += static_cast<unsigned>(fraction[i] - '0') * unit;
  }
  if (fraction.size() > 6 && fraction[6] >= '5') micros += 1;  // half up at the seventh digit
  if (micros > static_cast<unsigned __int128>(kMaxInt64)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dollar amount \"", ToAbsl(json::Sanitize(json::Truncate(text, 64))), "\" is too large"));
  }
  return static_cast<std::int64_t>(micros);
}

}  // namespace agentrt
