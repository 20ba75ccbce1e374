// The cassette reader never crashes on any bytes, every refusal names the file, what it accepts
// describes every exchange without crashing, prints it in protobuf's JSON form (as `cassette
// dump --json` does: the reader refuses what is nested past what the printer can print) and
// writes back to bytes that read to the same cassette (so a framed file always round-trips),
// and a cut anywhere in an accepted file reads back as a prefix of it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "google/protobuf/util/json_util.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_text.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace {

using agentrt::replay::Cassette;

bool SameExchanges(const Cassette& a, const Cassette& b, std::size_t count) {
  if (a.size() < count || b.size() < count) return false;
  for (std::size_t i = 0; i < count; ++i) {
    if (a.exchange(i).SerializeAsString() != b.exchange(i).SerializeAsString()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Cassette> cassette = agentrt::replay::ParseCassette(bytes, "fuzz.cassette");
  if (!cassette.ok()) {
    std::string_view message(cassette.status().message().data(),
                             cassette.status().message().size());
    if (!message.starts_with("cassette fuzz.cassette: ")) std::abort();
    return 0;
  }
  for (std::size_t i = 0; i < cassette->size(); ++i) {
    if (agentrt::replay::DescribeExchange(cassette->exchange(i), 64).empty()) std::abort();
    std::string json;
    if (!google::protobuf::util::MessageToJsonString(cassette->exchange(i), &json).ok()) {
      std::abort();
    }
  }
  absl::StatusOr<std::string> written = agentrt::replay::SerializeCassette(*cassette);
  if (cassette->from_newer_build()) {
    // Never written back: that would drop what this build does not know.
    if (written.ok()) std::abort();
    return 0;
  }
  if (!written.ok()) std::abort();
  absl::StatusOr<Cassette> again = agentrt::replay::ParseCassette(*written, "fuzz.cassette");
  if (!again.ok() || again->size() != cassette->size() || !again->torn().empty() ||
      !SameExchanges(*again, *cassette, cassette->size()) ||
      again->chain_head() != cassette->chain_head()) {
    std::abort();
  }
  absl::StatusOr<std::string> rewritten = agentrt::replay::SerializeCassette(*again);
  if (!rewritten.ok() || *rewritten != *written) std::abort();
  // A cut of the written file (a crash while recording) reads as a prefix of it.
  std::size_t cut = size % (written->size() + 1);
  absl::StatusOr<Cassette> prefix =
      agentrt::replay::ParseCassette(std::string_view(*written).substr(0, cut), "fuzz.cassette");
  if (cut >= agentrt::replay::kCassetteMagic.size()) {
    if (!prefix.ok() || !SameExchanges(*prefix, *cassette, prefix->size())) std::abort();
  }
  return 0;
}
