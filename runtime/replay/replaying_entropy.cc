#include "runtime/replay/replaying_entropy.h"

#include <cstring>

#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

void ReplayingEntropy::Fill(std::span<std::uint8_t> out) {
  v1::Exchange requested;
  requested.mutable_entropy()->set_source(name_);
  requested.mutable_entropy()->set_size(out.size());
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/false);
  if (!served.ok()) {
    after_stop_.Fill(out);
    return;
  }
  // The size was compared with the request; the cassette's rules keep data that size.
  std::memcpy(out.data(), (*served)->entropy().data().data(), out.size());
}

}  // namespace agentrt::replay
