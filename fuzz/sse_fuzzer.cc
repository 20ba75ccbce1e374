// The SSE parser (runtime/world/sse_parser.h) fed what a hostile server may stream. The input is
// the stream itself; it is parsed three ways: whole, cut into chunks whose lengths the input's
// own bytes choose (the byte a chunk starts at sets its length, so a mutation moves the cuts),
// and a byte at a time. What must hold:
//  - nothing crashes;
//  - the three agree: the same events, the same last event id and retry, the same refusal; a
//    refused stream's events before the refusal are the first events of the stream unbounded;
//  - bounded: with a small max_event_bytes (chosen by the input's length) no event, type or id
//    is longer than it, and no event has empty data.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/world/sse_parser.h"

namespace {

using agentrt::world::SseEvent;
using agentrt::world::SseParser;

struct Parsed {
  std::vector<SseEvent> events;
  absl::Status status;
  std::string last_event_id;
  std::optional<std::int64_t> retry_ms;
};

// Feeds `stream` cut into chunks of the lengths `next_length` gives, then finishes it; stops at
// the first refusal.
template <typename NextLength>
Parsed ParseInChunks(std::size_t max_event_bytes, std::string_view stream, NextLength next_length) {
  SseParser parser(max_event_bytes);
  Parsed parsed;
  auto take = [&](absl::StatusOr<std::vector<SseEvent>> events) {
    if (!events.ok()) {
      parsed.status = events.status();
      return false;
    }
    parsed.events.insert(parsed.events.end(), events->begin(), events->end());
    return true;
  };
  while (!stream.empty()) {
    std::size_t length = std::min(stream.size(), next_length(stream));
    if (!take(parser.Feed(stream.substr(0, length)))) return parsed;
    stream.remove_prefix(length);
  }
  if (!take(parser.Finish())) return parsed;
  parsed.last_event_id = parser.last_event_id();
  parsed.retry_ms = parser.retry_ms();
  return parsed;
}

void Check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "sse_fuzzer: %s\n", what);
    std::abort();
  }
}

bool IsPrefix(const std::vector<SseEvent>& prefix, const std::vector<SseEvent>& of) {
  return prefix.size() <= of.size() && std::equal(prefix.begin(), prefix.end(), of.begin());
}

void CheckAgree(const Parsed& whole, const Parsed& chunked, const Parsed& unbounded) {
  Check(whole.status == chunked.status, "a cut changed whether the stream is refused");
  if (whole.status.ok()) {
    Check(whole.events == chunked.events, "a cut changed the events");
    Check(whole.last_event_id == chunked.last_event_id, "a cut changed the last event id");
    Check(whole.retry_ms == chunked.retry_ms, "a cut changed the retry");
  } else {
    Check(whole.status.code() == absl::StatusCode::kResourceExhausted,
          "a refusal that is not ResourceExhausted");
    Check(IsPrefix(chunked.events, unbounded.events),
          "events before a refusal are not the stream's first events");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view stream(reinterpret_cast<const char*>(data), size);
  // One input in four is parsed under a small bound, so lines and data pass it often.
  const std::size_t max_event_bytes =
      size % 4 == 0 ? 1 + size % 61 : SseParser::kDefaultMaxEventBytes;

  auto whole = [](std::string_view rest) { return rest.size(); };
  auto by_input = [size](std::string_view rest) {
    return 1 + (static_cast<unsigned char>(rest.front()) ^ size) % 13;
  };
  auto byte_at_a_time = [](std::string_view) { return std::size_t{1}; };

  Parsed unbounded = ParseInChunks(SseParser::kDefaultMaxEventBytes, stream, whole);
  Check(unbounded.status.ok(), "a stream under 16 MiB was refused");
  Parsed parsed = ParseInChunks(max_event_bytes, stream, whole);
  CheckAgree(parsed, ParseInChunks(max_event_bytes, stream, by_input), unbounded);
  CheckAgree(parsed, ParseInChunks(max_event_bytes, stream, byte_at_a_time), unbounded);

  for (const SseEvent& event : parsed.events) {
    Check(!event.data.empty(), "an event with empty data");
    Check(!event.type.empty(), "an event with no type");
    Check(event.data.size() <= max_event_bytes, "data longer than the bound");
    Check(event.type.size() <= max_event_bytes, "a type longer than the bound");
    Check(event.id.size() <= max_event_bytes, "an id longer than the bound");
  }
  return 0;
}
