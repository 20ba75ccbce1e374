#include "runtime/observe/trace/format.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/world/timestamp.h"

namespace agentrt::trace {
namespace {

// A stored timestamp shown to a person: milliseconds are enough to read a trace by, and the
// zone is printed so a line is never ambiguous.
std::string ShowTime(const std::string& at, absl::TimeZone zone) {
  absl::StatusOr<absl::Time> t = world::ParseTimestamp(at);
  if (at.empty() || !t.ok()) return json::Sanitize(at);
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S %z", *t, zone);
}

// The longest prefix of `text` of at most `n` bytes that does not end inside a UTF-8 sequence.
std::string_view Head(std::string_view text, std::size_t n) {
  if (text.size() <= n) return text;
  std::size_t cut = n;
  while (cut > 0 && json::IsContinuationByte(static_cast<unsigned char>(text[cut]))) --cut;
  return text.substr(0, cut);
}

}  // namespace

std::string TextLine(const store::Event& event, const TextOptions& options) {
  std::string line = ShowTime(event.at, options.zone);
  line.append("  ");
  std::string type = json::Sanitize(event.type);
  line.append(type);
  if (type.size() < kTypeColumns) line.append(kTypeColumns - type.size(), ' ');
  line.push_back(' ');
  std::string_view payload = event.payload_json;
  if (options.max_payload_bytes > 0 && payload.size() > options.max_payload_bytes) {
    std::string_view head = Head(payload, options.max_payload_bytes);
    line.append(json::Sanitize(head));
    absl::StrAppend(&line, "...[", payload.size() - head.size(), " more bytes]");
  } else {
    line.append(json::Sanitize(payload));
  }
  line.push_back('\n');
  return line;
}

std::string JsonlLine(const store::Event& event) {
  std::string line = absl::StrCat("{\"seq\":", event.seq, ",\"run_id\":");
  json::AppendJsonString(event.run_id, line);
  if (!event.step_id.empty()) {
    line.append(",\"step_id\":");
    json::AppendJsonString(event.step_id, line);
  }
  line.append(",\"at\":");
  json::AppendJsonString(event.at, line);
  line.append(",\"type\":");
  json::AppendJsonString(event.type, line);
  line.append(",\"payload\":");
  // The store writes canonical payloads, so the canonical form is the recorded bytes; a
  // payload someone rewrote with whitespace (even newlines) still makes one compact line.
  absl::StatusOr<std::string> payload =
      json::Canonicalize(event.payload_json.empty() ? "{}" : event.payload_json);
  if (payload.ok()) {
    line.append(*payload);
  } else {
    json::AppendJsonString(event.payload_json, line);
    line.append(",\"invalid_payload\":true");
  }
  line.append("}\n");
  return line;
}

}  // namespace agentrt::trace
