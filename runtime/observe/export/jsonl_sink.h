// runtime/observe/export/jsonl_sink.h
//
// JsonlSink: a follower sink (follower.h) that writes each event as trace's JSON Lines record
// (runtime/observe/trace/format.h), byte for byte, one whole line per event. A failed write stops
// the follower with that error, so the cursor never moves past an event that was not written.
#pragma once

#include <ostream>

#include "absl/status/status.h"
#include "runtime/observe/trace/writer.h"
#include "runtime/store/store.h"

namespace agentrt::exporter {

class JsonlSink {
 public:
  explicit JsonlSink(std::ostream& out) : writer_(out) {}
  // Pass the sink to Follower::Follow as is: it is callable with an event.
  absl::Status operator()(const store::Event& event) const { return writer_.Write(event); }

 private:
  // Writing does not change what the sink is; the writer serializes its own output.
  mutable trace::JsonlWriter writer_;
};

}  // namespace agentrt::exporter
