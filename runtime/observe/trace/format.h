// runtime/observe/trace/format.h
//
// The two line forms of an event (docs/formats/events.md):
//
//   text   "2027-01-15 08:00:00.000 +0000  step.tool_started     {"args":...}\n"
//          the time (milliseconds, in a chosen zone, UTC unless told), two spaces, the type
//          padded to 22 columns, a space, the payload — every part through json::Sanitize, so a
//          line shows what was recorded and can never move the cursor, recolour the terminal,
//          reorder text or forge another line.
//   JSONL  {"seq":7,"run_id":"…","step_id":"…","at":"…","type":"…","payload":{…}}\n
//          one compact JSON object: "step_id" omitted when empty, "at" the stored timestamp
//          text, "payload" the recorded payload in canonical form (for every payload agentrt
//          wrote, the recorded bytes); a payload that is not JSON is kept as a string with
//          "invalid_payload":true, never dropped. No hash field, so a record is byte-stable.
//
// Pure functions of the event; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "runtime/store/store.h"

namespace agentrt::trace {

// The width the type is padded to in a text line.
inline constexpr std::size_t kTypeColumns = 22;

struct TextOptions {
  // The zone the time is shown in. UTC by default, so a line does not depend on the machine.
  absl::TimeZone zone = absl::UTCTimeZone();
  // When above 0, at most this many bytes of the payload are shown (cut on a UTF-8 boundary),
  // followed by "...[N more bytes]".
  std::size_t max_payload_bytes = 0;
};

// TextLine is the text form of `event`, newline included. A stored time that is not a
// timestamp is shown as stored (sanitized).
std::string TextLine(const store::Event& event, const TextOptions& options = {});

// JsonlLine is the JSON Lines record of `event`, newline included. Text that is not UTF-8 in
// the event's string fields is shown with U+FFFD in its place (JSON strings are UTF-8).
std::string JsonlLine(const store::Event& event);

}  // namespace agentrt::trace
