// runtime/world/sse_parser.h
//
// Server-sent events (the WHATWG "text/event-stream" format) parsed incrementally from the bytes
// of a streamed HTTP body, as they arrive in chunks of any size: a line may be split anywhere,
// even between the CR and LF of a CRLF.
//
// The rules, as the format defines them:
//  - a UTF-8 byte order mark at the very start of the stream is skipped;
//  - lines end at CRLF, LF or CR;
//  - a line starting with ':' is a comment (servers send them as keep-alives);
//  - "field:value" (one space after the colon removed) or a bare "field" (empty value);
//    fields `event`, `data`, `id` and `retry`; any other field is ignored;
//  - `data` lines accumulate, joined with '\n';
//  - `id` sets the last event id (kept across events) as soon as its line is read, unless the
//    value contains a NUL;
//  - `retry` with only ASCII digits (at least one, and a value that fits 64 bits) sets the
//    reconnection time in milliseconds; otherwise it is ignored;
//  - an empty line dispatches the event when its data is not empty (an event with an `id` and no
//    data, such as the priming event MCP servers open a stream with, is not dispatched but still
//    updates last_event_id()), then resets the event name and data;
//  - at the end of the stream (Finish) an event that was not ended by an empty line is
//    dispatched too, as the MCP SDKs do.
// The event's type is "message" when no `event` field named it. Which events matter is the
// caller's business (the MCP client takes only "message" ones).
//
// Bounded: a line or an event's data longer than max_event_bytes is refused (ResourceExhausted),
// so a server that never ends a line cannot grow memory without bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace agentrt::world {

struct SseEvent {
  std::string type = "message";  // the `event` field, or "message"
  std::string data;              // the `data` lines joined with '\n'
  std::string id;                // the last event id as of this event ("" if none yet)
  bool operator==(const SseEvent&) const = default;
};

class SseParser {
 public:
  static constexpr std::size_t kDefaultMaxEventBytes = std::size_t{16} << 20;

  explicit SseParser(std::size_t max_event_bytes = kDefaultMaxEventBytes)
      : max_event_bytes_(max_event_bytes) {}

  // Feed parses the next bytes of the stream and returns the events they completed, in order.
  // Errors: ResourceExhausted when a line or an event's data passes max_event_bytes; every later
  // call then fails the same way.
  absl::StatusOr<std::vector<SseEvent>> Feed(std::string_view bytes);

  // Finish ends the stream: a line not ended by a newline is taken as ended, and an event with
  // data that no empty line dispatched is returned. Later Feeds start a new stream (a
  // reconnection): last_event_id() and retry_ms() are kept, since a reconnection resumes from
  // them.
  absl::StatusOr<std::vector<SseEvent>> Finish();

  // The reconnection time the stream asked for with `retry`, if it did.
  std::optional<std::int64_t> retry_ms() const { return retry_ms_; }
  // The last event id the stream set ("" if none).
  const std::string& last_event_id() const { return last_event_id_; }

 private:
  void ProcessLine(std::string_view line, std::vector<SseEvent>& out);
  void Dispatch(std::vector<SseEvent>& out);

  const std::size_t max_event_bytes_;
  absl::Status failed_;
  bool at_start_ = true;   // a BOM may still come
  bool after_cr_ = false;  // the last byte was a CR: a following LF belongs to it
  std::string line_;       // the line being read
  std::string type_;       // the event being built
  std::string data_;
  bool has_data_ = false;
  std::string last_event_id_;
  std::optional<std::int64_t> retry_ms_;
};

}  // namespace agentrt::world
