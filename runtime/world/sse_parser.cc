#include "runtime/world/sse_parser.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace agentrt::world {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// The `retry` value as milliseconds: ASCII digits only, at least one, and small enough to hold.
std::optional<std::int64_t> ParseRetry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  std::int64_t ms = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    int digit = c - '0';
    if (ms > (std::numeric_limits<std::int64_t>::max() - digit) / 10) return std::nullopt;
    ms = ms * 10 + digit;
  }
  return ms;
}

}  // namespace

absl::StatusOr<std::vector<SseEvent>> SseParser::Feed(std::string_view bytes) {
  if (!failed_.ok()) return failed_;
  std::vector<SseEvent> out;
  // A BOM may arrive split across chunks: its bytes wait in line_ until all three are seen. A
  // first byte that does not continue it ends the chance, and what was kept is line content.
  while (at_start_ && !bytes.empty()) {
    if (bytes.front() != kBom[line_.size()]) {
      at_start_ = false;
      break;
    }
    line_ += bytes.front();
    bytes.remove_prefix(1);
    if (line_.size() == kBom.size()) {
      line_.clear();
      at_start_ = false;
    }
  }
  while (!bytes.empty()) {
    if (after_cr_) {
      after_cr_ = false;
      if (bytes.front() == '\n') {  // the LF of a CRLF whose CR ended the last chunk
        bytes.remove_prefix(1);
        continue;
      }
    }
    std::size_t end = bytes.find_first_of("\r\n");
    std::string_view piece = bytes.substr(0, end);
    if (line_.size() + piece.size() > max_event_bytes_) {
      failed_ = absl::ResourceExhaustedError(
          absl::StrCat("server-sent events: a line is longer than ", max_event_bytes_, " bytes"));
      return failed_;
    }
    if (end == std::string_view::npos) {
      line_.append(piece);
      break;
    }
    if (line_.empty()) {
      ProcessLine(piece, out);  // the common case: the whole line is in this chunk
    } else {
      line_.append(piece);
      ProcessLine(line_, out);
      line_.clear();
    }
    if (!failed_.ok()) return failed_;
    after_cr_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
  }
  return out;
}

absl::StatusOr<std::vector<SseEvent>> SseParser::Finish() {
  if (!failed_.ok()) return failed_;
  std::vector<SseEvent> out;
  if (!line_.empty()) ProcessLine(line_, out);
  if (!failed_.ok()) return failed_;
  Dispatch(out);
  // The next stream is a reconnection: it starts clean, but keeps the last event id and the
  // reconnection time, which is what a reconnection resumes from.
  at_start_ = true;
  after_cr_ = false;
  line_.clear();
  return out;
}

void SseParser::ProcessLine(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    Dispatch(out);
    return;
  }
  if (line.front() == ':') return;  // a comment: a keep-alive
  std::string_view field = line;
  std::string_view value;
  if (std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "event") {
    type_.assign(value);
  } else if (field == "data") {
    std::size_t grown = data_.size() + (has_data_ ? 1 : 0) + value.size();
    if (grown > max_event_bytes_) {
      failed_ = absl::ResourceExhaustedError(absl::StrCat(
          "server-sent events: an event's data is longer than ", max_event_bytes_, " bytes"));
      return;
    }
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (field == "retry") {
    if (std::optional<std::int64_t> ms = ParseRetry(value)) retry_ms_ = ms;
  }
}

void SseParser::Dispatch(std::vector<SseEvent>& out) {
  // Empty data is never an event: MCP servers open a stream with a priming event that carries
  // only an id; its id is already the last event id.
  if (!data_.empty()) {
    SseEvent event;
    if (!type_.empty()) event.type = std::move(type_);
    event.data = std::move(data_);
    event.id = last_event_id_;
    out.push_back(std::move(event));
  }
  type_.clear();
  data_.clear();
  has_data_ = false;
}

}  // namespace agentrt::world
