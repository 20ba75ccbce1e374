// mcp/proxy/host_front.h
//
// The proxy as an MCP server to one host (docs/proxy.md, "What the host sees"), independent of
// how the bytes travel: each JSON-RPC message the host sends is answered here.
//  - initialize: protocol 2025-11-25 offered; a host asking for 2025-06-18 or 2025-03-26 gets
//    that; tools only; server info `gated-tools` 0.1.0 (never the operator's command);
//  - tools/list: the governed tools (name, description, restricted input schema; never an output
//    schema) and the status tool, in one page;
//  - tools/call: decided by the Proxy (proxy.h), as a text block, `isError` when the answer is
//    one, and `structuredContent` when the result is an object; returned as a task the
//    transport runs on a thread of its choosing, so a held call does not stop the others;
//  - ping; notifications/cancelled ends the hold of the request it names (an executing call is
//    never cancelled: it finishes and is recorded); other notifications and responses are
//    taken and dropped;
//  - anything else, the client-side methods a host might send included, is -32601; a message
//    strict intake refuses is -32700 with a null id, naming no byte of it.
// After Shutdown, a call gets the error `the proxy is shutting down` and its holds end at once.
// Thread-safe: Receive from one reader, tasks on any threads, `send` called from any of them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "mcp/proxy/proxy.h"

namespace agentrt::proxy {

inline constexpr std::string_view kServerName = "gated-tools";
inline constexpr std::string_view kServerVersion = "0.1.0";
inline constexpr std::string_view kLatestProtocol = "2025-11-25";

// Send writes one message (a line without its newline) to the host. A task may call it from
// another thread than Receive's: the caller serializes its writes.
using Send = std::function<void(std::string)>;

class HostFront {
 public:
  // At most `max_in_flight` calls at once: a call past it is answered with an error at once (a
  // host cannot make the proxy hold unbounded work).
  explicit HostFront(Proxy& proxy, std::size_t max_in_flight = kMaxCallsInFlight);
  static constexpr std::size_t kMaxCallsInFlight = 64;

  // Receive takes one message; what answers it (and a call's progress) goes to `send`. A
  // tools/call comes back as a task to run; everything else is answered before Receive returns.
  std::optional<std::function<void()>> Receive(std::string_view message, Send send);

  // How many of this host's calls are in flight.
  std::size_t in_flight();

  // Shutdown refuses calls from now on and ends the holds of this host's calls (the proxy's
  // other hosts keep theirs: Proxy::Stop ends every hold).
  void Shutdown();

 private:
  std::string Initialize(std::string_view params) const;
  std::string ToolsList() const;
  std::function<void()> CallTask(std::string id, std::string params, Send send);

  Proxy& proxy_;
  const std::size_t max_in_flight_;
  absl::Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // Calls in flight by request id: notified when the host cancels one.
  std::map<std::string, std::shared_ptr<absl::Notification>> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace agentrt::proxy
