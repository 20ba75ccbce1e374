// mcp/stdio_transport.h
//
// MCP over a child's stdio (MCP's stdio transport): one message per line each way,
// newline-delimited, a trailing CR dropped, blank lines skipped. The child is a world::Process
// (runtime/world/launcher.h), so the server can be real, recorded, replayed or simulated. Reads
// happen on the calling thread, with the caller's deadline.
//
// A line longer than `max_message_bytes` (16 MiB, the SDKs' frame cap) is refused
// (ResourceExhausted) rather than buffered without bound. Once the server's stdout has ended,
// every Receive fails at once (Unavailable), saying so.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "mcp/transport.h"
#include "runtime/world/launcher.h"

namespace agentrt::mcp {

inline constexpr std::size_t kMaxMessageBytes = std::size_t{16} << 20;

class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(std::unique_ptr<world::Process> process,
                          std::size_t max_message_bytes = kMaxMessageBytes);
  ~StdioTransport() override;

  absl::Status Send(std::string_view message, absl::Time deadline) override;
  absl::StatusOr<std::string> Receive(absl::Time deadline) override;
  void Close() override;
  std::string StderrTail(absl::Time deadline) override;

 private:
  const std::unique_ptr<world::Process> process_;
  const std::size_t max_message_bytes_;
  std::string buffer_;       // bytes read and not yet returned (the receiving thread's)
  std::size_t scanned_ = 0;  // how much of buffer_ holds no newline
  absl::Status ended_;       // set once stdout ended or failed for good
  std::atomic<bool> closed_{false};
};

}  // namespace agentrt::mcp
