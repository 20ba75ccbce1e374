#include "mcp/stdio_transport.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace agentrt::mcp {

StdioTransport::StdioTransport(std::unique_ptr<world::Process> process,
                               std::size_t max_message_bytes)
    : process_(std::move(process)), max_message_bytes_(max_message_bytes) {}

StdioTransport::~StdioTransport() { Close(); }

absl::Status StdioTransport::Send(std::string_view message, absl::Time deadline) {
  if (closed_) return absl::CancelledError("the connection is closed");
  std::string line;
  line.reserve(message.size() + 1);
  line.append(message);
  line.push_back('\n');
  absl::Status written = process_->Write(line, deadline);
  if (absl::IsUnavailable(written)) {
    return absl::UnavailableError(absl::StrCat("the server closed its input: ", written.message()));
  }
  return written;
}

absl::StatusOr<std::string> StdioTransport::Receive(absl::Time deadline) {
  for (;;) {
    std::size_t newline = buffer_.find('\n', scanned_);
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      scanned_ = 0;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;  // a blank line
      return line;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() > max_message_bytes_) {
      ended_ = absl::ResourceExhaustedError(
          absl::StrCat("the server sent a line longer than ", max_message_bytes_, " bytes"));
    }
    if (!ended_.ok()) return ended_;
    if (closed_) return absl::CancelledError("the connection is closed");
    absl::StatusOr<std::string> chunk = process_->Read(deadline);
    if (!chunk.ok()) {
      if (absl::IsCancelled(chunk.status()) || closed_) {
        return absl::CancelledError("the connection is closed");
      }
      return chunk.status();  // a deadline: nothing is lost
    }
    if (chunk->empty()) {
      ended_ = absl::UnavailableError(
          buffer_.empty() ? "the server closed its output"
                          : "the server closed its output in the middle of a message");
      return ended_;
    }
    buffer_ += *chunk;
  }
}

void StdioTransport::Close() {
  if (closed_.exchange(true)) return;
  process_->Close();
}

std::string StdioTransport::StderrTail(absl::Time deadline) {
  return process_->StderrTail(deadline);
}

}  // namespace agentrt::mcp
