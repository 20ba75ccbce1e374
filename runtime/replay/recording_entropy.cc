#include "runtime/replay/recording_entropy.h"

#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {

void RecordingEntropy::Fill(std::span<std::uint8_t> out) {
  EntropyWrapper::Fill(out);
  v1::Exchange exchange;
  v1::EntropyDraw* draw = exchange.mutable_entropy();
  draw->set_source(name_);
  draw->set_size(out.size());
  draw->set_data(reinterpret_cast<const char*>(out.data()), out.size());
  recorder_.Record(exchange).IgnoreError();  // kept by the recorder
}

}  // namespace agentrt::replay
