#include "providers/usage.h"

#include <array>
#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"

namespace agentrt::providers {

absl::StatusOr<std::int64_t> UsageCount(std::string_view field, std::optional<json::Value> value) {
  if (!value || value->is_null()) return 0;
  auto refuse = [&]() {
    std::string shown = json::WriteCanonical(*value);
    return UnusableUsageError(absl::StrCat("unusable usage: ", ToAbsl(field), " is ",
                                           json::Sanitize(json::Truncate(shown, 64)),
                                           ", not a count"));
  };
  if (!value->is_number()) return refuse();
  std::string_view literal = value->number_literal();
  // A JSON number without fraction or exponent; "-0" is zero.
  if (literal.find_first_of(".eE") != std::string_view::npos) return refuse();
  std::int64_t count = 0;
  if (!absl::SimpleAtoi(ToAbsl(literal), &count) || count < 0) return refuse();
  return count;
}

absl::Status CheckUsage(const Usage& usage) {
  std::string reason;
  if (usage.input_tokens < 0) {
    reason = absl::StrCat("input tokens ", usage.input_tokens);
  } else if (usage.output_tokens < 0) {
    reason = absl::StrCat("output tokens ", usage.output_tokens);
  } else if (usage.cached_input_tokens < 0) {
    reason = absl::StrCat("cached input tokens ", usage.cached_input_tokens);
  } else if (usage.cached_input_tokens > usage.input_tokens) {
    reason = absl::StrCat("cached input tokens ", usage.cached_input_tokens,
                          " exceed input tokens ", usage.input_tokens);
  }
  if (reason.empty()) return absl::OkStatus();
  return UnusableUsageError(absl::StrCat("unusable usage: ", reason));
}

std::string SynthesizeToolUseId(world::Entropy& entropy, std::size_t index) {
  std::array<std::uint8_t, 8> bytes{};
  entropy.Fill(bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "call_";
  for (std::uint8_t b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  absl::StrAppend(&id, "_", index);
  return id;
}

}  // namespace agentrt::providers
