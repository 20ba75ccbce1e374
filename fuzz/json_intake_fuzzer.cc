// Strict intake must never crash, hang or read out of bounds on any bytes, and whatever it
// accepts must canonicalize to something intake accepts again, with the same canonical bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<agentrt::json::Document> doc = agentrt::json::Parse(bytes);
  if (!doc.ok()) {
    // Every refusal names where it happened.
    if (doc.status().message().find(" at byte ") == std::string_view::npos &&
        doc.status().message().find("larger than the limit") == std::string_view::npos) {
      std::abort();
    }
    return 0;
  }
  std::string canonical = agentrt::json::WriteCanonical(doc->root());
  absl::StatusOr<std::string> again = agentrt::json::Canonicalize(canonical);
  if (!again.ok() || *again != canonical) std::abort();
  return 0;
}
