// runtime/prices.h
//
// What model calls cost. A price table maps a model's name to its price per million tokens, in
// micros (millionths of a currency unit). Absence is not the same as free: PriceFor refuses a
// model the table does not list, so a paid model is never silently run at no cost; local
// models are listed explicitly with Free. The model caller charges a model absent from its
// table nothing (the check belongs where the table is assembled: call PriceFor there).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/model.h"

namespace agentrt {

struct Price {
  std::int64_t input_per_mtok = 0;
  std::int64_t output_per_mtok = 0;
  std::int64_t cached_input_per_mtok = 0;
};

using PriceTable = std::map<std::string, Price, std::less<>>;

// PriceFor: NotFound "<model>: no price for this model" when the table does not list it.
absl::StatusOr<Price> PriceFor(const PriceTable& table, std::string_view model);

// Free lists each model at a zero price (local models).
PriceTable Free(std::initializer_list<std::string_view> models);

// Merge: entries of later tables replace earlier ones.
PriceTable Merge(std::initializer_list<PriceTable> tables);

// CostMicros = floor((input - cached) x input price / 1e6) + floor(cached x cached price / 1e6)
// + floor(output x output price / 1e6), exact (128-bit), negatives counted as 0, saturating at
// the largest int64.
std::int64_t CostMicros(const Usage& usage, const Price& price);

// ParseDollars reads a budget as a person writes it: "5", "4.41", "$0.50", " $2 ". Returns
// micros, rounded half up past the sixth decimal. InvalidArgument for anything else (negative,
// exponents, separators, words) or an amount of 2^63 micros or more.
absl::StatusOr<std::int64_t> ParseDollars(std::string_view text);

}  // namespace agentrt
