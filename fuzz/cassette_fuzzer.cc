// The cassette reader never crashes on any bytes, every refusal names the file, and what it
// accepts writes back and reads again to the same bytes (so a recorder that rewrites a cassette
// it opened keeps every exchange as it was).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/replay/cassette.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<agentrt::replay::Cassette> cassette =
      agentrt::replay::ParseCassette(bytes, "fuzz.cassette");
  if (!cassette.ok()) {
    std::string_view message(cassette.status().message().data(),
                             cassette.status().message().size());
    if (!message.starts_with("cassette fuzz.cassette: ")) std::abort();
    return 0;
  }
  absl::StatusOr<std::string> written = agentrt::replay::SerializeCassette(*cassette);
  if (cassette->from_newer_build) {
    // Never written back: that would drop what this build does not know.
    if (written.ok()) std::abort();
    return 0;
  }
  if (!written.ok()) std::abort();
  absl::StatusOr<agentrt::replay::Cassette> again =
      agentrt::replay::ParseCassette(*written, "fuzz.cassette");
  if (!again.ok() || again->exchanges.size() != cassette->exchanges.size()) std::abort();
  absl::StatusOr<std::string> rewritten = agentrt::replay::SerializeCassette(*again);
  if (!rewritten.ok() || *rewritten != *written) std::abort();
  return 0;
}
